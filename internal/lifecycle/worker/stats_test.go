package worker

import (
	"context"
	"testing"
	"time"
)

// TestRunStats: Run's passes add up in Stats.
func TestRunStats(t *testing.T) {
	svc, _ := openService(t, t.TempDir())
	setup(t, svc, `<Rule><ID>all</ID><Filter/><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`, "a", "b")
	ctx, cancel := context.WithCancel(context.Background())
	w := New(svc, quiet, Options{Interval: time.Hour, Now: inThreeDays})
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	for deadline := time.Now().Add(10 * time.Second); w.Stats().Passes == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no pass ended")
		}
	}
	cancel()
	<-done
	s := w.Stats()
	if s.Passes != 1 || s.Failed != 0 || s.Expired != 2 || s.Scanned < 2 || s.LastEnd.IsZero() {
		t.Errorf("stats %+v, want one pass that expired 2 objects", s)
	}
}
