package sigv4

import (
	"time"
)

// staticCreds is a Credentials backed by a map.
type staticCreds map[string]string

func (c staticCreds) SecretKey(ak string) (string, bool) {
	s, ok := c[ak]
	return s, ok
}

// fixedNow returns a clock stuck at t.
func fixedNow(t time.Time) func() time.Time { return func() time.Time { return t } }

func mustTime(s string) time.Time {
	t, err := time.Parse(AmzDateFormat, s)
	if err != nil {
		panic(err)
	}
	return t
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}
