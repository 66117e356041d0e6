package disk

import "testing"

// TestSpaceGauge: far from the reserve, checks within spaceTTL are answered
// from the last statfs less what they admitted; a write that would come
// within twice the reserve asks the file system again.
func TestSpaceGauge(t *testing.T) {
	calls, fsFree := 0, int64(1000)
	g := spaceGauge{statfs: func(string) (int64, int64, bool) {
		calls++
		return fsFree, 2000, true
	}}
	const reserve = 100
	for i, c := range []struct {
		n, free int64
		calls   int
	}{
		{100, 1000, 1}, // the first check asks
		{100, 900, 1},  // 900-100 leaves ≥ 2×100: from the gauge, less the first write
		{500, 800, 1},  // 800-500 = 300 ≥ 200: still the gauge
		{150, 1000, 2}, // 300-150 < 200: asks (the file system says 1000)
	} {
		free, ok := g.room("", c.n, reserve)
		if !ok || free != c.free || calls != c.calls {
			t.Errorf("check %d (%d bytes): free %d (%v) after %d statfs, want %d after %d", i, c.n, free, ok, calls, c.free, c.calls)
		}
	}
	// Near the reserve every check asks.
	g, fsFree = spaceGauge{statfs: g.statfs}, 150
	for i := range 3 {
		if free, _ := g.room("", 10, reserve); free != 150 {
			t.Errorf("near the reserve, check %d: free %d, want the file system's 150", i, free)
		}
	}
	if calls != 5 {
		t.Errorf("%d statfs, want 5", calls)
	}
}
