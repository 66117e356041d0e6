package units

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// binary are the binary units Human renders with.
var binary = []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}

// Human renders n bytes for people: the largest binary unit with one
// decimal place ("12.5 MiB", "1.0 GiB"), whole bytes below 1 KiB
// ("512 B"). A rate is Human(n) + "/s".
func Human(n float64) string {
	i := 0
	for n >= 1024 && i < len(binary)-1 {
		n /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", n)
	}
	return fmt.Sprintf("%.1f %s", n, binary[i])
}

// Rate renders n bytes per second as people set rates: exactly in a
// unit when one holds it ("200MB/s", "92500KB/s", "64MiB/s", as --read and
// the --qos-* flags take them back), else Human ("81.1 MiB/s", "290 B/s").
func Rate(n int64) string {
	if e := Exact(n); n > 0 && strings.IndexFunc(e, unicode.IsLetter) > 0 {
		return e + "/s"
	}
	return Human(float64(n)) + "/s"
}

// Exact renders n bytes in the largest unit, binary or decimal, that
// holds it exactly ("64MiB", "150MB", "1000"), so that ParseSize reads
// back the same n: for values written to be read again (a config file).
func Exact(n int64) string {
	if n <= 0 {
		return strconv.FormatInt(n, 10)
	}
	best, suffix := n, ""
	for _, u := range sizeUnits {
		if len(u.suffix) < 2 || u.suffix[len(u.suffix)-1] != 'b' {
			continue // only the unambiguous KiB…TiB and KB…TB
		}
		if n%u.mult == 0 && n/u.mult < best {
			best, suffix = n/u.mult, u.suffix
		}
	}
	return strconv.FormatInt(best, 10) + unitName(suffix)
}

// unitName is a sizeUnits suffix as written: "mib" is "MiB", "mb" "MB".
func unitName(suffix string) string {
	if len(suffix) == 3 {
		return string(suffix[0]-'a'+'A') + "iB"
	}
	b := []byte(suffix)
	for i := range b {
		b[i] -= 'a' - 'A'
	}
	return string(b)
}

// Count renders n of a noun, plural when n is not 1: "1 bucket",
// "2 buckets" (nouns whose plural adds "s").
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
