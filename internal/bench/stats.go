package bench

import (
	"math"
	"math/bits"
	"time"
)

// Histogram records durations in log-linear buckets, HDR style: values
// below 256 ns are exact; above, each power of two is split into 128
// buckets, so a quantile is within 1/128 (0.8%) of the true sample. Values
// above ~4.9 hours land in the last bucket; Min, Max, Mean are exact.
//
// A Histogram is not safe for concurrent use: each worker records into its
// own and they are merged after the run.
type Histogram struct {
	counts   []uint64 // allocated on first Record
	n        uint64
	sum      float64
	min, max int64
}

const (
	histSubBits  = 7
	histSub      = 1 << histSubBits // buckets per power of two
	histExact    = 2 * histSub      // values below are their own bucket
	histMaxShift = 37
	histBuckets  = histExact + histMaxShift*histSub
	histMaxValue = int64(1)<<(histMaxShift+histSubBits+1) - 1
)

func histIndex(v int64) int {
	if v < histExact {
		return int(max(v, 0))
	}
	v = min(v, histMaxValue)
	shift := bits.Len64(uint64(v)) - (histSubBits + 1)
	return histExact + (shift-1)*histSub + int(v>>shift) - histSub
}

// histBounds returns the lowest value of bucket i and the bucket's width.
func histBounds(i int) (lo, width int64) {
	if i < histExact {
		return int64(i), 1
	}
	shift := (i-histExact)/histSub + 1
	mant := int64((i-histExact)%histSub + histSub)
	return mant << shift, int64(1) << shift
}

// Record adds one duration.
func (h *Histogram) Record(d time.Duration) {
	v := int64(d)
	if h.counts == nil {
		h.counts = make([]uint64, histBuckets)
	}
	if h.n == 0 || v < h.min {
		h.min = v
	}
	if h.n == 0 || v > h.max {
		h.max = v
	}
	h.counts[histIndex(v)]++
	h.n++
	h.sum += float64(v)
}

// Merge adds every value recorded in o.
func (h *Histogram) Merge(o *Histogram) {
	if o.n == 0 {
		return
	}
	if h.counts == nil {
		h.counts = make([]uint64, histBuckets)
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	if h.n == 0 || o.max > h.max {
		h.max = o.max
	}
	h.n += o.n
	h.sum += o.sum
}

// Count is the number of recorded values.
func (h *Histogram) Count() uint64 { return h.n }

// Min is the smallest recorded value (0 when empty).
func (h *Histogram) Min() time.Duration { return time.Duration(h.min) }

// Max is the largest recorded value (0 when empty).
func (h *Histogram) Max() time.Duration { return time.Duration(h.max) }

// Mean is the average recorded value (0 when empty).
func (h *Histogram) Mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return time.Duration(h.sum / float64(h.n))
}

// Quantile returns the value at quantile q in [0, 1]: the smallest value v
// such that at least q of the samples are ≤ v (nearest rank), reported as
// the middle of its bucket and clamped to [Min, Max].
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	if q >= 1 {
		return time.Duration(h.max)
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = max(rank, 1)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			lo, w := histBounds(i)
			v := lo + (w-1)/2
			return time.Duration(min(max(v, h.min), h.max))
		}
	}
	return time.Duration(h.max)
}

// Percentiles is the latency summary the reports print, in milliseconds.
type Percentiles struct {
	Mean float64 `json:"mean_ms"`
	Min  float64 `json:"min_ms"`
	P50  float64 `json:"p50_ms"`
	P90  float64 `json:"p90_ms"`
	P99  float64 `json:"p99_ms"`
	P999 float64 `json:"p999_ms"`
	Max  float64 `json:"max_ms"`
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// Summary returns h's percentiles in milliseconds.
func (h *Histogram) Summary() Percentiles {
	return Percentiles{
		Mean: ms(h.Mean()), Min: ms(h.Min()),
		P50: ms(h.Quantile(0.50)), P90: ms(h.Quantile(0.90)),
		P99: ms(h.Quantile(0.99)), P999: ms(h.Quantile(0.999)),
		Max: ms(h.Max()),
	}
}
