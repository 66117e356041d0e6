package datadir

import "os"

// SyncDir fsyncs directory dir, so that the files created, renamed or
// removed in it stay so after a crash.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
