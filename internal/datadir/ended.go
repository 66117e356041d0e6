package datadir

import (
	"os"
	"path/filepath"
)

// EndedGateways lists the gateway directories under root (one per
// gateway: a bucket log spool's, a notification queue's) other than
// self's whose lock file, named lock in each, no process holds: those of
// ended gateways, for a live one to adopt. A directory whose lock cannot
// be probed is left out (its own to deliver, or tried again later).
func EndedGateways(root, self, lock string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || e.Name() == self {
			continue
		}
		if locked, err := PathLocked(filepath.Join(root, e.Name(), lock)); err != nil || locked {
			continue // alive (or unknown)
		}
		out = append(out, e.Name())
	}
	return out, nil
}
