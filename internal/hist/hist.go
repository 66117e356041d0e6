// Package hist is a histogram the stores keep without importing a metrics
// library: counts in power-of-two buckets, each an atomic counter, that
// internal/metrics reads at scrape time and exposes as a Prometheus
// histogram. Observing is two atomic adds and no allocation, so a store's
// write path (a group commit, an fsync) can afford it.
package hist

import (
	"math/bits"
	"sync/atomic"
)

// Buckets is the number of buckets: a value v ≥ 0 falls in bucket
// bits.Len64(v), so bucket i holds the values below 2^i and at least
// 2^(i-1) (bucket 0 holds 0).
const Buckets = 65

// Log2 is a histogram of non-negative integers (nanoseconds, counts) in
// power-of-two buckets. The zero Log2 is empty and ready to use; it is
// safe for concurrent use.
type Log2 struct {
	counts [Buckets]atomic.Uint64
	sum    atomic.Uint64
}

// Observe adds v; a negative v counts as 0.
func (h *Log2) Observe(v int64) {
	if v < 0 {
		v = 0
	}
	h.counts[bits.Len64(uint64(v))].Add(1)
	h.sum.Add(uint64(v))
}

// Snapshot is a histogram's state at one moment.
type Snapshot struct {
	// Counts[i] is how many values fell in bucket i: below 2^i, at least
	// 2^(i-1).
	Counts [Buckets]uint64
	Sum    uint64 // the sum of the values
}

// Snapshot reads the histogram. Concurrent observations may be seen in
// some buckets and not in the sum: a scrape's small skew.
func (h *Log2) Snapshot() Snapshot {
	var s Snapshot
	for i := range h.counts {
		s.Counts[i] = h.counts[i].Load()
	}
	s.Sum = h.sum.Load()
	return s
}

// Count is the number of values observed.
func (s Snapshot) Count() uint64 {
	var n uint64
	for _, c := range s.Counts {
		n += c
	}
	return n
}

// Cumulative returns, for each bucket index i in upper (ascending), how
// many values fell in buckets 0 to i, i.e. were below 2^i: the cumulative
// counts of a histogram whose bucket bounds are those powers of two.
func (s Snapshot) Cumulative(upper []int) []uint64 {
	out := make([]uint64, len(upper))
	var n uint64
	next := 0
	for j, i := range upper {
		for ; next <= i && next < Buckets; next++ {
			n += s.Counts[next]
		}
		out[j] = n
	}
	return out
}
