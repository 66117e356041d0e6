package sched

import (
	"context"
	"testing"
)

// TestGranted: what a reservation's flows and best-effort flows are
// granted adds up per reservation and for best effort.
func TestGranted(t *testing.T) {
	d := NewDirection(Config{Capacity: 1 << 30, Chunk: 1 << 10})
	if err := d.Reserve("r1", Spec{Rate: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := d.Flow("r1", "alice").Wait(ctx, 5000); err != nil {
		t.Fatal(err)
	}
	if err := d.Flow("", "bob").Wait(ctx, 3000); err != nil {
		t.Fatal(err)
	}
	g := d.Granted()
	if len(g.Reservations) != 1 || g.Reservations[0] != (ReservationGrant{ID: "r1", Units: 5000}) || g.BestEffort != 3000 {
		t.Errorf("granted %+v, want r1 5000 and best effort 3000", g)
	}
	d.Release("r1")
	if g := d.Granted(); len(g.Reservations) != 0 {
		t.Errorf("after release: %+v, want no reservation", g)
	}
}
