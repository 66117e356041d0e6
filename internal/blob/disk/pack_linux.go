package disk

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// probePacks reports whether the file system under dir can punch holes and
// find data past them, which packs need to free space. It writes a file
// named by pattern (os.CreateTemp) and removes it.
func probePacks(dir, pattern string) bool {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return false
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if _, err := f.Write(make([]byte, 3*packAlign)); err != nil {
		return false
	}
	if punchHole(f, 0, packAlign) != nil {
		return false
	}
	d, ok, err := nextData(f, 0)
	return err == nil && ok && d == packAlign
}

// punchHole frees [off, off+n) of f; reads of it return zeros.
func punchHole(f *os.File, off, n int64) error {
	return fileControl(f, func(fd int) error {
		return unix.Fallocate(fd, unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, off, n)
	})
}

// nextData returns the offset of the first data at or after off; ok is
// false when only holes follow.
func nextData(f *os.File, off int64) (d int64, ok bool, err error) {
	err = fileControl(f, func(fd int) error {
		var e error
		d, e = unix.Seek(fd, off, unix.SEEK_DATA)
		return e
	})
	if errors.Is(err, unix.ENXIO) {
		return 0, false, nil
	}
	return d, err == nil, err
}

// noData reports whether f holds no data at all (only holes).
func noData(f *os.File) (bool, error) {
	_, ok, err := nextData(f, 0)
	return !ok, err
}

func fdatasync(f *os.File) error {
	return fileControl(f, unix.Fdatasync)
}

// lockShared marks f as appended to by this process.
func lockShared(f *os.File) error {
	return fileControl(f, func(fd int) error { return unix.Flock(fd, unix.LOCK_SH) })
}

// tryLockExclusive locks f if no process appends to it.
func tryLockExclusive(f *os.File) bool {
	return fileControl(f, func(fd int) error { return unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) }) == nil
}
