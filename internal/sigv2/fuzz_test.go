package sigv2

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode"

	"github.com/jogstore/jog/internal/sigv4"
)

func FuzzParseV2Header(f *testing.F) {
	for _, s := range []string{
		"", "AWS", "AWS ", "AWS :", "AWS a:", "AWS :b", "AWS a:b", "AWS a:b:c", "AWS  a:b ", "AWS\ta:b",
		"AWS AKIAIOSFODNN7EXAMPLE:bWq2s1WEIj+Ydj0vQ697zp+IXMU=",
		"AWS4-HMAC-SHA256 Credential=AK/20130524/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00",
		"aws a:b", "AWS a:b\r\nX: y", "\x00AWS a:b", "AWS é:ü",
	} {
		f.Add(s)
	}
	v := testVerifier()
	f.Fuzz(func(t *testing.T, h string) {
		ak, sig, err := parseV2Header(h)
		if err == nil {
			bad := func(c rune) bool { return unicode.IsSpace(c) || unicode.IsControl(c) }
			if ak == "" || sig == "" || strings.IndexFunc(ak, bad) >= 0 || strings.IndexFunc(sig, bad) >= 0 || strings.Contains(sig, ":") {
				t.Fatalf("accepted %q as %q, %q", h, ak, sig)
			}
			if got := "AWS " + ak + ":" + sig; got != strings.Join(strings.Fields(h), " ") {
				t.Fatalf("%q parsed as %q", h, got)
			}
		} else if !errors.Is(err, sigv4.ErrAuthHeaderMalformed) && !errors.Is(err, sigv4.ErrUnsupportedAlgorithm) {
			t.Fatalf("%q: unexpected error %v", h, err)
		}
		r := signedRequest()
		r.Header["Authorization"] = []string{h}
		res, err := v.Verify(r)
		if (res == nil) == (err == nil) {
			t.Fatalf("Verify(%q) = %v, %v", h, res, err)
		}
		if err == nil && h != signedRequest().Header.Get("Authorization") && strings.TrimSpace(h) != signedRequest().Header.Get("Authorization") {
			t.Fatalf("Verify accepted a foreign header %q", h)
		}
	})
}

func FuzzVerifyQuery(f *testing.F) {
	for _, s := range []string{
		"", "&&&", "=", "%zz=%", "AWSAccessKeyId", "Signature=&Signature=", "Expires=99999999999999999999",
		"AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Signature=NpgCjnDzrM%2BWFzoENXmpNDUsSn8%3D&Expires=1175139620",
		"acl&versionId=%00&response-content-type=a%0Ab&x-amz-meta-a=1&X-AMZ-META-A=2",
		"AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Signature=+&Expires=+1",
	} {
		f.Add("/jog-bucket/k", s)
	}
	v := testVerifier()
	f.Fuzz(func(t *testing.T, path, query string) {
		r := httptest.NewRequest(http.MethodGet, "http://s3.jog.test/", nil)
		r.URL.Path, r.URL.RawQuery = path, query
		r.RequestURI = ""
		res, err := v.Verify(r)
		if (res == nil) == (err == nil) {
			t.Fatalf("Verify(%q, %q) = %v, %v", path, query, res, err)
		}
		_ = IsV2(r)
		Presign(r, exampleAK, exampleSecret, testNow.Add(1))
		if res, err := v.Verify(r); err != nil && !errors.Is(err, sigv4.ErrQueryMalformed) && !errors.Is(err, sigv4.ErrMultipleAuth) {
			t.Fatalf("Presign then Verify(%q, %q) = %v, %v", path, query, res, err)
		}
	})
}
