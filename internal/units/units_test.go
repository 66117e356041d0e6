package units

import "testing"

func TestParseRate(t *testing.T) {
	for in, want := range map[string]int64{
		"300MB/s": 300e6, "300MiB": 300 << 20, "1000": 1000, "1.5GiB/S": 3 << 29, " 10 KB/s ": 10e3,
	} {
		if got, err := ParseRate(in); err != nil || got != want {
			t.Errorf("ParseRate(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "/s", "-1MB/s", "fast", "10MB/h"} {
		if _, err := ParseRate(in); err == nil {
			t.Errorf("ParseRate(%q) succeeded, want an error", in)
		}
	}
}

func TestHuman(t *testing.T) {
	for n, want := range map[float64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 12.5 * (1 << 20): "12.5 MiB", 150e6: "143.1 MiB", 1 << 50: "1.0 PiB"} {
		if got := Human(n); got != want {
			t.Errorf("Human(%v) = %q, want %q", n, got, want)
		}
	}
}

// TestExact checks that Exact picks the shortest exact unit and that
// ParseSize reads every rendering back to the same number.
func TestExact(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 1000: "1KB", 1024: "1KiB", 150e6: "150MB", 64 << 20: "64MiB", 1 << 40: "1TiB", 5e12: "5TB", 1001: "1001", 3 << 29: "1536MiB"} {
		got := Exact(n)
		if got != want {
			t.Errorf("Exact(%d) = %q, want %q", n, got, want)
		}
		if back, err := ParseSize(got); err != nil || back != n {
			t.Errorf("ParseSize(Exact(%d) = %q) = %d, %v", n, got, back, err)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 buckets", 1: "1 bucket", 2: "2 buckets"} {
		if got := Count(n, "bucket"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestRate(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B/s", 290: "290 B/s", 85e6: "85MB/s", 92.5e6: "92500KB/s", 1 << 30: "1GiB/s", 85_123_457: "81.2 MiB/s"} {
		if got := Rate(n); got != want {
			t.Errorf("Rate(%d) = %q, want %q", n, got, want)
		}
	}
}
