package blob

import (
	"time"

	"github.com/jogstore/jog/internal/hist"
)

// StatsReporter is a Store that reports what it has done and the state of
// its file system, for metrics: internal/metrics finds it by type
// assertion and reads Stats at scrape time (jog_blob_*, jog_disk_*), so a
// Store that implements it has those metrics without internal/metrics
// naming it.
type StatsReporter interface {
	// Stats is a scrape's work (a directory listing, a statfs), none of it
	// on the write path; the counters are what the write path adds to.
	Stats() Stats
}

// Stats is what a Store has done since it opened and the state of its
// file system. A field a Store cannot tell stays zero.
type Stats struct {
	FilesWritten  uint64 // blobs committed as files of their own
	PackedWritten uint64 // blobs committed as records in pack files
	BytesWritten  uint64 // bytes of the blobs committed
	Deleted       uint64 // blobs deleted (or moved to a shared store's trash)
	// SyncTime is the time spent in calls that flush blob data; Syncs the
	// latency of each fsync and fdatasync of blob data, a pack's group
	// sync or a directory, in nanoseconds.
	SyncTime time.Duration
	Syncs    hist.Snapshot
	// PackFiles is the number of pack files in the store (all gateways').
	PackFiles int
	// Free and Total are the file system's bytes available to the store
	// and its size; SpaceKnown is false where the platform cannot tell.
	Free, Total int64
	SpaceKnown  bool
	// Reserve is the free space blob writes leave (past it they fail with
	// ErrNoSpace).
	Reserve int64
}
