package sigv4

import (
	"net/url"
	"strings"
)

const upperHex = "0123456789ABCDEF"

// unreserved reports whether c is left as is by the AWS URI-encoding rule:
// A-Z a-z 0-9 - _ . ~ (RFC 3986 unreserved characters).
func unreserved(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '-' || c == '_' || c == '.' || c == '~'
}

// uriEncode applies the AWS URI-encoding rule to s: unreserved bytes stay,
// every other byte becomes %XX with uppercase hex. With keepSlash, '/' also
// stays (for the canonical URI); without it, '/' becomes %2F (for query keys
// and values).
func uriEncode(s string, keepSlash bool) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; !unreserved(c) && (c != '/' || !keepSlash) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if unreserved(c) || (c == '/' && keepSlash) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&15])
	}
	return b.String()
}

// QueryParam is one decoded query parameter, in request order.
type QueryParam struct {
	Key, Value string
}

// ParseQuery splits a raw query on '&' and each part on its first '=',
// decoding keys and values with url.QueryUnescape ('+' is a space, as S3 reads
// it). A key without '=' has an empty value; empty parts are skipped. A part
// that does not decode is kept verbatim, so it can still be canonicalised (and
// will then fail the signature check rather than vanish silently).
func ParseQuery(raw string) []QueryParam {
	if raw == "" {
		return nil
	}
	params := make([]QueryParam, 0, strings.Count(raw, "&")+1)
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		params = append(params, QueryParam{Key: queryUnescape(k), Value: queryUnescape(v)})
	}
	return params
}

func queryUnescape(s string) string {
	if !strings.ContainsAny(s, "%+") {
		return s
	}
	u, err := url.QueryUnescape(s)
	if err != nil {
		return s
	}
	return u
}
