package disk

import (
	"sync/atomic"
	"time"

	"github.com/jogstore/jog/internal/hist"
)

// syncClock adds up the time spent inside fsync, fdatasync and
// sync_file_range calls. A goroutine in such a call keeps its P (its right
// to run Go code) until the runtime hands it off; the server reads the
// total to decide whether to run with a spare P (ADR 0008).
type syncClock struct {
	ns    atomic.Int64
	syncs hist.Log2 // latency of each fsync / fdatasync (sync), ns
}

// time runs fn, a call that flushes to disk, and adds its duration.
func (c *syncClock) time(fn func() error) error {
	start := time.Now()
	err := fn()
	c.ns.Add(int64(time.Since(start)))
	return err
}

// sync is time for a call that waits for stable storage (fsync,
// fdatasync), whose latency it also records for Stats.
func (c *syncClock) sync(fn func() error) error {
	start := time.Now()
	err := fn()
	d := int64(time.Since(start))
	c.ns.Add(d)
	c.syncs.Observe(d)
	return err
}

// SyncTime is the time the store has spent in calls that flush blob data
// (fsync, fdatasync, sync_file_range) since it opened, summed over the
// calls (which may overlap).
func (s *Store) SyncTime() time.Duration { return time.Duration(s.clock.ns.Load()) }
