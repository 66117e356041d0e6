package delivery

import (
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/jogstore/jog/internal/bucketrepl"
	"github.com/jogstore/jog/internal/cp"
)

// target is one configured target's client and counters.
type target struct {
	name     string
	client   *cp.Client
	log      *slog.Logger
	attempts int

	mu sync.Mutex
	// pending and pendingBytes count tasks queued on this gateway and not
	// yet done (adopted tasks are counted when they are done only: the
	// counts never go below zero).
	pending, pendingBytes int64
	sent, sentBytes       uint64                  // versions (and bytes) the target took
	deletes               uint64                  // version deletes and delete markers sent
	skipped               uint64                  // tasks whose version was gone or no longer PENDING
	failed                uint64                  // versions marked FAILED
	failures              uint64                  // failed attempts
	heads                 [bucketrepl.Lanes]int64 // Queued of each lane's task in hand, 0 when idle
	failing               [bucketrepl.Lanes]bool
	down                  time.Time // since when the target fails; zero when it answers
	lag                   lagHistogram
}

// LagBuckets are the upper bounds, in seconds, of the lag histogram's
// buckets (TargetStats.Lag).
var LagBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 3600}

// lagHistogram counts lags by LagBuckets (not cumulative; one more for
// the lags past the last bound).
type lagHistogram struct {
	counts [20]uint64
	sum    float64
}

func (h *lagHistogram) observe(d time.Duration) {
	s := d.Seconds()
	i, _ := slices.BinarySearch(LagBuckets, s)
	h.counts[i]++
	h.sum += s
}

func (t *target) queued(size int64) {
	t.mu.Lock()
	t.pending++
	t.pendingBytes += size
	t.mu.Unlock()
}

// done takes a task off the pending counts (one that could not be queued).
func (t *target) done(size int64) {
	t.mu.Lock()
	t.pending = max(t.pending-1, 0)
	t.pendingBytes = max(t.pendingBytes-size, 0)
	t.mu.Unlock()
}

// begin records that lane holds a task queued at queued (Unix ns).
func (t *target) begin(lane int, queued int64) {
	t.mu.Lock()
	t.heads[lane] = max(queued, 1)
	t.mu.Unlock()
}

// end records the end of lane's task: its outcome (nil: done) and, for a
// version the target took, its bytes and lag.
func (t *target) end(lane int, task bucketrepl.Task, outcome string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.heads[lane] = 0
	t.pending = max(t.pending-1, 0)
	t.pendingBytes = max(t.pendingBytes-task.Size, 0)
	switch outcome {
	case outcomeSent:
		t.sent++
		t.sentBytes += uint64(task.Size)
	case outcomeDeleted:
		t.deletes++
	case outcomeSkipped:
		t.skipped++
	case outcomeFailed:
		t.failed++
	}
	if (outcome == outcomeSent || outcome == outcomeDeleted) && task.Queued > 0 {
		t.lag.observe(time.Since(time.Unix(0, task.Queued)))
	}
	t.answered(lane)
}

// attemptFailed records a failed attempt of lane's task; the first failing
// lane of a target that answered logs one line: the target is down.
func (t *target) attemptFailed(lane int, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failures++
	t.failing[lane] = true
	if t.down.IsZero() {
		t.down = time.Now()
		t.log.Warn("replication target down: retrying with backoff", "target", t.name, "err", err)
	}
}

// answered records that lane's target answered (t.mu held); the last
// failing lane to recover logs one line: the target is back.
func (t *target) answered(lane int) {
	t.failing[lane] = false
	if t.down.IsZero() || slices.Contains(t.failing[:], true) {
		return
	}
	t.log.Info("replication target recovered", "target", t.name, "down_for", time.Since(t.down).Round(time.Millisecond))
	t.down = time.Time{}
}

// TargetStats are one target's counters since this gateway started.
type TargetStats struct {
	Name                  string
	Pending, PendingBytes int64
	// Oldest is the age of the oldest task in hand (the lag), 0 when
	// every lane is idle.
	Oldest           time.Duration
	Sent, SentBytes  uint64
	Deletes, Skipped uint64
	Failed, Failures uint64
	Down             bool
	// Lag counts the versions and delete markers sent by the time from
	// their queueing to the target's answer: cumulative counts per bound
	// of LagBuckets, then the total; LagSum is the seconds in all.
	Lag    []uint64
	LagSum float64
}

// Stats returns each target's counters now, in flag order.
func (rq *Queue) Stats() []TargetStats {
	out := make([]TargetStats, 0, len(rq.names))
	for _, name := range rq.names {
		out = append(out, rq.targets[name].stats())
	}
	return out
}

func (t *target) stats() TargetStats {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := TargetStats{Name: t.name, Pending: t.pending, PendingBytes: t.pendingBytes, Sent: t.sent, SentBytes: t.sentBytes,
		Deletes: t.deletes, Skipped: t.skipped, Failed: t.failed, Failures: t.failures, Down: !t.down.IsZero()}
	now := time.Now().UnixNano()
	for _, h := range t.heads {
		if h > 0 {
			s.Oldest = max(s.Oldest, time.Duration(now-h))
		}
	}
	s.Lag, s.LagSum = make([]uint64, len(t.lag.counts)), t.lag.sum
	var sum uint64
	for i, c := range t.lag.counts {
		sum += c
		s.Lag[i] = sum
	}
	return s
}
