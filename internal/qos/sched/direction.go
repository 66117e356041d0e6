package sched

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of Config.
const (
	DefaultChunk           = 128 << 10
	DefaultBestEffortShare = 0.05
)

// Config configures one Direction.
type Config struct {
	// Capacity is what the direction can move, in bytes/s. ≤ 0 means
	// unknown: grants are not paced and only limits hold anyone back.
	Capacity float64
	// Chunk is the largest grant, in bytes (default DefaultChunk). A Wait
	// for more is granted chunk by chunk, so a large transfer never holds
	// a large grant and others interleave with it.
	Chunk int
	// Burst is how many bytes an idle client or an idle device may bank
	// (default: one chunk).
	Burst int
	// BestEffortShare is the fraction of Capacity the best-effort class as
	// a whole is guaranteed while it has demand, the starvation guard
	// (default DefaultBestEffortShare; negative disables it). Admission
	// control should keep the reserved total within
	// Capacity × (1 − BestEffortShare), or reservations and the guard
	// compete for the difference.
	BestEffortShare float64
	// BestEffortWeight is each best-effort principal's weight in sharing
	// the spare capacity (default 1).
	BestEffortWeight float64
	// Clock is the time source (default SystemClock).
	Clock Clock
}

// Spec is a reservation as the scheduler sees it: rates in bytes/s of this
// direction.
type Spec struct {
	// Rate is the guaranteed rate while the reservation has demand.
	Rate float64
	// Limit caps the reservation's total rate; 0 means no cap (it may use
	// any idle capacity).
	Limit float64
	// Weight is its share of the spare capacity relative to other clients
	// (0 means 1, the weight of a best-effort principal by default).
	Weight float64
	// Head, when > 0, makes the reservation cover only the first Head
	// units of each flow presenting it (one request's body: the Reader
	// and Writer count what they moved; each Flow.Wait starts anew); the
	// rest of the flow is best effort under its principal. A reservation
	// with a Head does not schedule the direction by itself: while only
	// such reservations are registered, flows are not paced, as with none.
	// Scheduler.Reserve gives a request-rate reservation's bytes one.
	Head int64
}

// ErrInvalidSpec is returned for a reservation Spec that makes no sense.
var ErrInvalidSpec = errors.New("sched: invalid reservation")

func (s *Spec) validate() error {
	if s.Weight == 0 {
		s.Weight = 1
	}
	switch {
	case !(s.Rate > 0) || math.IsInf(s.Rate, 0):
		return fmt.Errorf("%w: rate %v bytes/s", ErrInvalidSpec, s.Rate)
	case s.Limit != 0 && !(s.Limit >= s.Rate):
		return fmt.Errorf("%w: limit %v below rate %v", ErrInvalidSpec, s.Limit, s.Rate)
	case !(s.Weight > 0) || math.IsInf(s.Weight, 0):
		return fmt.Errorf("%w: weight %v", ErrInvalidSpec, s.Weight)
	case s.Head < 0:
		return fmt.Errorf("%w: head %v", ErrInvalidSpec, s.Head)
	}
	return nil
}

// Direction schedules one direction (reads or writes) of the data path.
//
// Design: there is no dispatcher goroutine. Tags are computed under one
// mutex by whoever changes the queue — a waiter enqueueing its chunk, a
// cancelled waiter leaving, a reservation being added or released — and by
// one timer callback armed for the next time a grant can happen (the device
// is paced at Capacity, so grants are due at known instants). A granted
// waiter is woken through its own buffered channel. This keeps the idle
// cost at zero (no goroutine, no ticking timer when nothing is queued), lets
// the core be a pure function of time that tests drive in virtual time, and
// the work per grant is a scan of the backlogged clients (a handful of
// reservations and principals; a heap would pay off only with hundreds).
//
// With no reservation registered (or only reservations with a Head) the
// direction is unscheduled: Flow.Wait is one atomic load and returns.
type Direction struct {
	active atomic.Int64 // registered reservations without a Head; 0 is the fast path
	chunk  int64
	clock  Clock
	epoch  time.Time

	mu      sync.Mutex
	c       *core
	timer   Timer
	timerAt float64
	timerN  uint64
	scratch []*request
}

// NewDirection returns a Direction with no reservation.
func NewDirection(cfg Config) *Direction {
	if cfg.Chunk <= 0 {
		cfg.Chunk = DefaultChunk
	}
	if cfg.Burst <= 0 {
		cfg.Burst = cfg.Chunk
	}
	switch {
	case cfg.BestEffortShare == 0:
		cfg.BestEffortShare = DefaultBestEffortShare
	case cfg.BestEffortShare < 0:
		cfg.BestEffortShare = 0
	}
	if cfg.BestEffortWeight <= 0 {
		cfg.BestEffortWeight = 1
	}
	if cfg.Clock == nil {
		cfg.Clock = SystemClock{}
	}
	return &Direction{
		chunk:   int64(cfg.Chunk),
		clock:   cfg.Clock,
		epoch:   cfg.Clock.Now(),
		c:       newCore(cfg.Capacity, float64(cfg.Burst), cfg.BestEffortShare, cfg.BestEffortWeight),
		timerAt: math.Inf(1),
	}
}

