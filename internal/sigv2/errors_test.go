package sigv2

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/sigv4"
)

var testNow = time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)

// signedRequest is a header-signed PUT with metadata and a sub-resource.
func signedRequest() *http.Request {
	r := httptest.NewRequest(http.MethodPut, "http://s3.jog.test/jog-bucket/a%20b+c?tagging&prefix=x", strings.NewReader("hi"))
	r.Header.Set("Date", testNow.Format(http.TimeFormat))
	r.Header.Set("Content-Type", "text/plain")
	r.Header.Set("X-Amz-Meta-A", "1")
	Sign(r, exampleAK, exampleSecret)
	return r
}

func testVerifier() *Verifier {
	return &Verifier{Credentials: exampleCreds, Now: fixedNow(testNow)}
}

func TestHeaderMutations(t *testing.T) {
	if _, err := testVerifier().Verify(signedRequest()); err != nil {
		t.Fatalf("unmodified request: %v", err)
	}
	cases := []struct {
		name   string
		mutate func(*http.Request, *Verifier)
		want   error // nil: still valid
	}{
		{"content type changed", func(r *http.Request, _ *Verifier) { r.Header.Set("Content-Type", "text/html") }, sigv4.ErrSignatureDoesNotMatch},
		{"content md5 added", func(r *http.Request, _ *Verifier) { r.Header.Set("Content-Md5", "XUFAKrxLKna5cZ2REBfFkg==") }, sigv4.ErrSignatureDoesNotMatch},
		{"amz header changed", func(r *http.Request, _ *Verifier) { r.Header.Set("X-Amz-Meta-A", "2") }, sigv4.ErrSignatureDoesNotMatch},
		{"amz header added", func(r *http.Request, _ *Verifier) { r.Header.Set("X-Amz-Acl", "public-read") }, sigv4.ErrSignatureDoesNotMatch},
		{"amz header value repeated", func(r *http.Request, _ *Verifier) { r.Header.Add("X-Amz-Meta-A", "1") }, sigv4.ErrSignatureDoesNotMatch},
		{"method changed", func(r *http.Request, _ *Verifier) { r.Method = http.MethodPost }, sigv4.ErrSignatureDoesNotMatch},
		{"sub-resource added", func(r *http.Request, _ *Verifier) { r.URL.RawQuery += "&acl"; r.RequestURI += "&acl" }, sigv4.ErrSignatureDoesNotMatch},
		{"sub-resource removed", func(r *http.Request, _ *Verifier) {
			r.URL.RawQuery = "prefix=x"
			r.RequestURI = "/jog-bucket/a%20b+c?prefix=x"
		}, sigv4.ErrSignatureDoesNotMatch},
		{"key changed", func(r *http.Request, _ *Verifier) { r.RequestURI = "/jog-bucket/a%20b+d?tagging&prefix=x" }, sigv4.ErrSignatureDoesNotMatch},
		// Same key, but the client signed "+" and a non-AWS encoding.
		{"path sent with another encoding than signed", func(r *http.Request, _ *Verifier) {
			r.RequestURI = "/jog-bucket/a%20b%2Bc?tagging&prefix=x"
		}, sigv4.ErrSignatureDoesNotMatch},
		{"bucket changed", func(r *http.Request, _ *Verifier) { r.RequestURI = "/jog-bucket2/a%20b+c?tagging&prefix=x" }, sigv4.ErrSignatureDoesNotMatch},
		{"non-sub-resource parameter changed", func(r *http.Request, _ *Verifier) { r.URL.RawQuery = "tagging&prefix=y" }, nil},
		{"unsigned header added", func(r *http.Request, _ *Verifier) { r.Header.Set("User-Agent", "x") }, nil},
		{"virtual host under another domain", func(r *http.Request, _ *Verifier) { r.Host = "jog-bucket.example.com" }, nil},
		{"virtual host under the domain", func(r *http.Request, v *Verifier) { r.Host = "other.s3.jog.test"; v.Domain = "s3.jog.test" }, sigv4.ErrSignatureDoesNotMatch},
		{"wrong secret", func(_ *http.Request, v *Verifier) { v.Credentials = staticCreds{exampleAK: "not the secret"} }, sigv4.ErrSignatureDoesNotMatch},
		{"unknown access key", func(_ *http.Request, v *Verifier) { v.Credentials = staticCreds{"OTHER": exampleSecret} }, sigv4.ErrInvalidAccessKeyID},
		{"no credentials", func(_ *http.Request, v *Verifier) { v.Credentials = nil }, sigv4.ErrInvalidAccessKeyID},
		{"clock 14 minutes ahead", func(_ *http.Request, v *Verifier) { v.Now = fixedNow(testNow.Add(14 * time.Minute)) }, nil},
		{"clock 16 minutes ahead", func(_ *http.Request, v *Verifier) { v.Now = fixedNow(testNow.Add(16 * time.Minute)) }, sigv4.ErrRequestTimeTooSkewed},
		{"clock 16 minutes behind", func(_ *http.Request, v *Verifier) { v.Now = fixedNow(testNow.Add(-16 * time.Minute)) }, sigv4.ErrRequestTimeTooSkewed},
		{"custom max skew", func(_ *http.Request, v *Verifier) {
			v.MaxSkew = time.Minute
			v.Now = fixedNow(testNow.Add(2 * time.Minute))
		}, sigv4.ErrRequestTimeTooSkewed},
		{"date changed", func(r *http.Request, _ *Verifier) {
			r.Header.Set("Date", testNow.Add(time.Second).Format(http.TimeFormat))
		}, sigv4.ErrSignatureDoesNotMatch},
		{"date removed", func(r *http.Request, _ *Verifier) { r.Header.Del("Date") }, sigv4.ErrMissingDate},
		{"date unparsable", func(r *http.Request, _ *Verifier) { r.Header.Set("Date", "yesterday") }, sigv4.ErrMissingDate},
		{"x-amz-date unparsable", func(r *http.Request, _ *Verifier) { r.Header.Set("X-Amz-Date", "soon") }, sigv4.ErrMissingDate},
		{"x-amz-date added", func(r *http.Request, _ *Verifier) { r.Header.Set("X-Amz-Date", testNow.Format(time.RFC1123Z)) }, sigv4.ErrSignatureDoesNotMatch},
		{"signature not base64", func(r *http.Request, _ *Verifier) { r.Header.Set("Authorization", "AWS "+exampleAK+":!!!") }, sigv4.ErrSignatureDoesNotMatch},
		{"signature of another request", func(r *http.Request, _ *Verifier) {
			r.Header.Set("Authorization", "AWS "+exampleAK+":bWq2s1WEIj+Ydj0vQ697zp+IXMU=")
		}, sigv4.ErrSignatureDoesNotMatch},
		{"second Authorization header", func(r *http.Request, _ *Verifier) { r.Header.Add("Authorization", r.Header.Get("Authorization")) }, sigv4.ErrAuthHeaderMalformed},
		{"signature v4 header", func(r *http.Request, _ *Verifier) {
			r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+exampleAK+"/20260504/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00")
		}, sigv4.ErrUnsupportedAlgorithm},
		{"presigned parameters too", func(r *http.Request, _ *Verifier) { r.URL.RawQuery += "&AWSAccessKeyId=x&Signature=y&Expires=1" }, sigv4.ErrMultipleAuth},
		{"no authentication", func(r *http.Request, _ *Verifier) { r.Header.Del("Authorization") }, sigv4.ErrMissingAuth},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, v := signedRequest(), testVerifier()
			c.mutate(r, v)
			res, err := v.Verify(r)
			switch {
			case c.want == nil && err != nil:
				t.Fatalf("Verify: %v, want success", err)
			case c.want != nil && !errors.Is(err, c.want):
				t.Fatalf("Verify: %v, want %v", err, c.want)
			case (res == nil) == (err == nil):
				t.Fatalf("Verify returned %v and %v", res, err)
			}
		})
	}
}

