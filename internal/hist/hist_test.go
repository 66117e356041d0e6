package hist

import "testing"

func TestLog2(t *testing.T) {
	var h Log2
	for _, v := range []int64{0, 1, 2, 3, 4, 1000, -5} {
		h.Observe(v)
	}
	s := h.Snapshot()
	if s.Count() != 7 || s.Sum != 1010 {
		t.Fatalf("count %d sum %d, want 7 1010", s.Count(), s.Sum)
	}
	// below 1: 0 and -5; below 2: +1; below 4: +2, 3; below 8: +4; below 1024: +1000
	got := s.Cumulative([]int{0, 1, 2, 3, 9, 10, 64})
	want := []uint64{2, 3, 5, 6, 6, 7, 7}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("cumulative %v, want %v", got, want)
		}
	}
}

func BenchmarkObserve(b *testing.B) {
	var h Log2
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var v int64
		for pb.Next() {
			v += 4099
			h.Observe(v)
		}
	})
}
