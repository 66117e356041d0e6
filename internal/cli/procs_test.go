package cli

import "testing"

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