func TestMalformedHeader(t *testing.T) {
	for _, h := range []string{
		"", "AWS", "AWS ", "AWS AKID", "AWS AKID:", "AWS :sig", "AWS a:b:c", "AWS a b:c", "AWS a:b c",
		"AWS\tAKID:sig", "AWS AKID :sig",
	} {
		r := signedRequest()
		r.Header["Authorization"] = []string{h}
		_, err := testVerifier().Verify(r)
		if !errors.Is(err, sigv4.ErrAuthHeaderMalformed) && !errors.Is(err, sigv4.ErrUnsupportedAlgorithm) {
			t.Errorf("%q: %v, want ErrAuthHeaderMalformed", h, err)
		}
	}
	for _, h := range []string{"  AWS AKIAIOSFODNN7EXAMPLE:sig  ", "AWS   AKIAIOSFODNN7EXAMPLE:sig"} {
		ak, sig, err := parseV2Header(h)
		if err != nil || ak != exampleAK || sig != "sig" {
			t.Errorf("%q: %q %q %v", h, ak, sig, err)
		}
	}
}

// presignedRequest is a presigned GET valid for an hour from testNow.
func presignedRequest() *http.Request {
	r := httptest.NewRequest(http.MethodGet, "http://s3.jog.test/jog-bucket/k%2By?versionId=3", nil)
	r.RequestURI = ""
	Presign(r, exampleAK, exampleSecret, testNow.Add(time.Hour))
	r.RequestURI = r.URL.RequestURI()
	return r
}

