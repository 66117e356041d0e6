package sched

import (
	"context"
	"math"
	"testing"
	"time"
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

// TestWaited: a reservation whose chunks wait for the device accrues the
// virtual time they waited, one granted as it asks accrues none, and best
// effort's waits are counted apart.
func TestWaited(t *testing.T) {
	clk := newFakeClock()
	d := NewDirection(Config{Capacity: 1 * mb, Chunk: testChunk, Clock: clk})
	for _, id := range []string{"prompt", "busy"} {
		if err := d.Reserve(id, Spec{Rate: 0.4 * mb}); err != nil {
			t.Fatal(err)
		}
	}
	// The idle device banks one chunk: prompt's goes at once; from then on
	// every chunk waits for the device, and the clock moves only while one
	// waits, so a flow's virtual time is its wait.
	if took := pace(t, clk, d, d.Flow("prompt", "p"), testChunk); took != 0 {
		t.Fatalf("prompt's chunk took %v, want it granted at once", took)
	}
	busy := pace(t, clk, d, d.Flow("busy", "p"), 3*testChunk)
	be := pace(t, clk, d, d.Flow("", "q"), 2*testChunk)
	if busy == 0 || be == 0 {
		t.Fatalf("busy took %v, best effort %v: want both paced", busy, be)
	}
	near := func(got, want time.Duration) bool { return (got - want).Abs() <= time.Microsecond }
	g := d.Granted()
	if len(g.Reservations) != 2 || g.Reservations[1] != (ReservationGrant{ID: "prompt", Units: testChunk}) ||
		g.Reservations[0].ID != "busy" || g.Reservations[0].Units != 3*testChunk || !near(g.Reservations[0].Waited, busy) {
		t.Errorf("granted %+v, want busy %d units having waited %v and prompt %d having waited 0", g.Reservations, 3*testChunk, busy, testChunk)
	}
	if g.BestEffort != 2*testChunk || !near(g.BestEffortWaited, be) {
		t.Errorf("best effort granted %d having waited %v, want %d having waited %v", g.BestEffort, g.BestEffortWaited, 2*testChunk, be)
	}
}

// TestForfeited: a reservation that stops asking loses what it was owed
// meanwhile beyond one burst, and that is its forfeit; one that begins late
// or keeps asking forfeits nothing. Neither was held back: nothing
// unserved.
func TestForfeited(t *testing.T) {
	clk := newFakeClock()
	const rate = 1 * mb
	d := NewDirection(Config{Capacity: 100 * mb, Chunk: testChunk, Clock: clk})
	for _, id := range []string{"idle", "steady"} {
		if err := d.Reserve(id, Spec{Rate: rate}); err != nil {
			t.Fatal(err)
		}
	}
	clk.Advance(time.Second) // neither has begun: nothing forfeited
	idle, steady := d.Flow("idle", "p"), d.Flow("steady", "p")
	pace(t, clk, d, steady, 4*testChunk)
	first := clk.Now()
	pace(t, clk, d, idle, testChunk)
	clk.Advance(time.Second)
	again := clk.Now()
	pace(t, clk, d, idle, testChunk)
	// idle's first activation and chunk took its tag to one chunk (at its
	// rate) past the time it first asked less its window; when it asks
	// again the tag may lag the clock by that window only.
	want := uint64(again.Sub(first).Seconds()*rate - testChunk)
	g := d.Granted()
	if len(g.Reservations) != 2 || g.Reservations[0].ID != "idle" || g.Reservations[1].ID != "steady" {
		t.Fatalf("reservations %+v", g.Reservations)
	}
	if got := g.Reservations[0].Forfeited; got < want-1 || got > want+1 {
		t.Errorf("idle forfeited %d, want %d", got, want)
	}
	if got := g.Reservations[1].Forfeited; got != 0 {
		t.Errorf("steady forfeited %d, want 0", got)
	}
	for _, r := range g.Reservations {
		if r.Unserved != 0 {
			t.Errorf("%s unserved %d, want 0", r.ID, r.Unserved)
		}
	}
}

// TestUnserved: a reservation the device cannot serve (its capacity cut
// below the rate) falls behind while it asks; what it was owed when its
// queue emptied is unserved, not forfeited, and the idle second after it
// is forfeited.
func TestUnserved(t *testing.T) {
	clk := newFakeClock()
	const rate = 0.8 * mb
	d := NewDirection(Config{Capacity: 1 * mb, Chunk: testChunk, Clock: clk})
	if err := d.Reserve("held", Spec{Rate: rate}); err != nil {
		t.Fatal(err)
	}
	d.SetCapacity(0.4 * mb)
	f := d.Flow("held", "p")
	start := clk.Now()
	pace(t, clk, d, f, 20*testChunk)
	idle := clk.Now()
	clk.Advance(time.Second)
	pace(t, clk, d, f, testChunk)
	// At idle it had been owed rate × (idle − start), granted 20 chunks;
	// beyond its window that is unserved.
	owed := idle.Sub(start).Seconds()*rate - 20*testChunk - window(rate)
	g := d.Granted().Reservations[0]
	near := func(got uint64, want float64) bool { return math.Abs(float64(got)-want) <= 0.02*testChunk }
	if !near(g.Unserved, owed) {
		t.Errorf("unserved %d, want %.0f", g.Unserved, owed)
	}
	if !near(g.Forfeited, rate) {
		t.Errorf("forfeited %d, want %.0f (the idle second)", g.Forfeited, float64(rate))
	}
}

// window is what a reservation of rate keeps owed across a pause, in
// units, with testChunk as the burst.
func window(rate float64) float64 { return math.Max(testChunk, reserveWindow*rate) }