// Chunk is the largest grant in bytes.
func (d *Direction) Chunk() int { return int(d.chunk) }

// now is the time in seconds since the epoch.
func (d *Direction) now() float64 { return d.clock.Now().Sub(d.epoch).Seconds() }

// SetCapacity changes the capacity in bytes/s at runtime.
func (d *Direction) SetCapacity(bytesPerSec float64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.c.capacity = bytesPerSec
	d.runLocked(d.now())
}

// Reserve registers the reservation id, or updates its Spec. From the next
// chunk on, flows presenting id are scheduled as the reservation.
func (d *Direction) Reserve(id string, s Spec) error {
	if id == "" {
		return fmt.Errorf("%w: empty id", ErrInvalidSpec)
	}
	if err := s.validate(); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.scratch = d.c.reserve(id, s, d.scratch[:0])
	d.active.Store(int64(d.c.pacing))
	d.signal(d.scratch)
	d.runLocked(d.now())
	return nil
}

// Release ends the reservation id (cancelled or expired): its queued and
// future chunks are best effort under their principals. Releasing an
// unknown id does nothing.
func (d *Direction) Release(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.now()
	d.scratch = d.c.release(now, id, d.scratch[:0])
	d.active.Store(int64(d.c.pacing))
	d.signal(d.scratch)
	d.runLocked(now)
}

// Flow is what a request is charged to: a reservation it presented and the
// principal it falls back to as best effort. A Flow is a small value; the
// zero Flow is never scheduled.
type Flow struct {
	d         *Direction
	res       string
	principal string
}

// Flow returns the flow of a request presenting reservation ("" for none)
// on behalf of principal. Best-effort flows of different principals share
// the spare by weight; pass "" as principal for a single best-effort
// class. A reservation that is not (or no longer) registered makes the
// flow best effort.
func (d *Direction) Flow(reservation, principal string) Flow {
	return Flow{d: d, res: reservation, principal: principal}
}

// Scheduled reports whether any reservation is registered, i.e. whether
// Wait can block at all.
func (f Flow) Scheduled() bool { return f.d != nil && f.d.active.Load() != 0 }

// Wait blocks until the scheduler grants n bytes to the flow, chunk by
// chunk, or ctx is done; a cancelled waiter leaves the queue. With no
// reservation registered it returns at once, without locking or
// allocating. The n bytes are the start of the flow (Spec.Head).
func (f Flow) Wait(ctx context.Context, n int) error {
	if f.d == nil || f.d.active.Load() == 0 {
		return nil
	}
	return f.d.wait(ctx, f, 0, int64(n))
}

// wait is Wait's slow path for the n units of f that follow its first off
// (the Reader and Writer call it once Flow.Scheduled said so).
func (d *Direction) wait(ctx context.Context, f Flow, off, n int64) error {
	r := requests.Get().(*request)
	r.res, r.principal, r.off = f.res, f.principal, off
	defer func() {
		select { // a grant that raced with a cancel
		case <-r.ready:
		default:
		}
		*r = request{ready: r.ready}
		requests.Put(r)
	}()
	for n > 0 {
		k, err := d.waitChunk(ctx, r, min(n, d.chunk))
		if err != nil {
			return err
		}
		n -= k
		r.off += k
	}
	return nil
}

// requests recycles the waiting requests and their channels. A request goes
// back only when it is neither queued nor signalled.
var requests = sync.Pool{New: func() any { return &request{ready: make(chan struct{}, 1)} }}

// waitChunk waits for a grant of at most n units and returns how many it
// was: a chunk that starts within its reservation's Head ends there.
func (d *Direction) waitChunk(ctx context.Context, r *request, n int64) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	d.mu.Lock()
	if d.c.pacing == 0 {
		d.mu.Unlock()
		return n, nil
	}
	n = d.c.chunkFor(r, n)
	r.n = n
	now := d.now()
	d.c.enqueue(now, r)
	d.runLocked(now)
	d.mu.Unlock()
	select {
	case <-r.ready:
		return n, nil
	case <-ctx.Done():
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !r.granted {
		now := d.now()
		d.c.cancel(now, r)
		d.runLocked(now)
	}
	return 0, ctx.Err()
}

// runLocked grants what is due and arms the timer for the next grant.
func (d *Direction) runLocked(now float64) {
	var next float64
	d.scratch, next = d.c.dispatch(now, d.scratch[:0])
	d.signal(d.scratch)
	if math.IsInf(next, 1) || next >= d.timerAt {
		return
	}
	if d.timer != nil {
		d.timer.Stop()
	}
	d.timerN++
	n := d.timerN
	// Round up so the callback never runs before the grant is due.
	wait := time.Duration(math.Ceil((next - now) * 1e9))
	d.timerAt = next
	d.timer = d.clock.AfterFunc(wait, func() { d.fire(n) })
}

func (d *Direction) fire(n uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n == d.timerN {
		d.timer, d.timerAt = nil, math.Inf(1)
	}
	d.runLocked(d.now())
}

// signal wakes granted waiters and drops the references.
func (d *Direction) signal(granted []*request) {
	for i, r := range granted {
		r.ready <- struct{}{}
		granted[i] = nil
	}
}
