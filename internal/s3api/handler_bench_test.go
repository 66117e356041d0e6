package s3api

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jogstore/jog/internal/service"
)

// BenchmarkHandlerObject measures the handler's PUT and GET of a 1 KiB
// object in an unversioned bucket (no lifecycle, no lock): the hot path,
// without the network, over the real stores with syncs off. One signed
// request is replayed (UNSIGNED-PAYLOAD, so the body may change).
func BenchmarkHandlerObject(b *testing.B) {
	s := newFuzzServer(b)
	ctx := context.Background()
	if err := s.svc.CreateBucket(ctx, fuzzBucket, fuzzRegion, fuzzAccessKey); err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat([]byte("x"), 1024)
	if _, err := s.svc.PutObject(ctx, service.PutInput{Bucket: fuzzBucket, Key: "k", Body: bytes.NewReader(data),
		Size: int64(len(data)), Owner: fuzzAccessKey}); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		method string
		body   []byte
	}{{http.MethodGet, nil}, {http.MethodPut, data}} {
		b.Run(tc.method, func(b *testing.B) {
			req, ok := s.buildRequest(tc.method, "/"+fuzzBucket+"/k", "", tc.body, payloadUnsigned)
			if !ok {
				b.Fatal("request not built")
			}
			b.ReportAllocs()
			for b.Loop() {
				r := req.Clone(ctx)
				r.Body = http.NoBody
				if tc.body != nil {
					r.Body = io.NopCloser(bytes.NewReader(tc.body))
				}
				rec := httptest.NewRecorder()
				s.h.ServeHTTP(rec, r)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", tc.method, rec.Code, rec.Body)
				}
			}
		})
	}
}
