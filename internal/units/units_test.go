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
