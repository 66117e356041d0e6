package cp

import (
	"testing"
	"time"
)

func TestTallySummary(t *testing.T) {
	for _, tc := range []struct {
		t       Tally
		elapsed time.Duration
		want    string
	}{
		{Tally{Files: 3, Verified: 3, Bytes: 25 << 19}, 1200 * time.Millisecond, "copied 3 files, 12.5 MiB in 1.2s (10.4 MiB/s), all verified"},
		{Tally{Files: 1, Verified: 1, Bytes: 512}, time.Second, "copied 1 file, 512 B in 1s (512 B/s), all verified"},
		{Tally{Files: 3, Verified: 2, Bytes: 1 << 30}, 2 * time.Second, "copied 3 files, 1.0 GiB in 2s (512.0 MiB/s), 2 of 3 verified"},
		{Tally{Files: 2, Bytes: 2048}, time.Second, "copied 2 files, 2.0 KiB in 1s (2.0 KiB/s), none verified"},
		{Tally{}, 0, "copied 0 files, 0 B in 0s, nothing to verify"},
	} {
		if got := tc.t.Summary(tc.elapsed); got != tc.want {
			t.Errorf("%+v in %v: %q, want %q", tc.t, tc.elapsed, got, tc.want)
		}
	}
}
