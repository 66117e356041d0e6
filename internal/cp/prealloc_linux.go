package cp

import (
	"os"

	"golang.org/x/sys/unix"
)

// preallocate gives f its size in one allocation: the ranges written in
// parallel at scattered offsets then land in extents reserved up front
// rather than fragments. A filesystem that cannot (tmpfs before 3.5,
// some network filesystems) gets a sparse file of the size instead.
func preallocate(f *os.File, size int64) error {
	if size > 0 {
		if err := unix.Fallocate(int(f.Fd()), 0, 0, size); err == nil {
			return nil
		}
	}
	return f.Truncate(size)
}
