package s3api

import "strings"

// S3's encoding-type=url, as Amazon S3 answers it (see
// docs/COMPATIBILITY.md, "Listing encoding"): form encoding of the UTF-8
// bytes, as Java's URLEncoder does it, with "/" kept.
//
//   - A–Z, a–z, 0–9, "-", "_", ".", "*" and "/" stay as they are;
//   - a space becomes "+";
//   - every other byte becomes %XX, upper-case hex ("+" → %2B, "~" → %7E,
//     "é" → %C3%A9, "\x01" → %01).
//
// Clients decode it as a query component (botocore's unquote_plus, Go's
// url.QueryUnescape); url.PathUnescape would leave "+" for a space.

// urlSafe marks the bytes urlEncode copies as they are.
var urlSafe = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
		t[c+'a'-'A'] = true
	}
	for _, c := range "-_.*/" {
		t[c] = true
	}
	return t
}()

// urlEncode encodes a key, prefix, delimiter or marker for a listing
// asked with encoding-type=url. A name with nothing to encode (most keys) is
// returned as it is, without allocating.
func urlEncode(s string) string {
	n := 0 // bytes that become %XX
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; !urlSafe[c] {
			break
		}
	}
	if i == len(s) {
		return s
	}
	for j := i; j < len(s); j++ {
		if c := s[j]; !urlSafe[c] && c != ' ' {
			n++
		}
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case urlSafe[c]:
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}
