//go:build unix

package datadir

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"syscall"
)

func lockFile(path string, exclusive bool) (func() error, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if err := flock(f, how|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	var once sync.Once
	return func() (err error) {
		once.Do(func() { err = f.Close() }) // closing the descriptor drops the lock
		return err
	}, nil
}

// probeLock tries the lock exclusively, which any holder (shared or
// exclusive) prevents; the file is opened for writing because NFS lends
// exclusive locks only to writers.
func probeLock(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // no server ever ran here
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	err = flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, ErrLocked) {
		return true, nil
	}
	return false, err
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrLocked
		default:
			return &fs.PathError{Op: "flock", Path: f.Name(), Err: err}
		}
	}
}
