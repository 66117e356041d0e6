package sigv2

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jogstore/jog/internal/sigv4"
)

func TestCanonicalAmzHeaders(t *testing.T) {
	h := http.Header{}
	h.Add("X-Amz-Meta-Zeta", "z")
	h.Add("X-Amz-Meta-ReviewedBy", "  joe@example.com ")
	h.Add("X-Amz-Meta-ReviewedBy", "jane@example.com")
	h["x-amz-meta-reviewedby"] = []string{"lower"}              // same name, other case
	h.Add("X-Amz-Meta-Folded", "first line\r\n   second\tline") // obsolete line folding
	h.Add("X-Amz-Meta-Inner", "a  b")
	h.Add("X-Amz-Meta-Empty", "")
	h.Add("Content-Type", "not/amz")
	h.Add("X-Amzfoo", "not amz")
	extra := []sigv4.QueryParam{{Key: "x-amz-security-token", Value: "tok"}, {Key: "x-amz-meta-zeta", Value: "q"}}
	want := "x-amz-meta-empty:\n" +
		"x-amz-meta-folded:first line second\tline\n" +
		"x-amz-meta-inner:a  b\n" +
		"x-amz-meta-reviewedby:joe@example.com,jane@example.com,lower\n" +
		"x-amz-meta-zeta:z,q\n" +
		"x-amz-security-token:tok\n"
	if got := canonicalAmzHeaders(h, extra); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if got := canonicalAmzHeaders(http.Header{"Date": {"x"}}, nil); got != "" {
		t.Fatalf("no amz headers: %q", got)
	}
}

func TestCanonicalResource(t *testing.T) {
	cases := []struct {
		bucket, path, query, want string
	}{
		{"", "/", "", "/"},
		{"b", "/", "", "/b/"},
		{"b", "/k", "acl", "/b/k?acl"},
		{"", "/b/k", "acl=", "/b/k?acl"},
		{"", "/b/k", "uploadId=x%2By%2Fz&partNumber=2&x-id=UploadPart", "/b/k?partNumber=2&uploadId=x+y/z"},
		{"", "/b/k", "versionId=3&acl&prefix=p&max-keys=9", "/b/k?acl&versionId=3"},
		{"", "/b/k", "response-content-disposition=attachment%3B%20filename%3D%22a+b%22&response-cache-control=no-cache",
			`/b/k?response-cache-control=no-cache&response-content-disposition=attachment; filename="a b"`},
		{"", "/b", "delete", "/b?delete"},
		{"", "/b/k", "uploads&Uploads&torrent", "/b/k?torrent&uploads"},
		{"", "/b/k", "tagging&versioning&versions&website&cors&lifecycle&location&logging&notification&policy&requestPayment&restore&replication",
			"/b/k?cors&lifecycle&location&logging&notification&policy&replication&requestPayment&restore&tagging&versioning&versions&website"},
	}
	for _, c := range cases {
		if got := canonicalResource(c.bucket, c.path, sigv4.ParseQuery(c.query), signedSet(nil)); got != c.want {
			t.Errorf("canonicalResource(%q, %q, %q) = %q, want %q", c.bucket, c.path, c.query, got, c.want)
		}
	}
	// A server's routing parameters are signed beside AWS's, and only
	// where it names them.
	params := sigv4.ParseQuery("retention&prefix=p&quota=&acl&x-id=PutObjectRetention")
	if got, want := canonicalResource("", "/b/k", params, signedSet([]string{"quota", "retention"})), "/b/k?acl&quota&retention"; got != want {
		t.Errorf("with routing: %q, want %q", got, want)
	}
	if got, want := canonicalResource("", "/b/k", params, signedSet(nil)), "/b/k?acl"; got != want {
		t.Errorf("without routing: %q, want %q", got, want)
	}
}

