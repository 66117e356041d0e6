package qos

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/qos/sched"
)

func TestReservable(t *testing.T) {
	got := Reservable(meta.Capacity{Read: 300_000_000, Write: 150_000_000, Requests: 2000})
	if want := (meta.Capacity{Read: 285_000_000, Write: 142_500_000, Requests: 1900}); got != want {
		t.Errorf("Reservable = %+v, want %+v (5%% left to best effort)", got, want)
	}
}

// openActivator returns a reservation service over a fresh store with
// buckets a and b, a scheduler and an activator keeping it in step, all
// at 1000 B/s and 100 requests/s and on clk.
func openActivator(t *testing.T, clk *clock) (*Reservations, *sched.Scheduler, *Activator) {
	t.Helper()
	svc, st := open(t, meta.Capacity{Read: 1000, Write: 1000, Requests: 100}, clk)
	s := sched.New(sched.Config{}, sched.Capacities{Read: 1000, Write: 1000, Requests: 100})
	a := NewActivator(st, s, clk.now, slog.New(slog.DiscardHandler))
	svc.OnChange(a.Changed)
	return svc, s, a
}

// TestActivator: reservations are registered in the scheduler in the
// directions they reserve from their start to their end, to the second,
// and released when cancelled; Sync names the next boundary.
func TestActivator(t *testing.T) {
	clk := &clock{t: t0}
	svc, s, a := openActivator(t, clk)
	readOnly, err := svc.Create(t.Context(), window("a", 100, 0, time.Second, 3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	writeOnly, err := svc.Create(t.Context(), window("b", 0, 100, 0, time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	read, write := s.Read.Flow("", ""), s.Write.Flow("", "")
	step := func(at time.Duration, wantIDs []string, wantRead, wantWrite bool, wantNext time.Duration) {
		t.Helper()
		clk.set(t0.Add(at))
		next, err := a.Sync(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		ids := a.Active()
		slices.Sort(ids)
		slices.Sort(wantIDs)
		if !slices.Equal(ids, wantIDs) {
			t.Errorf("at %v: active %q, want %q", at, ids, wantIDs)
		}
		if read.Scheduled() != wantRead || write.Scheduled() != wantWrite {
			t.Errorf("at %v: read scheduled %v, write %v; want %v, %v", at, read.Scheduled(), write.Scheduled(), wantRead, wantWrite)
		}
		if want := t0.Add(wantNext); wantNext == 0 && !next.IsZero() || wantNext != 0 && !next.Equal(want) {
			t.Errorf("at %v: next boundary %v, want %v", at, next, want)
		}
	}
	step(0, []string{writeOnly.ID}, false, true, time.Second)
	step(999*time.Millisecond, []string{writeOnly.ID}, false, true, time.Second)
	step(time.Second, []string{readOnly.ID, writeOnly.ID}, true, true, 3*time.Second)
	step(3*time.Second-time.Millisecond, []string{readOnly.ID, writeOnly.ID}, true, true, 3*time.Second)
	step(3*time.Second, []string{writeOnly.ID}, false, true, time.Hour)

	select { // creations kicked the activator
	case <-a.kick:
	default:
		t.Error("Create did not call Changed")
	}
	if err := svc.Delete(t.Context(), "b", writeOnly.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.kick:
	default:
		t.Error("Delete did not call Changed")
	}
	step(4*time.Second, []string{}, false, false, 0)
}

// TestActivatorRequests: a request-rate reservation is registered in the
// request direction alone when it reserves no bytes, and in every
// direction it reserves otherwise.
func TestActivatorRequests(t *testing.T) {
	clk := &clock{t: t0}
	svc, s, a := openActivator(t, clk)
	requestsOnly := window("a", 0, 0, 0, time.Hour)
	requestsOnly.RequestsPerSecond = 50
	r, err := svc.Create(t.Context(), requestsOnly)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	scheduled := func() [3]bool {
		return [3]bool{s.Read.Flow("", "").Scheduled(), s.Write.Flow("", "").Scheduled(), s.Requests.Flow("", "").Scheduled()}
	}
	if got := scheduled(); got != [3]bool{false, false, true} {
		t.Errorf("a reservation of 50 requests/s: read, write, requests scheduled %v; want only requests", got)
	}
	both := window("b", 100, 0, 0, time.Hour)
	both.RequestsPerSecond = 45 // 95 of the 95 reservable
	if _, err := svc.Create(t.Context(), both); err != nil {
		t.Fatal(err)
	}
	if err := svc.Delete(t.Context(), "a", r.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := scheduled(); got != [3]bool{true, false, true} {
		t.Errorf("a reservation of reads and requests: read, write, requests scheduled %v; want read and requests", got)
	}
}

// TestActivatorRun: the running activator registers a reservation once it
// is created and releases it once it is cancelled (Changed wakes it; the
// poll would too, within a second), and Run returns when its context ends.
func TestActivatorRun(t *testing.T) {
	clk := &clock{t: t0}
	svc, s, a := openActivator(t, clk)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.Run(ctx)
	}()
	until := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("never %s", what)
			}
		}
	}
	r, err := svc.Create(t.Context(), window("a", 100, 0, 0, time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	flow := s.Read.Flow(r.ID, "")
	until("registered", flow.Scheduled)
	if err := svc.Delete(t.Context(), "a", r.ID); err != nil {
		t.Fatal(err)
	}
	until("released", func() bool { return !flow.Scheduled() })
	cancel()
	<-done
}

// TestBoundHint: while no reservation bound to a principal is active,
// Bound answers "none" from the activator's flag without a lookup (here:
// one made straight in the store is not seen); once Sync has registered
// one it is found, and after its window the flag is down again.
func TestBoundHint(t *testing.T) {
	clk := &clock{t: t0}
	svc, _, a := openActivator(t, clk)
	svc.BoundHint(a.AnyBound)
	ctx := t.Context()
	const alice = "arn:aws:iam::1:user/alice"
	if _, err := svc.Create(ctx, window("a", 10, 0, 0, time.Hour)); err != nil { // bound to nobody
		t.Fatal(err)
	}
	if _, err := a.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if a.AnyBound() {
		t.Fatal("AnyBound with only an unbound reservation active")
	}
	r := window("a", 20, 0, 0, time.Minute)
	r.Principal, r.ID, r.CreatedAt = alice, "bound1", t0
	if err := svc.store.CreateReservation(ctx, r, meta.Capacity{Read: 1000, Write: 1000}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := svc.Bound(ctx, "a", alice); ok || err != nil {
		t.Errorf("before Sync: Bound = %v, %v; want none (the flag is down)", ok, err)
	}
	if _, err := a.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := svc.Bound(ctx, "a", alice); !ok || err != nil || got.ID != "bound1" {
		t.Errorf("after Sync: Bound = %+v, %v, %v; want bound1", got, ok, err)
	}
	clk.set(t0.Add(time.Minute))
	if _, err := a.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if a.AnyBound() {
		t.Error("AnyBound after the bound reservation's window")
	}
}
