package console

import (
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// Navigation reports whether r is a browser opening a page: a GET with
// no query and no Authorization header (so neither a header nor a query
// signature) whose Accept prefers text/html, as every browser's
// navigation does ("text/html,application/xhtml+xml,…,*/*;q=0.8"). No S3
// client sends such a request: curl's Accept is */*, the SDKs send none or
// application/xml, and a signed request has an Authorization header or a
// query.
func Navigation(r *http.Request) bool {
	return r.Method == http.MethodGet && r.URL.RawQuery == "" && r.Header.Get("Authorization") == "" &&
		prefersHTML(r.Header.Values("Accept"))
}

// prefersHTML reports whether the Accept header's values name text/html
// itself (not through */* or text/*) with a quality above 0 that no other
// media range's beats.
func prefersHTML(accept []string) bool {
	html, best := 0.0, 0.0
	for _, v := range accept {
		for part := range strings.SplitSeq(v, ",") {
			mt, params, err := mime.ParseMediaType(part)
			if err != nil {
				continue
			}
			q := 1.0
			if s, ok := params["q"]; ok {
				if q, err = strconv.ParseFloat(s, 64); err != nil {
					continue
				}
			}
			if mt == "text/html" {
				html = max(html, q)
			} else {
				best = max(best, q)
			}
		}
	}
	return html > 0 && html >= best
}

// HomeURL is where the S3 listener sends a browser that opens its root
// (Navigation on "/"): the console's page at port, the console's own
// listener, on the host name the browser used and in its scheme (https
// when r came over TLS, or said so through a proxy trusted with
// trustForwardedFor); at Prefix on r's own origin when port is "" (the
// console served on the S3 port). It is "" when r's host is not a plain
// name or address.
func HomeURL(r *http.Request, port string, trustForwardedFor bool) string {
	if port == "" {
		return Prefix
	}
	origin := checkOrigin(originAt(r, secureRequest(r, trustForwardedFor), port))
	if origin == "" {
		return ""
	}
	return origin + Prefix
}
