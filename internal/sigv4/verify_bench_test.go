package sigv4

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkVerify measures the authentication of one request, as every
// request pays it: a PUT signed in its Authorization header, with the
// headers an SDK sends, and a presigned GET. The signing key comes from the
// cache after the first request, as it does in a server.
func BenchmarkVerify(b *testing.B) {
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	v := &Verifier{Credentials: staticCreds{"AKIDEXAMPLE": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"}, Now: fixedNow(now)}
	put := httptest.NewRequest(http.MethodPut, "http://127.0.0.1:9000/bench/prefix/obj/123456", nil)
	put.Header.Set("Content-Type", "application/octet-stream")
	put.Header.Set("Content-Length", "65536")
	put.Header.Set("User-Agent", "aws-sdk-go-v2/1.36.3 ua/2.1 os/linux lang/go#1.26 md/GOOS#linux md/GOARCH#amd64 api/s3#1.79.3")
	put.Header.Set("Amz-Sdk-Invocation-Id", "b9ef5c1c-5d2a-4f5e-9b39-0c1b5ab0e7a3")
	put.Header.Set("Amz-Sdk-Request", "attempt=1; max=3")
	put.Header.Set("X-Amz-Checksum-Crc32", "AAAAAA==")
	SignRequest(put, "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", DefaultRegion, now, UnsignedPayload)
	get := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:9000/bench/prefix/obj/123456?versionId=null", nil)
	PresignRequest(get, "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", DefaultRegion, now, time.Hour)
	for _, c := range []struct {
		name string
		r    *http.Request
	}{{"header", put}, {"presigned", get}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Verify(c.r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
