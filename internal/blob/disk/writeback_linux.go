package disk

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing f's dirty pages in
// [off, off+n) to the device, without waiting for them to reach it.
func startWriteback(f *os.File, off, n int64) error {
	return fileControl(f, func(fd int) error {
		return unix.SyncFileRange(fd, off, n, unix.SYNC_FILE_RANGE_WRITE)
	})
}
