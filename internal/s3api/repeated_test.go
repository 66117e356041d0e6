package s3api

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/authz"
)

func TestRepeatedHeader(t *testing.T) {
	for _, c := range []struct {
		h    http.Header
		want string
	}{
		{http.Header{"X-Amz-Acl": {"private"}, "If-Match": {`"a"`}}, ""},
		{http.Header{"X-Amz-Acl": {"public-read", "private"}}, "X-Amz-Acl"},
		{http.Header{"X-Amz-Object-Lock-Mode": {"COMPLIANCE", "GOVERNANCE"}}, "X-Amz-Object-Lock-Mode"},
		{http.Header{"X-Amz-Grant-Read": {`uri="http://acs.amazonaws.com/groups/global/AllUsers"`, `id="x"`}}, "X-Amz-Grant-Read"},
		{http.Header{"Content-Type": {"text/plain", "text/html"}}, "Content-Type"},
		{http.Header{"Referer": {"a", "b"}, "X-Amz-Storage-Class": {"STANDARD", "GLACIER"}}, "Referer"},
		{http.Header{"X-Jog-Reservation-Id": {"a", "b"}}, "X-Jog-Reservation-Id"},
		// Lists, and values stored as sent: read joined.
		{http.Header{"If-Match": {`"a"`, `"b"`}, "If-None-Match": {`"a"`, `"b"`}}, ""},
		{http.Header{"X-Amz-Meta-Tags": {"a", "b"}, "Cache-Control": {"no-cache", "private"}}, ""},
		{http.Header{"X-Amz-Object-Attributes": {"ETag", "ObjectSize"}}, ""},
		// Headers JOG does not read.
		{http.Header{"X-Unknown": {"a", "b"}, "Accept": {"a", "b"}}, ""},
	} {
		if got := repeatedHeader(c.h); got != c.want {
			t.Errorf("repeatedHeader(%v) = %q, want %q", c.h, got, c.want)
		}
	}
}

// TestAuthzHeadersSingle: every header a condition key is read from is
// read as one value (joined, the policy would match a value the handler
// does not act on).
func TestAuthzHeadersSingle(t *testing.T) {
	for _, name := range authz.Headers() {
		if !singleHeaders[name] {
			t.Errorf("condition keys read %s, which is not refused when repeated", name)
		}
	}
	for _, r := range wireTable {
		if r.joined && slices.Contains(authz.Headers(), http.CanonicalHeaderKey(r.name)) {
			t.Errorf("%s is read joined by the wire table and as a condition key", r.name)
		}
	}
}

// headerRead matches a request header read by name in this package's
// source (and internal/acl's): h.Get("X-…"), r.Header.Values("X-…"),
// h["X-…"].
var headerRead = regexp.MustCompile(`(?:\b[hH]eader|\bh|\bhdr)(?:\.Get|\.Values)\("([^"]+)"\)|(?:\b[hH]eader|\bh|\bhdr)\["([^"]+)"\]`)

// TestEveryHeaderReadIsClassified is a backstop for the wire table: each
// request header the handlers read by name is either read as one value
// (refused when repeated) or declared joined there. Names read from
// responses and the CORS preflight (answered before the check) are left
// out by name.
func TestEveryHeaderReadIsClassified(t *testing.T) {
	notRequest := map[string]bool{
		"Content-Security-Policy": true, "X-Content-Type-Options": true, // the response's (sandboxDocument)
		"X-Amz-Request-Id": true, "X-Amz-Id-2": true, "Server": true, // the response's (ServeHTTP)
		"Access-Control-Request-Method": true, "Access-Control-Request-Headers": true, // the preflight's
	}
	joined := map[string]bool{}
	for _, r := range wireTable {
		if r.joined && !r.query {
			joined[http.CanonicalHeaderKey(r.name)] = true
		}
	}
	var files []string
	for _, dir := range []string{".", "../acl"} {
		m, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range headerRead.FindAllStringSubmatch(string(src), -1) {
			name := http.CanonicalHeaderKey(m[1] + m[2])
			if strings.Contains(m[0], "Header()") || notRequest[name] {
				continue
			}
			seen++
			if !singleHeaders[name] && !joined[name] {
				t.Errorf("%s reads request header %s, which the wire table does not name: add it (joined if a list)", f, name)
			}
		}
	}
	if seen < 30 {
		t.Fatalf("only %d header reads found: is the pattern still right?", seen)
	}
}
