package qos

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/qos/sched"
)

// Reservable is what admission control may let reservations sum to: the
// capacity less the scheduler's best-effort guard
// (sched.DefaultBestEffortShare, 5%), in every direction (bytes and
// requests alike), so that every reservation gets at least its rate while
// best effort keeps its guaranteed share. Admitting more would make
// reservations and the guard all run a little below their rates
// (docs/QOS.md).
func Reservable(c meta.Capacity) meta.Capacity {
	f := 1 - sched.DefaultBestEffortShare
	part := func(v int64) int64 { return int64(float64(v) * f) }
	return meta.Capacity{Read: part(c.Read), Write: part(c.Write), Requests: part(c.Requests)}
}

// PollInterval is how often the Activator reads the store even when
// nothing changed here: it bounds how long a reservation created or
// cancelled through another gateway sharing the store takes to apply when
// the store does not announce it (Reservations.StoreChanged, which calls
// Changed).
// Windows starting or ending are not polled for: a timer fires at the
// next boundary, to the second.
const PollInterval = time.Second

// Activator keeps the data path's scheduler in step with the reservations
// whose window contains now: it registers each (sched Direction.Reserve,
// in the directions it reserves) at its start and releases it at its end
// or when it is cancelled. It reads the store on start-up, after every
// creation or cancellation on this gateway (Reservations.OnChange), at
// every window boundary and every PollInterval.
type Activator struct {
	store meta.ReservationStore
	sched *sched.Scheduler
	now   func() time.Time
	log   *slog.Logger
	kick  chan struct{}

	mu     sync.Mutex
	active map[string]meta.Reservation // registered in the scheduler

	// bound is set while a reservation bound to a principal is active:
	// without one, no request needs Reservations.Bound's lookup.
	bound atomic.Bool
}

// AnyBound reports whether a reservation bound to a principal is active
// (as of the last Sync: a bound reservation made through another gateway
// applies here within PollInterval, as its scheduling does).
func (a *Activator) AnyBound() bool { return a.bound.Load() }

// NewActivator returns an Activator over store for s; now is the clock
// (time.Now when nil).
func NewActivator(store meta.ReservationStore, s *sched.Scheduler, now func() time.Time, log *slog.Logger) *Activator {
	if now == nil {
		now = time.Now
	}
	return &Activator{store: store, sched: s, now: now, log: log,
		kick: make(chan struct{}, 1), active: map[string]meta.Reservation{}}
}

// Changed asks Run to read the store again now (a reservation was created
// or cancelled). It never blocks.
func (a *Activator) Changed() {
	select {
	case a.kick <- struct{}{}:
	default:
	}
}

// Run syncs until ctx is done.
func (a *Activator) Run(ctx context.Context) {
	for {
		next, err := a.Sync(ctx)
		switch {
		case err == nil || ctx.Err() != nil:
		case errors.Is(err, meta.ErrUnavailable): // the store logs its outage, not a line per poll
			a.log.Debug("reservations: activating in the scheduler", "err", err)
		default:
			a.log.Warn("reservations: activating in the scheduler", "err", err)
		}
		wait := PollInterval
		if !next.IsZero() {
			wait = min(wait, max(next.Sub(a.now()), 0))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-a.kick:
		case <-t.C:
		}
		t.Stop()
	}
}

// Sync registers the reservations active now and releases those no longer
// active, and returns the next instant one of the reservations near now
// (those overlapping the next two PollIntervals) starts or ends (zero if
// none).
func (a *Activator) Sync(ctx context.Context) (time.Time, error) {
	now := a.now()
	rs, err := a.store.ReservationsBetween(ctx, now.Add(-time.Second), now.Add(2*PollInterval))
	if err != nil {
		return time.Time{}, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var next time.Time
	soonest := func(t time.Time) {
		if t.After(now) && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	current := make(map[string]bool, len(rs))
	bound := false
	for _, r := range rs {
		soonest(r.Start)
		soonest(r.End)
		if StateAt(r, now) != Active {
			continue
		}
		current[r.ID] = true
		bound = bound || r.Principal != ""
		if _, ok := a.active[r.ID]; ok {
			continue
		}
		if err := a.reserve(r); err != nil {
			a.log.Warn("reservations: not scheduled", "reservation", r.ID, "err", err)
			continue
		}
		a.active[r.ID] = r
		a.log.Debug("reservation active", "reservation", r.ID, "bucket", r.Bucket, "read", r.ReadBPS, "write", r.WriteBPS,
			"requests", r.RequestsPerSecond)
	}
	a.bound.Store(bound)
	for id := range a.active {
		if !current[id] {
			a.sched.Release(id)
			delete(a.active, id)
			a.log.Debug("reservation ended", "reservation", id)
		}
	}
	return next, nil
}

// reserve registers r in the directions it reserves
// (sched.Scheduler.Reserve: a request rate also reserves
// sched.RequestBytes of each request's body in the byte directions). A
// reservation has no Limit (it may use any idle capacity) and weight 1.
// Request rates are registered in the request direction, which the
// scheduler has when the server has a request capacity (admission refuses
// them otherwise).
func (a *Activator) reserve(r meta.Reservation) error {
	return a.sched.Reserve(r.ID, sched.Rates{Read: float64(r.ReadBPS), Write: float64(r.WriteBPS),
		Requests: float64(r.RequestsPerSecond)})
}

// Active returns the IDs registered in the scheduler now.
func (a *Activator) Active() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	ids := make([]string, 0, len(a.active))
	for id := range a.active {
		ids = append(ids, id)
	}
	return ids
}
