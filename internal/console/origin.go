package console

import (
	"net"
	"net/http"
	"strings"
)

// s3Origin is the origin of the S3 endpoint the console's presigned
// links name, and its pages load previews from: Config.S3URL when set;
// else, when the console has a listener of its own (Config.S3Port), the
// request's host name at the S3 port, in the request's scheme; else the
// request's own origin (the console on the S3 port). It is "" when the
// request's host is not a plain name or address: the origin is written
// into headers (the pages' Content-Security-Policy) and links.
func (h *Handler) s3Origin(r *http.Request) string {
	origin := strings.TrimSuffix(h.cfg.S3URL, "/")
	if origin == "" {
		port := ""
		if h.cfg.S3Port != nil {
			port = h.cfg.S3Port()
		}
		origin = originAt(r, h.secure(r), port)
	}
	return checkOrigin(origin)
}

// originAt is the origin r reached, in its scheme (https when secure),
// with its port replaced by port ("": r's own): the host name the client
// used, so that a browser stays on the name it knows.
func originAt(r *http.Request, secure bool, port string) string {
	scheme := "http://"
	if secure {
		scheme = "https://"
	}
	host := r.Host
	if port != "" {
		name, _, err := net.SplitHostPort(host)
		if err != nil {
			name = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		}
		host = net.JoinHostPort(name, port)
	}
	return scheme + host
}

// checkOrigin is origin when it is http(s)://host[:port] with a plain
// name or address, else "".
func checkOrigin(origin string) string {
	scheme, host, _ := strings.Cut(origin, "://")
	if (scheme != "http" && scheme != "https") || host == "" || strings.Trim(host, hostChars) != "" {
		return ""
	}
	return origin
}

// hostChars are the bytes of a host name, an address and a port.
const hostChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_:[]"

// pageCSP is the console page's Content-Security-Policy: its own scripts
// and styles only (no inline script, no eval), objects previewed from
// blob: URLs the page made or from the S3 origin s3 (presigned URLs;
// none when ""), nothing framing it.
func pageCSP(s3 string) string {
	if s3 != "" {
		s3 = " " + s3
	}
	return "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:" + s3 + "; " +
		"media-src 'self' blob:" + s3 + "; frame-src 'self' blob:" + s3 + "; object-src 'none'; connect-src 'self'; " +
		"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
}
