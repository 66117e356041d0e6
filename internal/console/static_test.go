package console

import (
	"compress/gzip"
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/sts"
)

// TestStatic: the UI's files with their CSP and caching; index.html for
// the UI's routes; 404 for a missing asset; gzip when accepted; 304 for
// a known ETag.
func TestStatic(t *testing.T) {
	js := "console.log('" + strings.Repeat("jog ", 500) + "');"
	files := fstest.MapFS{
		"index.html":             {Data: []byte("<!doctype html><script src=\"assets/app-3f9a1c2e.js\"></script>")},
		"assets/app-3f9a1c2e.js": {Data: []byte(js)},
		"favicon.svg":            {Data: []byte("<svg/>")},
	}
	key := make([]byte, keyring.KeySize)
	rand.Read(key)
	kr, _ := keyring.New(key)
	h, err := New(Config{Handler: http.NotFoundHandler(), Sealer: kr, Keys: sts.Keys{STS: sts.New(nil, kr, sts.Options{})},
		Authorizer: authz.New("123456789012", authz.Options{}), UI: files})
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string, hdr ...string) *http.Response {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Result()
	}
	body := func(resp *http.Response) string {
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}

	for _, path := range []string{"/console/", "/console/b/photos/2024/cat.jpg", "/console/b/photos/"} {
		resp := get(path)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body(resp), "<script src=") {
			t.Errorf("%s: %s, want index.html", path, resp.Status)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self';") || strings.Contains(csp, "unsafe-inline") ||
			!strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: CSP %q", path, csp)
		}
		if cc := resp.Header.Get("Cache-Control"); cc != "no-cache" {
			t.Errorf("%s: Cache-Control %q", path, cc)
		}
	}
	if resp := get("/console/assets/missing-1234abcd.js"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a missing asset: %s, want 404", resp.Status)
	}
	resp := get("/console/assets/app-3f9a1c2e.js")
	if resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || body(resp) != js || resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("hashed asset: %v", resp.Header)
	}
	if resp := get("/console/favicon.svg"); resp.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("an unhashed file is cached: %v", resp.Header)
	}
	resp = get("/console/assets/app-3f9a1c2e.js", "Accept-Encoding", "br, gzip")
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("not gzipped: %v", resp.Header)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(zr); string(b) != js {
		t.Error("the gzip copy differs")
	}
	if resp := get("/console/assets/app-3f9a1c2e.js", "Accept-Encoding", "gzip;q=0"); resp.Header.Get("Content-Encoding") != "" {
		t.Error("gzip sent though refused (q=0)")
	}
	etag := get("/console/").Header.Get("ETag")
	if resp := get("/console/", "If-None-Match", etag); etag == "" || resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match %q: %s", etag, resp.Status)
	}
}
