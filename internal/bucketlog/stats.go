package bucketlog

import (
	"sync/atomic"
	"time"
)

// Drop is why records were dropped rather than delivered.
type Drop int

// The reasons records are dropped; dropNames names them (the metric's
// reason label).
const (
	DropMemory     Drop = iota // the spool's disk could not take them fast enough
	DropSpoolFull              // the spool was at --bucket-log-spool-max
	DropEvicted                // held for a failing target, the oldest past half the bound
	DropTargetGone             // the target bucket no longer exists
	DropNoConsent              // the target does not take them (service.Service.LogDeliveryAllowed)
	DropConfigGone             // the source bucket's logging no longer names the target
	numDrops
)

var dropNames = [numDrops]string{
	DropMemory: "memory", DropSpoolFull: "spool_full", DropEvicted: "evicted",
	DropTargetGone: "target_gone", DropNoConsent: "no_consent", DropConfigGone: "config_gone",
}

func (r Drop) String() string { return dropNames[r] }

// counters are a spool's and its delivery's, read by Stats.
type counters struct {
	dropped  [numDrops]atomic.Uint64
	objects  atomic.Uint64 // log objects written
	failures atomic.Uint64 // failed attempts to write a target's records
	waiting  atomic.Int64  // targets whose records wait after a failure
}

// Stats are the counters of a gateway's server access log spool and
// delivery since the process started, for /metrics.
type Stats struct {
	// SpoolBytes is the bytes of records on this gateway's disk: the
	// current file and those awaiting delivery (bounded by
	// --bucket-log-spool-max).
	SpoolBytes int64
	// Dropped counts the records dropped, by reason (Drop.String).
	Dropped map[string]uint64
	// Objects counts the log objects written into target buckets.
	Objects uint64
	// Failures counts failed attempts to write a target's records
	// (each is retried later; its records wait meanwhile).
	Failures uint64
	// Waiting is the number of targets whose records wait after a
	// failure.
	Waiting int
}

// Stats returns the spool's and its delivery's counters.
func (s *Spool) Stats() Stats {
	st := Stats{SpoolBytes: s.Bytes(), Dropped: make(map[string]uint64, numDrops),
		Objects: s.count.objects.Load(), Failures: s.count.failures.Load(), Waiting: int(s.count.waiting.Load())}
	for r := range numDrops {
		st.Dropped[r.String()] = s.count.dropped[r].Load()
	}
	st.Dropped[DropMemory.String()] += uint64(s.w.Dropped())
	return st
}

// logEvery is the longest a kind of drop goes unlogged while it goes on.
const logEvery = time.Hour

// limiter lets a warning through once per logEvery per key, with the
// count of what happened since the last one.
type limiter struct {
	last    map[string]time.Time
	pending map[string]uint64
}

// note adds n under key and reports whether to log now, with the count
// since the last log.
func (l *limiter) note(key string, n uint64, now time.Time) (uint64, bool) {
	if l.last == nil || len(l.last) > 1024 { // bounded: forgetting costs a line
		l.last, l.pending = map[string]time.Time{}, map[string]uint64{}
	}
	l.pending[key] += n
	if t, ok := l.last[key]; ok && now.Sub(t) < logEvery {
		return 0, false
	}
	total := l.pending[key]
	l.last[key], l.pending[key] = now, 0
	return total, true
}
