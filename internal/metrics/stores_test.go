package metrics

import (
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/jogstore/jog/internal/hist"
)

// TestLog2Histogram: a hist.Snapshot exposed with power-of-two bounds
// keeps every value at or below its bucket's bound.
func TestLog2Histogram(t *testing.T) {
	var h hist.Log2
	for _, ns := range []int64{1_000, 1_000_000, 1_000_000, 1_000_000_000, 100_000_000_000} {
		h.Observe(ns)
	}
	d := newDesc("t_seconds", "test")
	var m dto.Metric
	if err := log2Histogram(d, h.Snapshot(), syncLo, syncHi, 1e-9, false).Write(&m); err != nil {
		t.Fatal(err)
	}
	hg := m.GetHistogram()
	if hg.GetSampleCount() != 5 || hg.GetSampleSum() != 101.002001 {
		t.Errorf("count %d sum %v", hg.GetSampleCount(), hg.GetSampleSum())
	}
	at := func(le float64) uint64 { // the cumulative count of the first bound ≥ le
		for _, b := range hg.Bucket {
			if b.GetUpperBound() >= le {
				return b.GetCumulativeCount()
			}
		}
		return hg.GetSampleCount()
	}
	for _, c := range []struct {
		le   float64
		want uint64
	}{{1e-5, 1}, {1.1e-3, 3}, {1.1, 4}, {30, 4}, {100, 5}} {
		if got := at(c.le); got != c.want {
			t.Errorf("bucket ≥ %v s: %d, want %d", c.le, got, c.want)
		}
	}
	if n := len(hg.Bucket); n != syncHi-syncLo+1 {
		t.Errorf("%d buckets, want %d", n, syncHi-syncLo+1)
	}
}
