package cli

import (
	"context"
	"log/slog"
	"os"
	"runtime"
	"time"
)

// A goroutine in fsync or fdatasync keeps its P (its right to run Go code)
// until the runtime notices and hands the P to another thread. While blob
// writes keep the disk busy, that leaves a core idle on a small machine
// as requests wait to run. So the server adds one P while its blob store
// spends at least half the wall time in such calls, and drops it again when
// that falls below a quarter (ADR 0008). $GOMAXPROCS turns this off.
const (
	procsWindow = 500 * time.Millisecond
	spareAbove  = 0.5  // fsync time per wall time that adds the spare P
	spareBelow  = 0.25 // ... and below which it goes
)

// wantSpare says whether to run with the spare P, given whether it runs
// with it now and the fraction of the last window spent in fsync calls.
func wantSpare(spare bool, busy float64) bool {
	if spare {
		return busy >= spareBelow
	}
	return busy >= spareAbove
}

// tuneProcs adjusts GOMAXPROCS every window until ctx ends, then returns
// it to the default. syncTime returns the blob store's total time in fsync
// calls so far.
func tuneProcs(ctx context.Context, syncTime func() time.Duration, window time.Duration, log *slog.Logger) {
	if os.Getenv("GOMAXPROCS") != "" {
		return
	}
	t := time.NewTicker(window)
	defer t.Stop()
	spare := false
	defer func() {
		if spare {
			runtime.SetDefaultGOMAXPROCS()
		}
	}()
	last, lastAt := syncTime(), time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			cur := syncTime()
			busy := float64(cur-last) / float64(now.Sub(lastAt))
			last, lastAt = cur, now
			want := wantSpare(spare, busy)
			if want == spare {
				continue
			}
			spare = want
			if spare {
				runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1)
			} else {
				runtime.SetDefaultGOMAXPROCS()
			}
			log.Debug("scheduler", "gomaxprocs", runtime.GOMAXPROCS(0), "fsync_busy", busy)
		}
	}
}
