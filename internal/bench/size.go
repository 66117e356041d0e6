package bench

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/jogstore/jog/internal/units"
)

// ParseSize parses a byte size: a plain number of bytes, or a number with a
// unit (units.ParseSize).
func ParseSize(s string) (int64, error) { return units.ParseSize(s) }

// FormatSize renders n bytes with the largest binary unit that divides it
// exactly ("64KiB", "1MiB", "1000B"), or one decimal place otherwise.
func FormatSize(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for v := n; i < len(units)-1 && v >= 1024 && v%1024 == 0; v /= 1024 {
		i++
	}
	if i > 0 || n < 1024 {
		return strconv.FormatInt(n>>(10*i), 10) + units[i]
	}
	f := float64(n)
	for i = 0; f >= 1024 && i < len(units)-1; i++ {
		f /= 1024
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + units[i]
}

// SizeRange is an object size: fixed when Min == Max, otherwise uniformly
// random in [Min, Max].
type SizeRange struct {
	Min int64 `json:"min"`
	Max int64 `json:"max"`
}

// ParseSizeRange parses "1MiB" (fixed) or "1KiB-64KiB" (random range).
func ParseSizeRange(s string) (SizeRange, error) {
	lo, hi, isRange := strings.Cut(s, "-")
	min, err := ParseSize(lo)
	if err != nil {
		return SizeRange{}, err
	}
	if !isRange {
		return SizeRange{min, min}, nil
	}
	max, err := ParseSize(hi)
	if err != nil {
		return SizeRange{}, err
	}
	if max < min {
		return SizeRange{}, fmt.Errorf("invalid size range %q: max below min", s)
	}
	return SizeRange{min, max}, nil
}

// Fixed reports whether every object has the same size.
func (r SizeRange) Fixed() bool { return r.Min == r.Max }

// Pick returns a size in the range.
func (r SizeRange) Pick(rng *rand.Rand) int64 {
	if r.Fixed() {
		return r.Min
	}
	return r.Min + rng.Int64N(r.Max-r.Min+1)
}

// Mean is the expected object size.
func (r SizeRange) Mean() int64 { return (r.Min + r.Max) / 2 }

func (r SizeRange) String() string {
	if r.Fixed() {
		return FormatSize(r.Min)
	}
	return FormatSize(r.Min) + "-" + FormatSize(r.Max)
}
