package s3api

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jogstore/jog/internal/iam/policy"
)

type recorder []Record

func (r *recorder) Observe(rec *Record) { *r = append(*r, *rec) }

// TestObserverRecords checks that each request's Record tells what was
// asked and what was answered: a PUT's bytes in, a GET's bytes out, a
// refusal's S3 code, an unsigned request as anonymous.
func TestObserverRecords(t *testing.T) {
	s := newFuzzServer(t)
	s.reset(t)
	var got recorder
	s.h.cfg.Observer = Observers{&got}
	send := func(method, target string, body string, sign bool) {
		t.Helper()
		r, ok := s.buildRequest(method, target, "", []byte(body), payloadSHA256)
		if !ok {
			t.Fatalf("%s %s: request not built", method, target)
		}
		if !sign {
			r.Header.Del("Authorization")
		}
		s.h.ServeHTTP(httptest.NewRecorder(), r)
	}
	send(http.MethodPut, "/fuzz/obj", "twelve bytes", true)
	send(http.MethodGet, "/fuzz/obj", "", true)
	send(http.MethodGet, "/fuzz/missing", "", true)
	send(http.MethodGet, "/fuzz/obj", "", false)
	if len(got) != 4 {
		t.Fatalf("%d records, want 4", len(got))
	}
	put, get, missing, anon := got[0], got[1], got[2], got[3]
	if put.Op != OpPutObject || put.Bucket != "fuzz" || put.Key != "obj" || put.Status != 200 || put.Code != "" ||
		put.BytesIn != 12 || put.AccessKey != fuzzAccessKey || put.Principal.Type != policy.Root || put.ID == "" {
		t.Errorf("PUT record: %+v", put)
	}
	if get.Op != OpGetObject || get.Status != 200 || get.BytesOut != 12 || get.BytesIn != 0 ||
		get.FirstByte <= 0 || get.FirstByte > get.Duration || get.Request == nil || get.Request.URL.Path != "/fuzz/obj" {
		t.Errorf("GET record: %+v", get)
	}
	if missing.Status != 404 || missing.Code != "NoSuchKey" || missing.Op != OpGetObject {
		t.Errorf("missing-key record: %+v", missing)
	}
	if anon.Status != 403 || anon.Code != "AccessDenied" || anon.Principal.Type != policy.Anonymous || anon.AccessKey != "" {
		t.Errorf("anonymous record: %+v", anon)
	}
}
