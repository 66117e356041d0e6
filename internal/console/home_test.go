package console

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestNavigation: what a browser sends when it opens a page, and what S3
// clients send instead.
func TestNavigation(t *testing.T) {
	const chromium = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
	cases := []struct {
		name, method, target, accept, auth string
		want                               bool
	}{
		{"Chromium", "GET", "/", chromium, "", true},
		{"Firefox", "GET", "/", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "", true},
		{"Safari", "GET", "/", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "", true},
		{"spaces and case", "GET", "/", " Text/HTML ; q=1 , */*;q=0.1", "", true},
		{"curl", "GET", "/", "*/*", "", false},
		{"no Accept", "GET", "/", "", "", false},
		{"XML", "GET", "/", "application/xml", "", false},
		{"text/* only", "GET", "/", "text/*", "", false},
		{"HTML refused", "GET", "/", "text/html;q=0, */*", "", false},
		{"HTML after XML", "GET", "/", "application/xml, text/html;q=0.5", "", false},
		{"bad q", "GET", "/", "text/html;q=x", "", false},
		{"signed", "GET", "/", chromium, "AWS4-HMAC-SHA256 Credential=AKIA/20261129/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00", false},
		{"a query", "GET", "/?X-Amz-Credential=AKIA", chromium, "", false},
		{"HEAD", "HEAD", "/", chromium, "", false},
		{"POST", "POST", "/", chromium, "", false},
	}
	for _, c := range cases {
		r := httptest.NewRequest(c.method, c.target, nil)
		if c.accept != "" {
			r.Header.Set("Accept", c.accept)
		}
		if c.auth != "" {
			r.Header.Set("Authorization", c.auth)
		}
		if got := Navigation(r); got != c.want {
			t.Errorf("%s: Navigation = %v, want %v", c.name, got, c.want)
		}
	}
	// Accept on two lines counts as one list.
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Add("Accept", "application/xml;q=0.5")
	r.Header.Add("Accept", "text/html")
	if !Navigation(r) {
		t.Error("Accept over two lines: not a navigation")
	}
}

// TestHomeURL: the console's own listener on the host name the browser
// used, in its scheme; /console/ when the console is on this port; no URL
// for a host that is not a plain name.
func TestHomeURL(t *testing.T) {
	cases := []struct {
		name, host, port string
		tls, trust       bool
		proto            string
		want             string
	}{
		{"own listener", "example.net:9000", "9001", false, false, "", "http://example.net:9001/console/"},
		{"no port in Host", "example.net", "9001", false, false, "", "http://example.net:9001/console/"},
		{"IPv6", "[::1]:9000", "9001", false, false, "", "http://[::1]:9001/console/"},
		{"TLS", "example.net:9000", "9001", true, false, "", "https://example.net:9001/console/"},
		{"trusted proxy says https", "example.net", "9001", false, true, "https", "https://example.net:9001/console/"},
		{"untrusted proxy header", "example.net", "9001", false, false, "https", "http://example.net:9001/console/"},
		{"same port", "example.net:9000", "", false, false, "", "/console/"},
		{"a host that is not a name", "evil.example\"><script>", "9001", false, false, "", ""},
	}
	for _, c := range cases {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = c.host
		if c.tls {
			r.TLS = &tls.ConnectionState{}
		}
		if c.proto != "" {
			r.Header.Set("X-Forwarded-Proto", c.proto)
		}
		if got := HomeURL(r, c.port, c.trust); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
