package datadir

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"
)

// The lock on LockFile (flock) keeps processes that must not share the
// data from working on it at once. It has two modes:
//
//   - exclusive (Lock): a server with the embedded SQLite store, or a tool
//     that needs the directory alone (jog fsck --repair);
//   - shared (LockShared): the gateways that serve one namespace from an
//     external metadata store and share the data dir (docs/RELIABILITY.md,
//     "Several gateways on one data directory").
//
// Any number of shared holders coexist; an exclusive holder excludes all
// others. The kernel drops the lock when the holder exits, even by kill -9:
// a stale file is harmless. On a shared filesystem the lock is only as good
// as the filesystem's flock across machines (NFSv4, CephFS, JuiceFS, Lustre
// mounted with -o flock).

// ErrLocked reports a data dir whose lock another process (or another
// server in this process) holds.
var ErrLocked = errors.New("data dir is in use by another jog process (a running jog server or jog fsck --repair)")

// Lock takes the exclusive lock on dir's lock file, creating the file if
// needed, without waiting: when the lock is held (shared or exclusive) it
// fails with an error wrapping ErrLocked. release gives the lock back.
func Lock(dir string) (release func() error, err error) {
	return lock(dir, true)
}

// LockShared takes the shared lock on dir's lock file, as a gateway of a
// shared data dir does: it fails with an error wrapping ErrLocked while a
// process holds the lock exclusively. A probe (Locked) holds it for an
// instant only, so LockShared tries for up to sharedTries×sharedWait
// before it gives up.
func LockShared(dir string) (release func() error, err error) {
	for try := 1; ; try++ {
		release, err = lock(dir, false)
		if !errors.Is(err, ErrLocked) || try == sharedTries {
			return release, err
		}
		time.Sleep(sharedWait)
	}
}

const (
	sharedTries = 20
	sharedWait  = 10 * time.Millisecond
)

func lock(dir string, exclusive bool) (func() error, error) {
	return lockAt(filepath.Join(dir, LockFile), exclusive)
}

func lockAt(path string, exclusive bool) (func() error, error) {
	release, err := lockFile(path, exclusive)
	if errors.Is(err, ErrLocked) {
		return nil, fmt.Errorf("%w: %s is locked", ErrLocked, path)
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return release, nil
}

// Locked reports whether some process holds dir's lock, shared or
// exclusive. It takes the lock for no longer than the check, and creates
// no file.
func Locked(dir string) (bool, error) {
	return probeLock(filepath.Join(dir, LockFile))
}

// LockPath takes the exclusive lock on the file at path, creating it if
// needed, as Lock does on a data dir's lock file: the blob store marks a
// live gateway with it (internal/blob/disk). It fails with an error
// wrapping ErrLocked while another holds the lock.
func LockPath(path string) (release func() error, err error) {
	return lockAt(path, true)
}

// PathLocked reports whether some process holds the lock on the file at
// path, as Locked does for a data dir; false when there is no such file.
func PathLocked(path string) (bool, error) {
	return probeLock(path)
}
