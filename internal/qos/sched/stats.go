package sched

import (
	"slices"
	"time"
)

// Granted is what a direction has granted, in its unit (bytes, or
// requests for the request direction), while scheduled, and how long the
// granted requests waited for it: with no reservation registered nothing
// waits and nothing is counted.
//
// A request's wait runs from its ask (a chunk of a Wait, enqueued) to its
// grant, in the scheduler's clock; a request granted as it asks waited 0.
// A reservation paced at its rate waits too; why one falls short of it is
// ReservationGrant's Forfeited and Unserved.
type Granted struct {
	// Reservations holds each registered reservation's totals since it
	// was registered, by ID, sorted.
	Reservations []ReservationGrant
	// BestEffort is the total granted to best-effort flows.
	BestEffort uint64
	// BestEffortWaited is how long best-effort requests waited in total
	// (concurrent waits add up).
	BestEffortWaited time.Duration
}

// ReservationGrant is one reservation's totals.
type ReservationGrant struct {
	ID    string
	Units uint64
	// Waited is how long its granted requests waited for their grants in
	// total (concurrent waits add up).
	Waited time.Duration
	// Forfeited is how much of its rate it did not ask for in time: units
	// it came to be owed while none of its requests was queued, lost when
	// it asked again (mClock's idle rule). A reservation short by about
	// this much was not held back by the scheduler.
	Forfeited uint64
	// Unserved is what it was owed beyond its window (a burst, or 100 ms
	// of its rate) while it asked, lost
	// the same way when its queue emptied: the scheduler held it back
	// (the device granted less than its capacity, or reservations sum to
	// more).
	Unserved uint64
}

// Granted reads the totals, for metrics: a scrape's work, under the
// direction's lock for as long as it takes to copy a handful of numbers.
func (d *Direction) Granted() Granted {
	d.mu.Lock()
	g := Granted{BestEffort: d.c.beGranted, BestEffortWaited: d.c.beWaited}
	for k, cl := range d.c.clients {
		if k.reserved {
			g.Reservations = append(g.Reservations, ReservationGrant{ID: k.name, Units: cl.granted, Waited: cl.waited, Forfeited: uint64(cl.forfeited), Unserved: uint64(cl.unserved)})
		}
	}
	d.mu.Unlock()
	slices.SortFunc(g.Reservations, func(a, b ReservationGrant) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return g
}
