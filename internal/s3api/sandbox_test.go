package s3api

import (
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/webmime"
)

// TestSandboxDocuments: an object a browser could run scripts in is
// served as a sandbox, whatever gives it its type (stored, or
// response-content-type), on GET and HEAD; a passive type is not; every
// object response says nosniff.
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
	get := func(method, target string) http.Header {
		t.Helper()
		r, _ := s.buildRequest(method, target, "", nil, payloadSHA256)
		w := httptest.NewRecorder()
		s.h.ServeHTTP(w, r)
		if w.Code != 200 {
			t.Fatalf("%s %s: %d %s", method, target, w.Code, w.Body)
		}
		return w.Header()
	}
	put("page.html", "text/html; charset=utf-8")
	put("pic.svg", "image/svg+xml")
	put("pic.png", "image/png")
	put("list", "text/plain, text/html")
	put("untyped", "")
	for target, want := range map[string]string{
		"/fuzz/page.html": "sandbox", "/fuzz/pic.svg": "sandbox", "/fuzz/pic.png": "", "/fuzz/list": "sandbox",
		"/fuzz/untyped": "", // binary/octet-stream
		"/fuzz/pic.png?response-content-type=text%2Fhtml":                                "sandbox",
		"/fuzz/pic.png?response-content-type=" + url.QueryEscape("image/png, text/html"): "sandbox",
		"/fuzz/page.html?response-content-type=text%2Fplain":                             "",
	} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			h := get(method, target)
			if got := h.Get("Content-Security-Policy"); got != want {
				t.Errorf("%s %s (Content-Type %q): Content-Security-Policy %q, want %q", method, target, h.Get("Content-Type"), got, want)
			}
			if h.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s %s: no nosniff", method, target)
			}
		}
	}
}

// TestPassiveContent: the types served without the sandbox, and the
// Content-Type values of issue 37 (Chromium rendered the HTML of each
// one, served without it), WHATWG's lists, parameters, case and
// whitespace, which must all be sandboxed.
func TestPassiveContent(t *testing.T) {
	for _, ct := range []string{
		"image/png", "IMAGE/PNG", "image/jpeg", "image/gif", "image/webp", "image/avif", "application/pdf",
		"text/plain", "text/plain; charset=utf-8", "Text/Plain;Charset=\"utf-8\"", " text/plain ", "text/plain;x=\"a;b\"",
		"application/json", "application/octet-stream", "binary/octet-stream", "video/mp4", "audio/mpeg",
	} {
		if !passiveContent(ct) {
			t.Errorf("%q is sandboxed, want it served as it is", ct)
		}
	}
	for _, ct := range []string{
		// Issue 37: Chromium takes a list's last valid type.
		"text/plain, text/html", "text/plain,text/html", "foo, text/html", "text/html, ",
		"application/octet-stream, text/html", "multipart/x-mixed-replace", "multipart/x-mixed-replace; boundary=x",
		"text/vnd.wap.wml",
		// Active types, by case, parameters and whitespace.
		"text/html", "TEXT/HTML", "text/html;charset=utf-8", " text/html ", "text/html ;x=y", "\ttext/html",
		"image/svg+xml", "IMAGE/SVG+XML", "text/xml", "application/xml", "application/xhtml+xml", "text/xsl",
		"application/rss+xml", "video/foo+xml", "text/javascript", "application/x-shockwave-flash",
		// Lists a browser reads as something passive: no list is served as one.
		"text/html, text/plain", "image/png, image/png", "text/plain, */*", `text/html;", text/plain`,
		`image/png;x=", text/html;y="`, "text/plain,",
		// Nothing a browser can read as a type.
		"", "text", "text/", "/html", "*/*", "text/plain(", "text/pla\"in",
	} {
		if passiveContent(ct) {
			t.Errorf("%q is served without the sandbox", ct)
		}
	}
}

// FuzzSandboxDecision: for any Content-Type value, the decision never
// panics, and a value served without the sandbox is one whose every
// reading is a passive type: the Fetch standard's (the list's last valid
// type), each element of the value split at every comma, the value up to
// its first ";" (what JOG read before issue 37), and Go's
// mime.ParseMediaType when it parses it.
func FuzzSandboxDecision(f *testing.F) {
	for _, s := range []string{
		"text/html", "image/png", "text/plain, text/html", "text/plain,text/html", "foo, text/html",
		"text/html, ", "application/octet-stream, text/html", "multipart/x-mixed-replace; boundary=x",
		"text/vnd.wap.wml", "image/svg+xml", `text/html;", text/plain`, `image/png;x=", text/html"`,
		"Text/Plain;Charset=\"utf-8\"", "application/pdf", "video/mp4", " text/plain\t", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ct string) {
		if !passiveContent(ct) {
			return
		}
		passive := func(reading, essence string) {
			if !passiveContent(essence) {
				t.Fatalf("%q is served without the sandbox, but %s reads it as %q, which is not passive", ct, reading, essence)
			}
		}
		m, ok := webmime.Extract(ct)
		if !ok {
			t.Fatalf("%q is served without the sandbox, but the Fetch standard extracts no type", ct)
		}
		passive("the Fetch standard", m.Essence())
		for _, el := range strings.Split(ct, ",") {
			if m, ok := webmime.Parse(el); ok {
				passive("an element split at commas", m.Essence())
			}
		}
		if first, _, _ := strings.Cut(ct, ";"); strings.Contains(first, "/") {
			if m, ok := webmime.Parse(first); ok {
				passive("the value up to its first ';'", m.Essence())
			}
		}
		if mt, _, err := mime.ParseMediaType(ct); err == nil {
			passive("mime.ParseMediaType", mt)
		}
		// What the standard extracted serializes to a value read alike.
		if again, ok := webmime.Extract(m.String()); !ok || again.String() != m.String() {
			t.Fatalf("%q: extracted %q, which reads back as %q", ct, m.String(), again.String())
		}
	})
}
