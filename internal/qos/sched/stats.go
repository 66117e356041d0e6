package sched

import "slices"

// Granted is what a direction has granted, in its unit (bytes, or
// requests for the request direction), while scheduled: with no
// reservation registered nothing waits and nothing is counted.
type Granted struct {
	// Reservations holds each registered reservation's total since it
	// was registered, by ID, sorted.
	Reservations []ReservationGrant
	// BestEffort is the total granted to best-effort flows.
	BestEffort uint64
}

// ReservationGrant is one reservation's total.
type ReservationGrant struct {
	ID    string
	Units uint64
}

// Granted reads the totals, for metrics: a scrape's work, under the
// direction's lock for as long as it takes to copy a handful of numbers.
func (d *Direction) Granted() Granted {
	d.mu.Lock()
	g := Granted{BestEffort: d.c.beGranted}
	for k, cl := range d.c.clients {
		if k.reserved {
			g.Reservations = append(g.Reservations, ReservationGrant{ID: k.name, Units: cl.granted})
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
