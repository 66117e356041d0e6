package bench

import (
	"context"
	"math"
	"testing"
	"time"
)

// fakeClock advances only when slept on or told to.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) Sleep(_ context.Context, d time.Duration) error {
	c.now = c.now.Add(d)
	return nil
}

// drive runs one simulated worker through n requests that each take
// service, and returns the simulated elapsed time.
func drive(t *testing.T, s *Schedule, c *fakeClock, n int, service time.Duration) time.Duration {
	t.Helper()
	start := c.now
	for range n {
		if _, err := s.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		c.now = c.now.Add(service)
	}
	return c.now.Sub(start)
}

func TestScheduleHoldsTargetRate(t *testing.T) {
	c := &fakeClock{now: time.Unix(1000, 0)}
	s := NewSchedule(c, 200, 0, 0, 100*time.Millisecond)
	elapsed := drive(t, s, c, 2000, time.Millisecond)
	if rate := 2000 / elapsed.Seconds(); math.Abs(rate-200) > 2 {
		t.Errorf("achieved %.1f req/s, want 200 ± 1%%", rate)
	}
	if s.Onset() != nil || s.Late() != 0 {
		t.Errorf("a server that keeps up was reported queueing: %+v", s.Onset())
	}
}

func TestScheduleReportsQueueing(t *testing.T) {
	c := &fakeClock{now: time.Unix(1000, 0)}
	// One request every 5 ms, each taking 10 ms: every request starts 5 ms
	// later than the one before, so the 21st is over 100 ms late.
	s := NewSchedule(c, 200, 0, 0, 100*time.Millisecond)
	drive(t, s, c, 100, 10*time.Millisecond)
	o := s.Onset()
	if o == nil {
		t.Fatal("no queueing reported")
	}
	if o.TargetRate != 200 || o.Elapsed < 0.09 || o.Elapsed > 0.12 || o.Lag <= 100 {
		t.Errorf("onset %+v, want at ~0.1 s, 200 req/s, over 100 ms late", o)
	}
	if s.Late() != 100-21 {
		t.Errorf("late = %d, want 79", s.Late())
	}
}

func TestScheduleRampFindsCapacity(t *testing.T) {
	c := &fakeClock{now: time.Unix(1000, 0)}
	// Ramp 50 → 500 req/s over 10 s against a server that does 250 req/s.
	s := NewSchedule(c, 50, 500, 10*time.Second, 50*time.Millisecond)
	drive(t, s, c, 3000, 4*time.Millisecond)
	o := s.Onset()
	if o == nil {
		t.Fatal("no queueing reported")
	}
	if o.TargetRate < 250 || o.TargetRate > 320 {
		t.Errorf("queueing began at %.0f req/s, want just above the server's 250", o.TargetRate)
	}
}

func TestScheduleRampSlots(t *testing.T) {
	c := &fakeClock{now: time.Unix(0, 0)}
	s := NewSchedule(c, 100, 300, 10*time.Second, time.Second)
	// (100+300)/2 × 10 s = 2000 requests fit in the ramp.
	if at := s.At(2000); math.Abs(at.Seconds()-10) > 1e-6 {
		t.Errorf("slot 2000 at %v, want 10s", at)
	}
	if at := s.At(2300); math.Abs(at.Seconds()-11) > 1e-6 {
		t.Errorf("slot 2300 at %v, want 11s (300 req/s after the ramp)", at)
	}
	prev := time.Duration(-1)
	for i := range int64(2500) {
		at := s.At(i)
		if at <= prev && i > 0 {
			t.Fatalf("slot %d at %v not after %v", i, at, prev)
		}
		prev = at
	}
	if r := s.RateAt(5 * time.Second); r != 200 {
		t.Errorf("rate at 5s = %v, want 200", r)
	}
}
