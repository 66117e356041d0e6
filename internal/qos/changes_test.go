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
	clk := &clock{t: t0}
	s, st := open(t, meta.Capacity{Read: 100, Write: 100}, clk)
	ctx := t.Context()
	r, err := s.Create(ctx, window("a", 10, 10, 0, time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Active(ctx, "a", r.ID); err != nil {
		t.Fatal(err)
	}
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
