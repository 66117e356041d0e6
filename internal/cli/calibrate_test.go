package cli

import (
	"bytes"
	"context"
	"regexp"
	"testing"

	"github.com/jogstore/jog/internal/units"
)

// TestCalibrateUnits: jog calibrate --dry-run prints its figures in units
// people read, and a suggestion the capacity flags take back.
func TestCalibrateUnits(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"calibrate", "--data-dir", t.TempDir(), "--size", "2MiB", "--dry-run"}, &out, &errOut); code != 0 {
		t.Fatalf("jog calibrate: exit %d: %s%s", code, out.String(), errOut.String())
	}
	rate := `[0-9.]+ [KMGTP]?i?B/s`
	if !regexp.MustCompile(`^write ` + rate + `, read ` + rate + ` over 2\.0 MiB`).MatchString(out.String()) {
		t.Errorf("figures not in units:\n%s", out.String())
	}
	m := regexp.MustCompile(`(?m)^to use it: jog server --qos-read-capacity (\S+) --qos-write-capacity (\S+)$`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no suggestion:\n%s", out.String())
	}
	for _, v := range m[1:] {
		if n, err := units.ParseRate(v); err != nil || n <= 0 || !regexp.MustCompile(`^[0-9]+([KMGT]i?B)?/s$`).MatchString(v) {
			t.Errorf("suggested capacity %q: %d, %v; want a whole rate in a unit", v, n, err)
		}
	}
}

func TestCapacityFlag(t *testing.T) {
	for n, want := range map[int64]string{537_198_592: "537MB/s", 999_999: "999999/s", 1 << 30: "1073MB/s", 0: "0"} {
		if got := capacityFlag(n); got != want {
			t.Errorf("capacityFlag(%d) = %q, want %q", n, got, want)
		}
	}
}