func TestWirePath(t *testing.T) {
	srv := func(target string) *http.Request { return httptest.NewRequest(http.MethodGet, target, nil) }
	client := func(u string, edit func(*http.Request)) *http.Request {
		r, _ := http.NewRequest(http.MethodGet, u, nil)
		if edit != nil {
			edit(r)
		}
		return r
	}
	cases := []struct {
		name string
		r    *http.Request
		want string
	}{
		{"origin form", srv("/b/caf%c3%a9/a%2Bb+c?acl"), "/b/caf%c3%a9/a%2Bb+c"},
		{"absolute form", srv("http://b.s3.jog.test/k%20x?acl"), "/k%20x"},
		{"absolute form, no path", srv("http://b.s3.jog.test"), "/"},
		{"client, Go encoding", client("http://h/b/x", func(r *http.Request) { r.URL.Path = "/b/a b+c" }), "/b/a%20b+c"},
		{"client, RawPath", client("http://h/b/caf%c3%a9", nil), "/b/caf%c3%a9"},
		{"client, Opaque", client("http://h/", func(r *http.Request) { r.URL.Opaque = "/b/café" }), "/b/café"},
		{"client, empty path", client("http://h", nil), "/"},
	}
	for _, c := range cases {
		if got := wirePath(c.r); got != c.want {
			t.Errorf("%s: wirePath = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestVirtualHostBucket(t *testing.T) {
	cases := []struct{ host, domain, want string }{
		{"b.s3.jog.test", "s3.jog.test", "b"},
		{"B.S3.Jog.Test:9000", "s3.jog.test", "b"},
		{"a.b.s3.jog.test", "s3.jog.test", "a.b"},
		{"s3.jog.test", "s3.jog.test", ""},
		{".s3.jog.test", "s3.jog.test", ""},
		{"b.other.test", "s3.jog.test", ""},
		{"bs3.jog.test", "s3.jog.test", ""},
		{"b.s3.jog.test", "", ""},
		{"[::1]:9000", "s3.jog.test", ""},
	}
	for _, c := range cases {
		if got := virtualHostBucket(c.host, c.domain); got != c.want {
			t.Errorf("virtualHostBucket(%q, %q) = %q, want %q", c.host, c.domain, got, c.want)
		}
	}
}

// headerSigned returns a server-side request for target whose signature
// covers signedPath as the canonical resource.
func headerSigned(method, target, host, signedPath string) *http.Request {
	r := httptest.NewRequest(method, target, nil)
	r.Host = host
	r.Header.Set("Date", testNow.Format(http.TimeFormat))
	sts := method + "\n\n\n" + r.Header.Get("Date") + "\n" + signedPath
	r.Header.Set("Authorization", "AWS "+exampleAK+":"+signature(exampleSecret, sts))
	return r
}

// TestResourceCandidates pins which canonical paths are accepted for a wire
// path besides the wire path itself, and that none crosses to another object.
func TestResourceCandidates(t *testing.T) {
	cases := []struct {
		name, method, target, host, domain, signed string
		ok                                         bool
	}{
		{"as sent", "GET", "/b/caf%c3%a9", "h", "", "/b/caf%c3%a9", true},
		{"re-encoded by a proxy", "GET", "/b/caf%c3%a9", "h", "", "/b/caf%C3%A9", true},
		{"unreserved escaped by a proxy", "GET", "/b/a%7Eb%2D", "h", "", "/b/a~b-", true},
		{"decoded path is not accepted", "GET", "/b/a%20b", "h", "", "/b/a b", false},
		{"bucket with trailing slash (botocore)", "HEAD", "/b", "h", "", "/b/", true},
		{"bucket without trailing slash", "HEAD", "/b/", "h", "", "/b", false},
		{"virtual root", "GET", "/", "b.s3.jog.test", "s3.jog.test", "/b/", true},
		{"virtual host ignored without Domain", "GET", "/", "b.s3.jog.test", "", "/b/", false},
		{"virtual host object", "GET", "/k%2Bx", "b.s3.jog.test:8080", "s3.jog.test", "/b/k%2Bx", true},
		{"virtual host signed path style", "GET", "/k", "b.s3.jog.test", "s3.jog.test", "/k", false},
		// A signature for key "a b" must not authorise key "a%20b".
		{"escaped percent is another key", "GET", "/b/a%2520b", "h", "", "/b/a%20b", false},
		// A signature for GET /b/x?acl (the ACL of x) must not fetch key "x?acl".
		{"escaped '?' is part of the key", "GET", "/b/x%3Facl", "h", "", "/b/x?acl", false},
		// '+' in a path is a plus, not a space.
		{"plus is not a space", "GET", "/b/a+b", "h", "", "/b/a%20b", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := testVerifier()
			v.Domain = c.domain
			_, err := v.Verify(headerSigned(c.method, c.target, c.host, c.signed))
			if c.ok && err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if !c.ok && !errors.Is(err, sigv4.ErrSignatureDoesNotMatch) {
				t.Fatalf("Verify: %v, want ErrSignatureDoesNotMatch", err)
			}
		})
	}
}

func TestParseDate(t *testing.T) {
	for _, s := range []string{
		"Tue, 27 Mar 2007 19:36:42 +0000", "Tue, 27 Mar 2007 19:36:42 GMT", "Tue, 27 Mar 2007 21:36:42 +0200",
		"Tue, 27 Mar 2007 19:36:42 -0000", "Tuesday, 27-Mar-07 19:36:42 GMT", "Tue Mar 27 19:36:42 2007",
		"20070327T193642Z", "2007-03-27T19:36:42Z", " Tue, 27 Mar 2007 19:36:42 GMT ",
	} {
		got, ok := parseDate(s)
		if !ok || got.Unix() != 1175024202 {
			t.Errorf("parseDate(%q) = %v, %v", s, got, ok)
		}
	}
	if got, ok := parseDate("Tue, 6 Mar 2007 19:36:42 GMT"); !ok || got.Day() != 6 {
		t.Errorf("one-digit day: %v %v", got, ok)
	}
	for _, s := range []string{"", "yesterday", "1175024202", "Tue, 27 Mar 2007"} {
		if _, ok := parseDate(s); ok {
			t.Errorf("parseDate(%q) accepted", s)
		}
	}
}
