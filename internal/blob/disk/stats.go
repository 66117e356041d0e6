package disk

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/jogstore/jog/internal/hist"
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

// Stats is what the store has done since it opened and the state of its
// file system, for metrics (internal/metrics reads it at scrape time).
type Stats struct {
	FilesWritten  uint64 // blobs committed as files of their own
	PackedWritten uint64 // blobs committed as records in pack files
	BytesWritten  uint64 // bytes of the blobs committed
	Deleted       uint64 // blobs deleted
	// SyncTime is the time spent in flushing calls (SyncTime); Syncs the
	// latency of each fsync and fdatasync of blob data, a pack's group
	// sync or a directory, in nanoseconds.
	SyncTime time.Duration
	Syncs    hist.Snapshot
	// PackFiles is the number of pack files in the data dir (all
	// gateways').
	PackFiles int
	// Free and Total are the file system's bytes available to the store
	// and its size; SpaceKnown is false where the platform cannot tell.
	Free, Total int64
	SpaceKnown  bool
	// Reserve is the free space blob writes leave (Store.Reserve).
	Reserve int64
}

// Stats reads the store's counters, lists the pack directory and asks the
// file system for its free space: a scrape's work, none of it on the
// write path.
func (s *Store) Stats() Stats {
	st := Stats{
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
