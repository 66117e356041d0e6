package sigv2_test

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/minio/minio-go/v7/pkg/signer"

	"github.com/jogstore/jog/internal/s3api"
	"github.com/jogstore/jog/internal/sigv2"
	"github.com/jogstore/jog/internal/sigv4"
)

const (
	fuzzAK     = "AKIAIOSFODNN7EXAMPLE"
	fuzzSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

type fuzzCreds struct{}

func (fuzzCreds) SecretKey(ak string) (string, bool) { return fuzzSecret, ak == fuzzAK }

// FuzzRoutingParamSigned: for any path, query and appended text, with the
// routing parameters the S3 edge hands the verifier:
//
//   - a request JOG's signer signs (header or presigned) verifies, and so
//     does one minio-go's signer signs for the same path;
//   - appending text in which the router's query parser (net/url, what
//     s3api.ParseRoute reads) finds a signed routing parameter — however it
//     is spelled on the wire: "%72etention", "retention=", a repeat — makes
//     the request fail to verify. That is the property that keeps a signed
//     request from being turned into another operation;
//   - nothing panics.
func FuzzRoutingParamSigned(f *testing.F) {
	for _, s := range [][3]string{
		{"/jog-bucket/k", "", "retention"},
		{"/jog-bucket/k", "acl", "%72etention"},
		{"/jog-bucket/k", "retention", "retention"},
		{"/jog-bucket/a b+c", "prefix=a&max-keys=2", "legal-hold="},
		{"/jog-bucket", "", "publicAccessBlock&x=1"},
		{"/jog-bucket", "uploads", "ownershipControls"},
		{"/jog-bucket", "list-type=2", "quota"},
		{"/jog-bucket", "", "reservation=abc"},
		{"/jog-bucket", "", "re%73ervations"},
		{"/jog-bucket", "", "policyStatus"},
		{"/jog-bucket/k", "versionId=v", "attributes"},
		{"/jog-bucket", "", "list-type=2"},
		{"/jog-bucket", "", "Retention;x"},
		{"/jog-bucket", "", "+retention"},
		{"/jog-bucket/caf\u00e9", "", "retention%00"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	signed := s3api.SignedRoutingParams()
	v := &sigv2.Verifier{Credentials: fuzzCreds{}, Routing: signed}
	f.Fuzz(func(t *testing.T, path, query, extra string) {
		if !strings.HasPrefix(path, "/") || !utf8.ValidString(path) {
			return
		}
		newRequest := func(query string) *http.Request {
			return &http.Request{Method: http.MethodGet, Header: http.Header{}, Host: "s3.jog.test",
				URL: &url.URL{Scheme: "http", Host: "s3.jog.test", Path: path, RawQuery: query}}
		}
		if sigv2.IsV2(newRequest(query)) {
			return // carries SigV2 query authentication already
		}
		routes := false
		if q, _ := url.ParseQuery(extra); q != nil {
			for k := range q {
				routes = routes || slices.Contains(signed, k)
			}
		}
		for _, presign := range []bool{false, true} {
			r := newRequest(query)
			if presign {
				sigv2.Presign(r, fuzzAK, fuzzSecret, time.Now().Add(time.Hour), signed...)
			} else {
				sigv2.Sign(r, fuzzAK, fuzzSecret, signed...)
			}
			if _, err := v.Verify(r); err != nil {
				if errors.Is(err, sigv4.ErrQueryMalformed) || errors.Is(err, sigv4.ErrMultipleAuth) {
					return // the query holds a malformed Expires or the like
				}
				t.Fatalf("signed %q ? %q (presigned %v): %v", path, query, presign, err)
			}
			if !routes {
				continue
			}
			r.URL.RawQuery += "&" + extra
			if _, err := v.Verify(r); err == nil {
				t.Fatalf("%q ? %q (presigned %v): still verifies with %q appended", path, query, presign, extra)
			}
		}
		if query == "" {
			r := signer.SignV2(*newRequest(""), fuzzAK, fuzzSecret, false)
			if _, err := v.Verify(r); err != nil {
				t.Fatalf("minio-go signed %q: %v", path, err)
			}
		}
	})
}
