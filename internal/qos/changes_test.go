package qos

import (
	"errors"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// TestStoreChanged: a reservation cancelled by another gateway (here:
// straight to the store) is seen at once once StoreChanged says so, and
// the Activator is asked to read the store again.
func TestStoreChanged(t *testing.T) {
	s, st, r := cachedReservation(t, &clock{t: t0})
	ctx := t.Context()
	kicked := 0
	s.OnChange(func() { kicked++ })
	if err := st.DeleteReservation(ctx, "a", r.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Active(ctx, "a", r.ID); err != nil {
		t.Fatalf("before StoreChanged the cached reservation answers (else the test shows nothing): %v", err)
	}
	s.StoreChanged()
	if _, err := s.Active(ctx, "a", r.ID); !errors.Is(err, meta.ErrNoSuchReservation) {
		t.Errorf("after StoreChanged: %v, want it gone", err)
	}
	if kicked != 1 {
		t.Errorf("the Activator was asked to read the store %d times, want 1", kicked)
	}
}

// cachedReservation returns a service on clk over a fresh store, and a
// reservation of bucket a active from t0 for an hour that Active has
// looked up (and cached).
func cachedReservation(t *testing.T, clk *clock) (*Reservations, meta.Store, meta.Reservation) {
	t.Helper()
	s, st := open(t, meta.Capacity{Read: 100, Write: 100}, clk)
	r, err := s.Create(t.Context(), window("a", 10, 10, 0, time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Active(t.Context(), "a", r.ID); err != nil {
		t.Fatal(err)
	}
	return s, st, r
}
