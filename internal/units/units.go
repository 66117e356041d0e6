// Package units parses the byte sizes and rates flags and commands take
// ("64MiB", "300MB/s"), and renders sizes, rates and counts for people
// (Human, Count) and for config files read back (Exact).
package units

import (
	"fmt"
	"strconv"
	"strings"
)

// sizeUnits maps suffixes to multipliers: binary (KiB) and decimal (KB).
var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"ki", 1 << 10}, {"mi", 1 << 20}, {"gi", 1 << 30},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30},
	{"b", 1},
}

// ParseSize parses a byte size: a plain number of bytes, or a number with a
// unit: KiB/MiB/GiB/TiB (powers of 1024), KB/MB/GB/TB (powers of 1000), or
// the shorthand K/M/G (powers of 1024). Case is ignored; fractions are
// allowed ("1.5MiB").
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	if t == "" {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		if n < 0 || (mult > 1 && n > (1<<62)/mult) {
			return 0, fmt.Errorf("invalid size %q", s)
		}
		return n * mult, nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 || f*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	return int64(f * float64(mult)), nil
}

// ParseRate parses a rate in bytes per second: a size (ParseSize) with an
// optional "/s": "300MB/s", "300MiB", "1000000".
func ParseRate(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if len(t) >= 2 && strings.EqualFold(t[len(t)-2:], "/s") {
		t = t[:len(t)-2]
	}
	n, err := ParseSize(t)
	if err != nil {
		return 0, fmt.Errorf("invalid rate %q", s)
	}
	return n, nil
}
