package s3api

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// TestUnsignedAmzHeaders: the x-amz-* headers a signature does not cover
// are named, whatever their case, for header and query signatures.
func TestUnsignedAmzHeaders(t *testing.T) {
	for _, tc := range []struct {
		name      string
		signed    string
		presigned bool
		headers   map[string]string
		want      string
	}{
		{"all signed", "host;x-amz-content-sha256;x-amz-date;x-amz-meta-a", false,
			map[string]string{"X-Amz-Meta-A": "1", "X-Amz-Date": "d", "X-Amz-Content-Sha256": "h"}, ""},
		{"date and payload hash need not be listed", "host", false,
			map[string]string{"X-Amz-Date": "d", "X-Amz-Content-Sha256": "h"}, ""},
		{"one missing", "host;x-amz-meta-a", false,
			map[string]string{"X-Amz-Meta-A": "1", "X-Amz-Copy-Source": "/b/k"}, "x-amz-copy-source"},
		{"sorted", "host", false,
			map[string]string{"X-Amz-Meta-B": "1", "X-Amz-Acl": "public-read"}, "x-amz-acl,x-amz-meta-b"},
		{"a prefix of a signed name is not signed", "host;x-amz-meta-ab", false,
			map[string]string{"X-Amz-Meta-A": "1"}, "x-amz-meta-a"},
		{"not x-amz", "host", false, map[string]string{"X-Amzfoo": "1", "Content-Type": "a/b"}, ""},
		{"presigned", "host;x-amz-acl", true,
			map[string]string{"X-Amz-Acl": "private", "X-Amz-Meta-Evil": "1"}, "x-amz-meta-evil"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := "/b/k"
			if tc.presigned {
				target += "?X-Amz-SignedHeaders=" + url.QueryEscape(tc.signed)
			}
			r := httptest.NewRequest(http.MethodPut, target, nil)
			if !tc.presigned {
				r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AK/20261129/us-east-1/s3/aws4_request, SignedHeaders="+tc.signed+", Signature=00")
			}
			for k, v := range tc.headers {
				r.Header[k] = []string{v} // as sent, not canonicalised
			}
			if got := unsignedAmzHeaders(r, tc.presigned); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
