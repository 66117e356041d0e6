package postpolicy

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// FuzzParseForm feeds arbitrary bodies to ReadForm (and the policy field
// to ParsePolicy and Check): no panic, and a form accepted reads back
// consistently — lower-case, unique names, each with its value, within
// MaxPreData, a key with no ${filename} left, a range within its limit.
func FuzzParseForm(f *testing.F) {
	body, _ := formBody(f, awsExampleForm(), "photo.jpg", []byte("content"))
	f.Add(body, strings.TrimPrefix(mustBoundary(f, body), "--"))
	small, _ := formBody(f, []field{{"key", "${filename}"}, {"policy", b64(`{"expiration":"2030-01-01T00:00:00Z","conditions":[["content-length-range",1,2],{"key":"x"}]}`)}}, "x", []byte("ab"))
	f.Add(small, strings.TrimPrefix(mustBoundary(f, small), "--"))
	f.Add([]byte("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\n\r\n--b--\r\n"), "b")
	f.Fuzz(func(t *testing.T, body []byte, boundary string) {
		form, err := ReadForm(bytes.NewReader(body), "multipart/form-data; boundary=\""+boundary+"\"")
		if err != nil {
			return
		}
		seen := map[string]bool{}
		size := 0
		for _, n := range form.Names() {
			if n != strings.ToLower(n) || seen[n] || n == "file" {
				t.Fatalf("name %q (seen %v)", n, seen[n])
			}
			seen[n] = true
			size += len(n) + len(form.Get(n))
			if !form.Has(strings.ToUpper(n)) {
				t.Fatalf("%q not found in upper case", n)
			}
		}
		if size > MaxPreData {
			t.Fatalf("%d bytes of fields accepted", size)
		}
		if !strings.Contains(form.FileName, "${filename}") && strings.Contains(form.Key(), "${filename}") {
			t.Fatalf("key %q keeps ${filename}", form.Key())
		}
		p, err := ParsePolicy(form.Get("policy"))
		if err != nil {
			return
		}
		if rng, err := p.Check(time.Date(2029, 1, 1, 0, 0, 0, 0, time.UTC), form, "b", 1000); err == nil {
			if rng.Max > 1000 || rng.Min < 0 {
				t.Fatalf("range %v beyond its limit", rng)
			}
			n, err := io.Copy(io.Discard, rng.Reader(form.File))
			if err == nil && (n < rng.Min || n > rng.Max) {
				t.Fatalf("%d bytes accepted in %v", n, rng)
			}
		}
	})
}

func mustBoundary(t testing.TB, body []byte) string {
	line, _, _ := bytes.Cut(body, []byte("\r\n"))
	return string(line)
}
