package sigv4

import (
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestURIEncode(t *testing.T) {
	cases := []struct {
		in        string
		keepSlash bool
		want      string
	}{
		{"", true, ""},
		{"A-Za-z0-9-_.~", false, "A-Za-z0-9-_.~"},
		{"a b", true, "a%20b"},
		{"a+b", true, "a%2Bb"},
		{"100%", true, "100%25"},
		{"a/b", true, "a/b"},
		{"a/b", false, "a%2Fb"},
		{"$&'()*,;=:@!", true, "%24%26%27%28%29%2A%2C%3B%3D%3A%40%21"},
		{"?#[]", true, "%3F%23%5B%5D"},
		{"ሴ", true, "%E1%88%B4"},
		{"\x00\xff", true, "%00%FF"},
	}
	for _, c := range cases {
		if got := uriEncode(c.in, c.keepSlash); got != c.want {
			t.Errorf("uriEncode(%q, %v) = %q, want %q", c.in, c.keepSlash, got, c.want)
		}
	}
}

// S3 never normalises the path: these keys are distinct objects.
func TestCanonicalURINoNormalisation(t *testing.T) {
	cases := map[string]string{
		"":               "/",
		"/":              "/",
		"/b/a//b":        "/b/a//b",
		"/b/../x":        "/b/../x",
		"/b/./":          "/b/./",
		"//":             "//",
		"/b/dir/":        "/b/dir/",
		"/b/with space":  "/b/with%20space",
		"/b/test$file":   "/b/test%24file",
		"/b/%2F":         "/b/%252F",
		"/b/日本":          "/b/%E6%97%A5%E6%9C%AC",
		"/b/q?x#y":       "/b/q%3Fx%23y",
		"/b/plus+sign~.": "/b/plus%2Bsign~.",
	}
	for in, want := range cases {
		if got := canonicalURI(in); got != want {
			t.Errorf("canonicalURI(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseQuery(t *testing.T) {
	got := ParseQuery("a=1&&b&c=&d=x%20y+z&%zz=%&=v&e=f=g")
	want := []QueryParam{
		{"a", "1"}, {"b", ""}, {"c", ""}, {"d", "x y z"}, {"%zz", "%"}, {"", "v"}, {"e", "f=g"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parseQuery = %q\nwant %q", got, want)
	}
	if ParseQuery("") != nil {
		t.Fatal("empty query must have no params")
	}
}

func TestCanonicalQuery(t *testing.T) {
	cases := []struct{ raw, skip, want string }{
		{"", "", ""},
		{"lifecycle", "", "lifecycle="},
		{"prefix=J&max-keys=2", "", "max-keys=2&prefix=J"},
		{"k=b&k=a&K=c", "", "K=c&k=a&k=b"},
		{"a=x%2Fy&a=x-y", "", "a=x%2Fy&a=x-y"}, // sorted after encoding: '%' < '-'
		{"p=a+b&q=a%2Bb&r=a%20b", "", "p=a%20b&q=a%2Bb&r=a%20b"},
		{"X-Amz-Signature=abc&X-Amz-Date=1", paramSignature, "X-Amz-Date=1"},
		{"%E1%88%B4=bar&ሴ=baz", "", "%E1%88%B4=bar&%E1%88%B4=baz"},
	}
	for _, c := range cases {
		if got := canonicalQuery(ParseQuery(c.raw), c.skip); got != c.want {
			t.Errorf("canonicalQuery(%q) = %q, want %q", c.raw, got, c.want)
		}
	}
}

func TestTrimAll(t *testing.T) {
	cases := map[string]string{
		"":               "",
		"  a  ":          "a",
		"a   b    c":     "a b c",
		"\t a \t":        "a",
		`"a   b   c"`:    `"a b c"`,
		"a\t\tb":         "a\t\tb",
		" x  y ,  z  w ": "x y , z w",
	}
	for in, want := range cases {
		if got := trimAll(in); got != want {
			t.Errorf("trimAll(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHeaderValues(t *testing.T) {
	r := httptest.NewRequest(http.MethodPut, "http://h.example:9000/b/k", strings.NewReader("12345"))
	r.Header["x-amz-meta-raw"] = []string{"direct"} // not MIME-canonical
	r.Header.Add("X-Amz-Meta-Two", "a")
	r.Header.Add("X-Amz-Meta-Two", "b")
	cases := map[string][]string{
		"host":              {"h.example:9000"},
		"content-length":    {"5"}, // from r.ContentLength: httptest sets no header
		"transfer-encoding": nil,
		"x-amz-meta-raw":    {"direct"},
		"x-amz-meta-two":    {"a", "b"},
		"x-amz-absent":      nil,
	}
	for name, want := range cases {
		if got := headerValues(r, name); !reflect.DeepEqual(got, want) {
			t.Errorf("headerValues(%q) = %q, want %q", name, got, want)
		}
	}
	r.TransferEncoding = []string{"chunked"}
	r.ContentLength = -1
	if got := headerValues(r, "transfer-encoding"); !reflect.DeepEqual(got, []string{"chunked"}) {
		t.Errorf("transfer-encoding = %q", got)
	}
	if got := headerValues(r, "content-length"); got != nil {
		t.Errorf("content-length of unknown length = %q", got)
	}
	r.Host = ""
	if got := headerValues(r, "host"); !reflect.DeepEqual(got, []string{"h.example:9000"}) {
		t.Errorf("host from URL = %q", got)
	}
}

// TestServerMovedHeaders signs content-length and transfer-encoding and sends
// the requests through net/http, which keeps Content-Length in r.Header but
// moves Transfer-Encoding to r.TransferEncoding.
func TestServerMovedHeaders(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	v := &Verifier{Credentials: staticCreds{"AK": "SK"}, Now: fixedNow(now)}
	type seen struct {
		err         error
		hasTEHeader bool
		te          []string
		cl          []string
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := v.Verify(r)
		_, _ = io.Copy(io.Discard, r.Body)
		_, te := r.Header["Transfer-Encoding"]
		got <- seen{err, te, r.TransferEncoding, r.Header.Values("Content-Length")}
	}))
	defer srv.Close()

	sign := func(r *http.Request, names []string) {
		r.Header.Set("X-Amz-Date", now.Format(AmzDateFormat))
		r.Header.Set("X-Amz-Content-Sha256", UnsignedPayload)
		signRequestHeaders(r, "s3", "AK", "SK", DefaultRegion, now, UnsignedPayload, names)
	}

	// Known length: the client sets Content-Length from r.ContentLength.
	r, _ := http.NewRequest(http.MethodPut, srv.URL+"/b/k", strings.NewReader("12345"))
	sign(r, []string{"content-length", "host", "x-amz-content-sha256", "x-amz-date"})
	if _, err := http.DefaultClient.Do(r); err != nil {
		t.Fatal(err)
	}
	s := <-got
	if s.err != nil || !reflect.DeepEqual(s.cl, []string{"5"}) {
		t.Errorf("content-length: %+v", s)
	}

	// Unknown length: chunked transfer encoding.
	r, _ = http.NewRequest(http.MethodPut, srv.URL+"/b/k", io.NopCloser(strings.NewReader("chunked body")))
	r.ContentLength = -1
	r.TransferEncoding = []string{"chunked"}
	sign(r, []string{"host", "transfer-encoding", "x-amz-content-sha256", "x-amz-date"})
	if _, err := http.DefaultClient.Do(r); err != nil {
		t.Fatal(err)
	}
	s = <-got
	if s.err != nil || s.hasTEHeader || !reflect.DeepEqual(s.te, []string{"chunked"}) || s.cl != nil {
		t.Errorf("transfer-encoding: %+v", s)
	}
}

func TestCanonicalRequestS3Example(t *testing.T) {
	// The canonical request printed in the S3 documentation for GET Object.
	const want = "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n" +
		"x-amz-content-sha256:" + EmptySHA256 + "\nx-amz-date:20130524T000000Z\n\n" +
		"host;range;x-amz-content-sha256;x-amz-date\n" + EmptySHA256
	r := exampleGetObject()
	got := canonicalRequest(r, "", []string{"host", "range", "x-amz-content-sha256", "x-amz-date"}, EmptySHA256)
	if got != want {
		t.Fatalf("canonical request\n%q\nwant\n%q", got, want)
	}
	const wantSTS = "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n" +
		"7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972"
	if sts := stringToSign(Algorithm, "20130524T000000Z", "20130524/us-east-1/s3/aws4_request", sha256Hex(got)); sts != wantSTS {
		t.Fatalf("string to sign\n%s\nwant\n%s", sts, wantSTS)
	}
}