func TestPresignedMutations(t *testing.T) {
	setQuery := func(r *http.Request, q string) { r.URL.RawQuery = q; r.RequestURI = r.URL.Path + "?" + q }
	cases := []struct {
		name   string
		mutate func(*http.Request, *Verifier)
		want   error
	}{
		{"unmodified", func(*http.Request, *Verifier) {}, nil},
		{"at the deadline", func(_ *http.Request, v *Verifier) { v.Now = fixedNow(testNow.Add(time.Hour)) }, nil},
		{"a second late", func(_ *http.Request, v *Verifier) { v.Now = fixedNow(testNow.Add(time.Hour + time.Second)) }, sigv4.ErrExpired},
		{"unknown access key", func(_ *http.Request, v *Verifier) { v.Credentials = staticCreds{} }, sigv4.ErrInvalidAccessKeyID},
		{"wrong secret", func(_ *http.Request, v *Verifier) { v.Credentials = staticCreds{exampleAK: "x"} }, sigv4.ErrSignatureDoesNotMatch},
		{"expires extended", func(r *http.Request, _ *Verifier) {
			setQuery(r, strings.Replace(r.URL.RawQuery, "Expires=", "Expires=1", 1))
		}, sigv4.ErrSignatureDoesNotMatch},
		{"version changed", func(r *http.Request, _ *Verifier) {
			setQuery(r, strings.Replace(r.URL.RawQuery, "versionId=3", "versionId=4", 1))
		}, sigv4.ErrSignatureDoesNotMatch},
		{"method changed", func(r *http.Request, _ *Verifier) { r.Method = http.MethodDelete }, sigv4.ErrSignatureDoesNotMatch},
		{"amz header added", func(r *http.Request, _ *Verifier) { r.Header.Set("X-Amz-Acl", "public-read") }, sigv4.ErrSignatureDoesNotMatch},
		{"amz query parameter added", func(r *http.Request, _ *Verifier) { setQuery(r, r.URL.RawQuery+"&x-amz-acl=public-read") }, sigv4.ErrSignatureDoesNotMatch},
		{"plus left unescaped in the signature", func(r *http.Request, _ *Verifier) {
			setQuery(r, strings.ReplaceAll(r.URL.RawQuery, "%2B", "+"))
		}, nil},
		{"missing Expires", func(r *http.Request, _ *Verifier) { setQuery(r, dropParam(r.URL.RawQuery, "Expires")) }, sigv4.ErrQueryMalformed},
		{"missing AWSAccessKeyId", func(r *http.Request, _ *Verifier) { setQuery(r, dropParam(r.URL.RawQuery, "AWSAccessKeyId")) }, sigv4.ErrQueryMalformed},
		{"missing Signature", func(r *http.Request, _ *Verifier) { setQuery(r, dropParam(r.URL.RawQuery, "Signature")) }, sigv4.ErrQueryMalformed},
		{"empty Signature", func(r *http.Request, _ *Verifier) { setQuery(r, dropParam(r.URL.RawQuery, "Signature")+"&Signature=") }, sigv4.ErrQueryMalformed},
		{"Expires not a number", func(r *http.Request, _ *Verifier) { setQuery(r, dropParam(r.URL.RawQuery, "Expires")+"&Expires=soon") }, sigv4.ErrQueryMalformed},
		{"Expires negative", func(r *http.Request, _ *Verifier) { setQuery(r, dropParam(r.URL.RawQuery, "Expires")+"&Expires=-1") }, sigv4.ErrQueryMalformed},
		{"Expires overflows", func(r *http.Request, _ *Verifier) {
			setQuery(r, dropParam(r.URL.RawQuery, "Expires")+"&Expires=99999999999999999999")
		}, sigv4.ErrQueryMalformed},
		{"Signature twice", func(r *http.Request, _ *Verifier) { setQuery(r, r.URL.RawQuery+"&Signature=x") }, sigv4.ErrQueryMalformed},
		{"Authorization header too", func(r *http.Request, _ *Verifier) { r.Header.Set("Authorization", "AWS a:b") }, sigv4.ErrMultipleAuth},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, v := presignedRequest(), testVerifier()
			c.mutate(r, v)
			res, err := v.Verify(r)
			switch {
			case c.want == nil && err != nil:
				t.Fatalf("Verify: %v, want success", err)
			case c.want != nil && !errors.Is(err, c.want):
				t.Fatalf("Verify: %v, want %v", err, c.want)
			case c.want == nil && (!res.Presigned || res.AccessKey != exampleAK):
				t.Fatalf("result %+v", res)
			}
		})
	}
}

func dropParam(q, name string) string {
	var keep []string
	for p := range strings.SplitSeq(q, "&") {
		if !strings.HasPrefix(p, name+"=") {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "&")
}

func TestIsV2(t *testing.T) {
	cases := []struct {
		authz, query string
		want         bool
	}{
		{"AWS AKID:sig", "", true},
		{" AWS AKID:sig", "", true},
		{"AWS", "", true},
		{"AWS4-HMAC-SHA256 Credential=x", "", false},
		{"Bearer x", "", false},
		{"", "AWSAccessKeyId=a&Signature=s&Expires=1", true},
		{"", "AWSAccessKeyId=a&Signature=s", true},
		{"", "AWSAccessKeyId=a&Expires=1", false},
		{"", "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=x", false},
		{"", "", false},
	}
	for _, c := range cases {
		r := httptest.NewRequest(http.MethodGet, "http://h/b/k?"+c.query, nil)
		if c.authz != "" {
			r.Header.Set("Authorization", c.authz)
		}
		if got := IsV2(r); got != c.want {
			t.Errorf("IsV2(%q, %q) = %v, want %v", c.authz, c.query, got, c.want)
		}
	}
}
