package sigv2

import (
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/jogstore/jog/internal/sigv4"
)

// stringToSignPrefix returns the string to sign up to the canonical resource:
// verb, Content-MD5, Content-Type and the Date line, each followed by a
// newline, then the canonicalized x-amz-* headers.
func stringToSignPrefix(r *http.Request, date, amz string) string {
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	return method + "\n" + r.Header.Get("Content-Md5") + "\n" + r.Header.Get("Content-Type") + "\n" +
		date + "\n" + amz
}

// canonicalAmzHeaders builds CanonicalizedAmzHeaders from the x-amz-* headers
// and, for presigned URLs, the x-amz-* query parameters: names lowercased and
// sorted, the values of a repeated name joined with "," in order, each value
// unfolded and trimmed, every entry "name:value\n".
func canonicalAmzHeaders(h http.Header, extra []sigv4.QueryParam) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys) // deterministic order for names differing only in case
	values := map[string][]string{}
	for _, k := range keys {
		if lk := strings.ToLower(k); strings.HasPrefix(lk, "x-amz-") {
			for _, v := range h[k] {
				values[lk] = append(values[lk], cleanValue(v))
			}
		}
	}
	for _, p := range extra {
		values[p.Key] = append(values[p.Key], cleanValue(p.Value))
	}
	if len(values) == 0 {
		return ""
	}
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n)
		b.WriteByte(':')
		b.WriteString(strings.Join(values[n], ","))
		b.WriteByte('\n')
	}
	return b.String()
}

// cleanValue unfolds a header value that spans lines (the line breaks and the
// whitespace around them become one space) and trims surrounding whitespace.
func cleanValue(v string) string {
	if strings.ContainsAny(v, "\r\n") {
		lines := strings.FieldsFunc(v, func(c rune) bool { return c == '\r' || c == '\n' })
		for i, l := range lines {
			lines[i] = strings.Trim(l, " \t")
		}
		v = strings.Join(lines, " ")
	}
	return strings.Trim(v, " \t")
}

// canonicalResource builds CanonicalizedResource: "/" + bucket for a
// virtual-hosted-style request, the request path, then the parameters
// signed reports, sorted by name, "name" or "name=value" (decoded), joined
// by "&" after a "?".
func canonicalResource(bucket, path string, params []sigv4.QueryParam, signed func(string) bool) string {
	var b strings.Builder
	if bucket != "" {
		b.WriteByte('/')
		b.WriteString(bucket)
	}
	b.WriteString(path)
	var subs []sigv4.QueryParam
	for _, p := range params {
		if signed(p.Key) {
			subs = append(subs, p)
		}
	}
	slices.SortStableFunc(subs, func(x, y sigv4.QueryParam) int { return strings.Compare(x.Key, y.Key) })
	for i, p := range subs {
		if i == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		b.WriteString(p.Key)
		if p.Value != "" {
			b.WriteByte('=')
			b.WriteString(p.Value)
		}
	}
	return b.String()
}

// wirePath returns the path of the Request-URI as it was sent, still
// percent-encoded: from r.RequestURI on the server, or the URI a Go client
// will send (r.URL.RequestURI) for an outgoing request.
func wirePath(r *http.Request) string {
	uri := r.RequestURI
	if uri == "" && r.URL != nil {
		uri = r.URL.RequestURI()
	}
	uri, _, _ = strings.Cut(uri, "?")
	if !strings.HasPrefix(uri, "/") {
		// absolute-form ("http://host/path"): drop scheme and authority.
		if _, rest, ok := strings.Cut(uri, "://"); ok {
			uri = "/"
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				uri = rest[i:]
			}
		}
	}
	if uri == "" {
		return "/"
	}
	return uri
}

// resourcePaths returns the paths to try in the canonical resource, in order:
//
//   - the path as sent, percent-encoded (what the AWS guide specifies);
//   - the AWS URI-encoding of the decoded path, when it differs (s3cmd and
//     minio-go sign that, so a proxy that re-encodes the path is tolerated);
//   - for a path-style request to a bucket, "/bucket" with a trailing slash:
//     botocore sends "/bucket" but signs "/bucket/".
//
// All of them decode to the same bucket and key, so none can authorise a
// request for another resource than the one the client signed.
func resourcePaths(r *http.Request, virtual bool) []string {
	paths := []string{wirePath(r)}
	if r.URL != nil && r.URL.Path != "" {
		if enc := encodePath(r.URL.Path); enc != paths[0] {
			paths = append(paths, enc)
		}
	}
	if !virtual {
		for _, p := range paths {
			if len(p) > 1 && !strings.Contains(p[1:], "/") {
				paths = append(paths, p+"/")
			}
		}
	}
	return paths
}

// requestHost returns the Host the client sent.
func requestHost(r *http.Request) string {
	if r.Host != "" {
		return r.Host
	}
	if r.URL != nil {
		return r.URL.Host
	}
	return ""
}

// virtualHostBucket extracts the bucket from "<bucket>.<domain>[:port]", the
// way the S3 router does; "" when domain is empty or host is not below it.
func virtualHostBucket(host, domain string) string {
	if domain == "" {
		return ""
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	b, ok := strings.CutSuffix(strings.ToLower(host), "."+strings.ToLower(domain))
	if !ok {
		return ""
	}
	return b
}

const upperHex = "0123456789ABCDEF"

// encodePath applies the AWS URI-encoding rule to a decoded path: A-Z a-z 0-9
// - _ . ~ and '/' stay, every other byte becomes %XX with uppercase hex.
func encodePath(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
			c == '-' || c == '_' || c == '.' || c == '~' || c == '/' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&15])
	}
	return b.String()
}
