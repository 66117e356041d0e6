package sigv2

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"time"
)

const (
	exampleAK     = "AKIAIOSFODNN7EXAMPLE"
	exampleSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

// staticCreds is a Credentials backed by a map.
type staticCreds map[string]string

func (c staticCreds) SecretKey(ak string) (string, bool) {
	s, ok := c[ak]
	return s, ok
}

var exampleCreds = staticCreds{exampleAK: exampleSecret}

// fixedNow returns a clock stuck at t.
func fixedNow(t time.Time) func() time.Time { return func() time.Time { return t } }

// readRequest parses a raw HTTP/1.1 request (request line and headers) the
// way net/http's server does, so RequestURI, Host and URL are as received.
// "\n" line ends are accepted.
func readRequest(t testing.TB, raw string) *http.Request {
	t.Helper()
	if !strings.Contains(raw, "\r\n") {
		raw = strings.ReplaceAll(raw, "\n", "\r\n")
	}
	if !strings.HasSuffix(raw, "\r\n\r\n") {
		raw = strings.TrimRight(raw, "\r\n") + "\r\n\r\n"
	}
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
	if err != nil {
		t.Fatalf("bad raw request %q: %v", raw, err)
	}
	return r
}

// requestTime returns the time a header-signed request claims.
func requestTime(t testing.TB, r *http.Request) time.Time {
	t.Helper()
	_, ts, err := headerDate(r)
	if err != nil {
		t.Fatalf("request time: %v", err)
	}
	return ts
}
