package sigv4

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func FuzzParseAuthorization(f *testing.F) {
	seeds := []string{
		"",
		"AWS4-HMAC-SHA256",
		"AWS4-HMAC-SHA256 ",
		"AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
		"AWS4-HMAC-SHA256 Credential=AK/20130524/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00",
		"AWS4-HMAC-SHA256 Credential=a/b/c/d/e/f/g, SignedHeaders=;;host;;, Signature=",
		"AWS4-HMAC-SHA256 Credential==,=,=,,,Signature",
		"AWS4-ECDSA-P256-SHA256 Credential=AK/20130524/s3/aws4_request, SignedHeaders=host, Signature=00",
		"AWS AKIAIOSFODNN7EXAMPLE:frJIUN8DYpKDtOLCwo//yllqDzg=",
		"AWS4-HMAC-SHA256 Credential=/////, SignedHeaders=HOST, Signature=x",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	v := exampleVerifier()
	f.Fuzz(func(t *testing.T, h string) {
		a, err := parseAuthorization(h)
		if err == nil {
			if a.cred.accessKey == "" || a.signature == "" || len(a.signedHeaders) == 0 {
				t.Fatalf("accepted %q as %+v", h, a)
			}
			host := false
			for _, n := range a.signedHeaders {
				if n == "" {
					t.Fatalf("empty signed header name from %q", h)
				}
				host = host || strings.EqualFold(n, "host")
			}
			if !host {
				t.Fatalf("accepted %q without host", h)
			}
		}
		r := exampleGetObject()
		r.Header["Authorization"] = []string{h}
		if res, err := v.Verify(r); (res == nil) == (err == nil) {
			t.Fatalf("Verify(%q) = %v, %v", h, res, err)
		}
	})
}

func FuzzPresignedQuery(f *testing.F) {
	seeds := []string{
		"",
		"&&&",
		"=",
		"%zz=%",
		"X-Amz-Algorithm",
		"X-Amz-Signature=&X-Amz-Signature=",
		"X-Amz-Expires=99999999999999999999999",
		"X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AK%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=1&X-Amz-SignedHeaders=host&X-Amz-Signature=00",
		strings.TrimPrefix(examplePresigned, exampleHost+"/test.txt?"),
		"AWSAccessKeyId=AK&Signature=x&Expires=1",
		"a=1;b=2&c=%E1%88%B4+x",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	v := exampleVerifier()
	f.Fuzz(func(t *testing.T, raw string) {
		params := ParseQuery(raw)
		cq := canonicalQuery(params, paramSignature)
		for i := 0; i < len(cq); i++ {
			if c := cq[i]; !unreserved(c) && c != '%' && c != '=' && c != '&' {
				t.Fatalf("canonical query %q has raw byte %q", cq, c)
			}
		}
		if p, err := parsePresigned(params); err == nil {
			if p.expires <= 0 || p.expires > MaxPresignExpires || p.signature == "" || p.cred.accessKey == "" {
				t.Fatalf("accepted %q as %+v", raw, p)
			}
		}
		r := &http.Request{
			Method: http.MethodGet,
			URL:    &url.URL{Path: "/test.txt", RawQuery: raw},
			Host:   "examplebucket.s3.amazonaws.com",
			Header: http.Header{},
		}
		if res, err := v.Verify(r); (res == nil) == (err == nil) {
			t.Fatalf("Verify(%q) = %v, %v", raw, res, err)
		}
	})
}

// FuzzParseDate: whatever ParseDate accepts is a whole second in UTC that
// reads back the same from its RFC 1123 form.
func FuzzParseDate(f *testing.F) {
	for _, s := range []string{
		"Tue, 24 Nov 2026 10:00:00 GMT", "Tue, 24 Nov 2026 10:00:00 -0000", "Tue, 24 Nov 2026 10:00:00 +2359",
		"Tuesday, 24-Nov-26 10:00:00 GMT", "Tue Nov 24 10:00:00 2026", "20261124T100000Z",
		"Tue, 24 Nov 2026 10:00:00 PST", "Tue, 31 Nov 2026 10:00:00 GMT", "", "\x00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseDate(s)
		if !ok {
			if !got.IsZero() {
				t.Fatalf("refused %q but returned %v", s, got)
			}
			return
		}
		if got.Location() != time.UTC || got.Nanosecond() != 0 {
			t.Fatalf("ParseDate(%q) = %v: not a whole second in UTC", s, got)
		}
		if back, ok := ParseDate(got.Format(http.TimeFormat)); !ok || !back.Equal(got) {
			t.Fatalf("ParseDate(%q) = %v, which reads back as %v, %v", s, got, back, ok)
		}
	})
}
