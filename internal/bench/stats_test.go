package bench

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// reference is the nearest-rank quantile of sorted samples.
func reference(sorted []time.Duration, q float64) time.Duration {
	rank := max(int(math.Ceil(q*float64(len(sorted)))), 1)
	return sorted[rank-1]
}

func randomLatencies(rng *rand.Rand, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		// Log-normal around 2 ms with a long tail, plus some tiny and huge values.
		v := math.Exp(rng.NormFloat64()*1.5) * 2e6
		switch rng.IntN(100) {
		case 0:
			v = float64(rng.IntN(300))
		case 1:
			v *= 1000
		}
		out[i] = time.Duration(v)
	}
	return out
}

func TestHistogramQuantilesMatchSortedReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 10, 1000, 100000} {
		vals := randomLatencies(rng, n)
		var h Histogram
		for _, v := range vals {
			h.Record(v)
		}
		sorted := slices.Clone(vals)
		slices.Sort(sorted)
		for _, q := range []float64{0, 0.5, 0.9, 0.99, 0.999, 1} {
			got, want := h.Quantile(q), reference(sorted, q)
			// One bucket is at most 1/128 of its value wide.
			if diff := math.Abs(float64(got - want)); diff > float64(want)/128+1 {
				t.Errorf("n=%d q=%v: got %v, want %v (±0.8%%)", n, q, got, want)
			}
		}
		if h.Min() != sorted[0] || h.Max() != sorted[n-1] || h.Count() != uint64(n) {
			t.Errorf("n=%d: min/max/count %v %v %d, want %v %v %d", n, h.Min(), h.Max(), h.Count(), sorted[0], sorted[n-1], n)
		}
		var sum float64
		for _, v := range vals {
			sum += float64(v)
		}
		if mean := sum / float64(n); math.Abs(float64(h.Mean())-mean) > mean*1e-9+1 {
			t.Errorf("n=%d: mean %v, want %v", n, h.Mean(), time.Duration(mean))
		}
	}
}

func TestHistogramMergeEqualsOneHistogram(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vals := randomLatencies(rng, 50000)
	var all Histogram
	parts := make([]Histogram, 7)
	for i, v := range vals {
		all.Record(v)
		parts[i%len(parts)].Record(v)
	}
	var merged Histogram
	merged.Merge(&Histogram{}) // empty merges are no-ops
	for i := range parts {
		merged.Merge(&parts[i])
	}
	for _, q := range []float64{0.1, 0.5, 0.9, 0.99, 0.999, 1} {
		if a, b := all.Quantile(q), merged.Quantile(q); a != b {
			t.Errorf("q=%v: merged %v, single %v", q, b, a)
		}
	}
	if all.Count() != merged.Count() || all.Min() != merged.Min() || all.Max() != merged.Max() {
		t.Errorf("merged count/min/max differ")
	}
}

func TestHistogramBucketsCoverValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		v := int64(rng.Uint64N(uint64(histMaxValue)) >> rng.IntN(44))
		i := histIndex(v)
		lo, w := histBounds(i)
		if v < lo || v >= lo+w || i < 0 || i >= histBuckets {
			t.Fatalf("value %d in bucket %d [%d, %d)", v, i, lo, lo+w)
		}
		if v >= histExact && float64(w)/float64(lo) > 1.0/histSub+1e-12 {
			t.Fatalf("bucket %d too wide: %d at %d", i, w, lo)
		}
	}
	if histIndex(histMaxValue) != histBuckets-1 || histIndex(math.MaxInt64) != histBuckets-1 || histIndex(-5) != 0 {
		t.Fatal("edge values land outside the table")
	}
}

func TestHistogramEmpty(t *testing.T) {
	var h Histogram
	if h.Quantile(0.5) != 0 || h.Mean() != 0 || h.Summary() != (Percentiles{}) {
		t.Fatal("empty histogram is not all zero")
	}
}
