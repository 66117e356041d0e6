package worker

import (
	"sync"
	"time"
)

// Stats is what the worker's passes have done since it started, for
// metrics (internal/metrics reads it at scrape time).
type Stats struct {
	Passes int // passes ended (done, failed or stopped)
	Failed int // of them, passes that returned an error
	// The sums of the passes' Reports.
	Scanned, Expired, Aborted, Noncurrent, Markers int
	// LastDuration is how long the last pass took; LastEnd when it ended
	// (zero before the first).
	LastDuration time.Duration
	LastEnd      time.Time
}

// stats accumulates Stats under a mutex: once per pass.
type stats struct {
	mu sync.Mutex
	s  Stats
}

func (t *stats) add(rep Report, err error, took time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.s.Passes++
	if err != nil {
		t.s.Failed++
	}
	t.s.Scanned += rep.Scanned
	t.s.Expired += rep.Expired
	t.s.Aborted += rep.Aborted
	t.s.Noncurrent += rep.Noncurrent
	t.s.Markers += rep.Markers
	t.s.LastDuration = took
	t.s.LastEnd = time.Now()
}

// Stats returns the totals of the passes Run has made.
func (w *Worker) Stats() Stats {
	w.stats.mu.Lock()
	defer w.stats.mu.Unlock()
	return w.stats.s
}
