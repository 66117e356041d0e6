package outage

import (
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Interval is the least time between two lines of one outage.
const Interval = 30 * time.Second

// Tracker follows one dependency's outages. Its methods are safe for
// concurrent use; OK costs one atomic load while nothing is down.
type Tracker struct {
	log   *slog.Logger
	what  string // the dependency, as the log names it
	every time.Duration

	down     atomic.Bool
	mu       sync.Mutex
	since    time.Time // the outage's first failure
	lastLine time.Time
	failures int // of this outage
	unlogged int // failures since the last line
}

// New returns a Tracker logging to log about what ("metadata store"),
// at most one line per every during an outage (0: Interval).
func New(log *slog.Logger, what string, every time.Duration) *Tracker {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if every <= 0 {
		every = Interval
	}
	return &Tracker{log: log, what: what, every: every}
}

// Failed records a failure to reach the dependency.
func (t *Tracker) Failed(err error) {
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failures++
	if !t.down.Load() {
		t.down.Store(true)
		t.since, t.lastLine, t.unlogged = now, now, 0
		t.log.Warn(t.what+" unreachable: requests that need it are answered 503 ServiceUnavailable until it answers again",
			"err", OneLine(err))
		return
	}
	t.unlogged++
	if now.Sub(t.lastLine) >= t.every {
		t.log.Warn(t.what+" still unreachable", "more", t.unlogged, "down_for", now.Sub(t.since).Round(time.Second),
			"err", OneLine(err))
		t.lastLine, t.unlogged = now, 0
	}
}

// OK records an answer from the dependency: the end of the outage, if
// one was going on.
func (t *Tracker) OK() {
	if !t.down.Load() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.down.Load() { // another caller ended it
		return
	}
	t.down.Store(false)
	t.log.Info(t.what+" answering again: serving again", "down_for", time.Since(t.since).Round(time.Millisecond),
		"failures", t.failures)
	t.failures = 0
}

// Down reports whether an outage is going on.
func (t *Tracker) Down() bool { return t.down.Load() }

// OneLine is err's text on one line: its line breaks (and the
// indentation after them) become "; ".
func OneLine(err error) string {
	if err == nil {
		return ""
	}
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "; ")
}
