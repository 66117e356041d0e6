package server

import (
	"errors"
	"fmt"
	"path/filepath"
)

// LockFile is the name, inside the data dir, of the file a running server
// holds an exclusive lock on (flock), so that a second server or a
// `jog fsck --repair` cannot work on the same data at the same time. The
// kernel drops the lock when the holder exits, even by kill -9: a stale
// file is harmless.
const LockFile = "jog.lock"

// ErrDataDirLocked reports a data dir whose lock another process (or
// another server in this process) holds.
var ErrDataDirLocked = errors.New("data dir is in use by another jog process (a running jog server or jog fsck --repair)")

// LockDataDir takes the exclusive lock on dir's lock file, creating the
// file if needed, without waiting: when the lock is held it fails with an
// error wrapping ErrDataDirLocked. release gives the lock back.
func LockDataDir(dir string) (release func() error, err error) {
	path := filepath.Join(dir, LockFile)
	release, err = lockFile(path)
	if errors.Is(err, ErrDataDirLocked) {
		return nil, fmt.Errorf("%w: %s is locked", ErrDataDirLocked, path)
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return release, nil
}

// DataDirLocked reports whether some process holds dir's lock. It takes
// nothing for longer than the check, and creates no file.
func DataDirLocked(dir string) (bool, error) {
	return probeLock(filepath.Join(dir, LockFile))
}
