package sigv4

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// canonicalURI returns the S3 canonical URI for a decoded path: the path
// re-encoded with uriEncode, '/' kept, and no normalisation ("a//b", "../x"
// and "./" stay as they are). An empty path is "/".
func canonicalURI(path string) string {
	if path == "" {
		return "/"
	}
	return uriEncode(path, true)
}

// canonicalQuery encodes every parameter except those named skip (the
// presigned X-Amz-Signature; "" skips nothing), sorts them by encoded key and
// then encoded value, and joins them as k=v pairs with '&'.
func canonicalQuery(params []QueryParam, skip string) string {
	enc := make([]QueryParam, 0, len(params))
	for _, p := range params {
		if skip != "" && p.Key == skip {
			continue
		}
		enc = append(enc, QueryParam{Key: uriEncode(p.Key, false), Value: uriEncode(p.Value, false)})
	}
	sort.Slice(enc, func(i, j int) bool {
		if enc[i].Key != enc[j].Key {
			return enc[i].Key < enc[j].Key
		}
		return enc[i].Value < enc[j].Value
	})
	var b strings.Builder
	for i, p := range enc {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p.Key)
		b.WriteByte('=')
		b.WriteString(p.Value)
	}
	return b.String()
}

// writeCanonicalHeaders writes "name:value\n" to b for each signed header, in the order
// given. Names are written as the client listed them (SignedHeaders is
// lowercase by definition); values come from headerValues, each trimmed with
// its internal runs of spaces collapsed, joined with ','.
func writeCanonicalHeaders(b *strings.Builder, r *http.Request, signed []string) {
	for _, name := range signed {
		b.WriteString(name)
		b.WriteByte(':')
		for i, v := range headerValues(r, name) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(trimAll(v))
		}
		b.WriteByte('\n')
	}
}

// headerValues returns the values of the named header as the client sent
// them, undoing what net/http moves out of r.Header:
//   - host is r.Host (the server deletes Host from r.Header), or r.URL.Host
//     for a client-side request;
//   - content-length falls back to r.ContentLength when the header is absent;
//   - transfer-encoding falls back to r.TransferEncoding, where the server
//     puts it after deleting the header.
//
// An absent header yields no values (an empty canonical value), so the
// signature then fails naturally.
func headerValues(r *http.Request, name string) []string {
	switch strings.ToLower(name) {
	case "host":
		h := r.Host
		if h == "" && r.URL != nil {
			h = r.URL.Host
		}
		return []string{h}
	case "content-length":
		if v := r.Header.Values("Content-Length"); len(v) > 0 {
			return v
		}
		if r.ContentLength >= 0 {
			return []string{strconv.FormatInt(r.ContentLength, 10)}
		}
		return nil
	case "transfer-encoding":
		if v := r.Header.Values("Transfer-Encoding"); len(v) > 0 {
			return v
		}
		if len(r.TransferEncoding) > 0 {
			return []string{strings.Join(r.TransferEncoding, ",")}
		}
		return nil
	}
	if v := r.Header.Values(name); len(v) > 0 {
		return v
	}
	// A key stored without MIME canonicalisation (set directly in the map).
	var vals []string
	for k, v := range r.Header {
		if strings.EqualFold(k, name) {
			vals = append(vals, v...)
		}
	}
	return vals
}

// trimAll trims leading and trailing whitespace and collapses every run of
// spaces inside the value to one space.
func trimAll(v string) string {
	v = strings.TrimSpace(v)
	if !strings.Contains(v, "  ") {
		return v
	}
	var b strings.Builder
	b.Grow(len(v))
	space := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == ' ' {
			if space {
				continue
			}
			space = true
		} else {
			space = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// canonicalRequest builds the SigV4 canonical request:
//
//	Method \n CanonicalURI \n CanonicalQuery \n CanonicalHeaders \n SignedHeaders \n PayloadHash
//
// where CanonicalHeaders already ends in "\n". query is the already
// canonicalised query string.
func canonicalRequest(r *http.Request, query string, signed []string, payloadHash string) string {
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	path := ""
	if r.URL != nil {
		path = r.URL.Path
	}
	var b strings.Builder
	b.Grow(512 + len(path) + len(query)) // most requests' in one allocation
	b.WriteString(method)
	b.WriteByte('\n')
	b.WriteString(canonicalURI(path))
	b.WriteByte('\n')
	b.WriteString(query)
	b.WriteByte('\n')
	writeCanonicalHeaders(&b, r, signed)
	b.WriteByte('\n')
	for i, name := range signed {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(name)
	}
	b.WriteByte('\n')
	b.WriteString(payloadHash)
	return b.String()
}
