package disk

import (
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/jogstore/jog/internal/blob"
)

// counters are what the store counts as it works, for Stats: one atomic
// add per blob committed or deleted.
type counters struct {
	files   atomic.Uint64 // blobs committed as files of their own
	packed  atomic.Uint64 // blobs committed as pack records
	bytes   atomic.Uint64 // bytes of the blobs committed
	deleted atomic.Uint64 // blobs deleted (or moved to the trash)
}

// committed counts a blob of n bytes committed, packed or as a file.
func (c *counters) committed(n int64, packed bool) {
	if packed {
		c.packed.Add(1)
	} else {
		c.files.Add(1)
	}
	c.bytes.Add(uint64(n))
}

var _ blob.StatsReporter = (*Store)(nil) // internal/metrics finds it by type assertion

// Stats reads the store's counters, lists the pack directory and asks the
// file system for its free space: a scrape's work, none of it on the
// write path.
func (s *Store) Stats() blob.Stats {
	st := blob.Stats{
		FilesWritten:  s.count.files.Load(),
		PackedWritten: s.count.packed.Load(),
		BytesWritten:  s.count.bytes.Load(),
		Deleted:       s.count.deleted.Load(),
		SyncTime:      s.SyncTime(),
		Syncs:         s.clock.syncs.Snapshot(),
		Reserve:       s.Reserve,
	}
	if d, err := os.Open(filepath.Join(s.root, "packs")); err == nil {
		names, _ := d.Readdirnames(-1)
		d.Close()
		st.PackFiles = len(names)
	}
	st.Free, st.Total, st.SpaceKnown = fsSpace(s.root)
	return st
}
