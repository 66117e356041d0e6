package cli

import (
	"context"
	"log/slog"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestWantSpare(t *testing.T) {
	for _, c := range []struct {
		spare bool
		busy  float64
		want  bool
	}{
		{false, 0, false},
		{false, 0.3, false}, // between the thresholds: stay without
		{false, 0.5, true},
		{false, 1.7, true}, // overlapping calls: more than one at a time
		{true, 0.3, true},  // between the thresholds: keep it
		{true, 0.2, false},
	} {
		if got := wantSpare(c.spare, c.busy); got != c.want {
			t.Errorf("wantSpare(%v, %v) = %v, want %v", c.spare, c.busy, got, c.want)
		}
	}
}

// TestTuneProcs drives the tuner with a fake fsync clock: busy twice over
// (as with overlapping syncs), it must add a P; idle, it must drop it; and
// it must leave the default in place when it stops.
func TestTuneProcs(t *testing.T) {
	if os.Getenv("GOMAXPROCS") != "" {
		t.Skip("GOMAXPROCS is set: the tuner stays off")
	}
	base := runtime.GOMAXPROCS(0)
	var busy atomic.Bool
	busy.Store(true)
	var clock atomic.Int64 // fake fsync time, ns
	start := time.Now()
	syncTime := func() time.Duration {
		if busy.Load() {
			clock.Store(2 * int64(time.Since(start)))
		}
		return time.Duration(clock.Load())
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		tuneProcs(ctx, syncTime, 10*time.Millisecond, slog.New(slog.DiscardHandler))
		close(done)
	}()
	waitProcs(t, base+1, "with fsyncs busy")
	busy.Store(false)
	waitProcs(t, base, "after fsyncs stopped")
	busy.Store(true)
	waitProcs(t, base+1, "with fsyncs busy again")
	cancel()
	<-done
	if got := runtime.GOMAXPROCS(0); got != base {
		t.Errorf("after the tuner stopped: GOMAXPROCS %d, want %d", got, base)
	}
}

// waitProcs waits (up to 10 s, far beyond the 10 ms window) for
// GOMAXPROCS to become want.
func waitProcs(t *testing.T, want int, when string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.GOMAXPROCS(0) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s: GOMAXPROCS %d, want %d", when, runtime.GOMAXPROCS(0), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
