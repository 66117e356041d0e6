package datadir

import (
	"errors"
	"fmt"
	"path/filepath"
)

// The lock on LockFile (flock) keeps a second server or a `jog fsck
// --repair` from working on the same data at the same time. The kernel
// drops the lock when the holder exits, even by kill -9: a stale file is
// harmless.

// ErrLocked reports a data dir whose lock another process (or another
// server in this process) holds.
var ErrLocked = errors.New("data dir is in use by another jog process (a running jog server or jog fsck --repair)")

// Lock takes the exclusive lock on dir's lock file, creating the file if
// needed, without waiting: when the lock is held it fails with an error
// wrapping ErrLocked. release gives the lock back.
func Lock(dir string) (release func() error, err error) {
	path := filepath.Join(dir, LockFile)
	release, err = lockFile(path)
	if errors.Is(err, ErrLocked) {
		return nil, fmt.Errorf("%w: %s is locked", ErrLocked, path)
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return release, nil
}

// Locked reports whether some process holds dir's lock. It takes nothing
// for longer than the check, and creates no file.
func Locked(dir string) (bool, error) {
	return probeLock(filepath.Join(dir, LockFile))
}
