package s3api

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestSandboxDocuments: with the console on the same origin, an object a
// browser would run scripts in is served as a sandbox, whatever gives it
// its type (stored, or response-content-type); other types are not; and
// without the option nothing changes.
func TestSandboxDocuments(t *testing.T) {
	s := newFuzzServer(t)
	s.reset(t)
	put := func(key, ct string) {
		t.Helper()
		r, _ := s.buildRequest(http.MethodPut, "/fuzz/"+key, "Content-Type: "+ct, []byte("<svg onload=alert(1)>"), payloadSHA256)
		w := httptest.NewRecorder()
		s.h.ServeHTTP(w, r)
		if w.Code != 200 {
			t.Fatalf("PUT %s: %d %s", key, w.Code, w.Body)
		}
	}
	get := func(target string) http.Header {
		t.Helper()
		r, _ := s.buildRequest(http.MethodGet, target, "", nil, payloadSHA256)
		w := httptest.NewRecorder()
		s.h.ServeHTTP(w, r)
		if w.Code != 200 {
			t.Fatalf("GET %s: %d %s", target, w.Code, w.Body)
		}
		return w.Header()
	}
	put("page.html", "text/html; charset=utf-8")
	put("pic.svg", "image/svg+xml")
	put("pic.png", "image/png")
	s.h.cfg.SandboxDocuments = true
	for target, want := range map[string]string{
		"/fuzz/page.html": "sandbox", "/fuzz/pic.svg": "sandbox", "/fuzz/pic.png": "",
		"/fuzz/pic.png?response-content-type=text%2Fhtml": "sandbox",
	} {
		h := get(target)
		if got := h.Get("Content-Security-Policy"); got != want {
			t.Errorf("GET %s: Content-Security-Policy %q, want %q", target, got, want)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no nosniff", target)
		}
	}
	s.h.cfg.SandboxDocuments = false
	if h := get("/fuzz/page.html"); h.Get("Content-Security-Policy") != "" {
		t.Errorf("without the console: Content-Security-Policy %q", h.Get("Content-Security-Policy"))
	}
}
