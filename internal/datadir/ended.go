package datadir

import (
	"os"
	"path/filepath"
	"strings"
)

// EndedGateways lists the gateway directories under root (one per
// gateway: a bucket log spool's, a notification queue's) other than
// self's whose lock file, named lock in each, no process holds: those of
// ended gateways, for a live one to adopt. A directory whose lock cannot
// be probed is left out (its own to deliver, or tried again later), and
// so is one LockGatewayDir is setting up.
func EndedGateways(root, self, lock string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || e.Name() == self || strings.HasSuffix(e.Name(), stagingSuffix) {
			continue
		}
		if locked, err := PathLocked(filepath.Join(root, e.Name(), lock)); err != nil || locked {
			continue // alive (or unknown)
		}
		out = append(out, e.Name())
	}
	return out, nil
}

// stagingSuffix marks a gateway directory LockGatewayDir is setting up;
// EndedGateways leaves it out.
const stagingSuffix = ".locking"

// LockGatewayDir makes the directory root/<gateway> of a gateway's own
// files (its bucket log spool, its notification queue) and takes the lock
// file named lock in it, held until release. The directory is made and
// locked under a staging name (<gateway>.locking) and only then renamed
// into place, so that it never shows with its lock free while the gateway
// lives: another gateway starting at the same moment would take it for
// an ended one and adopt it from under this one (EndedGateways). A
// directory already there (the same gateway opening it again) is locked
// where it is. A crash between the two steps leaves an empty staging
// directory, which nothing reads.
func LockGatewayDir(root, gateway, lock string) (dir string, release func() error, err error) {
	dir = filepath.Join(root, gateway)
	if _, err := os.Stat(dir); err == nil {
		release, err := LockPath(filepath.Join(dir, lock))
		return dir, release, err
	}
	staged := dir + stagingSuffix
	if err := os.MkdirAll(staged, 0o750); err != nil {
		return "", nil, err
	}
	release, err = LockPath(filepath.Join(staged, lock))
	if err != nil {
		return "", nil, err
	}
	if err := os.Rename(staged, dir); err != nil {
		_ = release()
		return "", nil, err
	}
	if err := SyncDir(root); err != nil {
		_ = release()
		return "", nil, err
	}
	return dir, release, nil
}
