package accesslog

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/s3api"
)

func record() *s3api.Record {
	req := httptest.NewRequest("GET", "/b/some%20key", nil)
	req.RemoteAddr = "192.0.2.7:51234"
	return &s3api.Record{
		ID: "4F1A2B3C4D5E6F70", Start: time.Date(2026, 11, 25, 3, 4, 5, 123456789, time.UTC),
		Request: req, Op: s3api.OpGetObject, Bucket: "b", Key: "some key\n\"q\"",
		Principal: authz.Root, AccessKey: "AKIAEXAMPLE", Status: 404, Code: "NoSuchKey",
		BytesIn: 0, BytesOut: 243, Duration: 1234567 * time.Nanosecond, FirstByte: 987 * time.Microsecond,
	}
}

// The golden lines: every field, in order, with a key that needs escaping.
func TestLineFormats(t *testing.T) {
	r := record()
	wantJSON := `{"time":"2026-11-25T03:04:05.123456789Z","id":"4F1A2B3C4D5E6F70","remote":"192.0.2.7:51234",` +
		`"principal":"root","access_key":"AKIAEXAMPLE","method":"GET","op":"GetObject","bucket":"b",` +
		`"key":"some key\n\"q\"","status":404,"code":"NoSuchKey","bytes_in":0,"bytes_out":243,` +
		`"duration_ms":1.234,"ttfb_ms":0.987}` + "\n"
	if got := string(AppendLine(nil, JSON, r)); got != wantJSON {
		t.Errorf("json:\n got %s\nwant %s", got, wantJSON)
	}
	wantText := `time=2026-11-25T03:04:05.123456789Z id=4F1A2B3C4D5E6F70 remote=192.0.2.7:51234 principal=root ` +
		`access_key=AKIAEXAMPLE method=GET op=GetObject bucket=b key="some key\n\"q\"" status=404 code=NoSuchKey ` +
		`bytes_in=0 bytes_out=243 duration_ms=1.234 ttfb_ms=0.987` + "\n"
	if got := string(AppendLine(nil, Text, r)); got != wantText {
		t.Errorf("text:\n got %s\nwant %s", got, wantText)
	}
	// A success: no code, anonymous; JSON stays valid JSON with every field.
	r.Status, r.Code, r.Principal, r.AccessKey = 200, "", authz.Anonymous, ""
	var m map[string]any
	if err := json.Unmarshal(AppendLine(nil, JSON, r), &m); err != nil {
		t.Fatal(err)
	}
	for _, f := range Fields {
		if _, ok := m[f]; !ok {
			t.Errorf("json line has no %q: %v", f, m)
		}
	}
	if m["principal"] != "anonymous" || m["code"] != "" || m["key"] != "some key\n\"q\"" {
		t.Errorf("json line %v", m)
	}
	if got := string(AppendLine(nil, Text, r)); strings.Contains(got, "code=") || strings.Contains(got, "access_key=") {
		t.Errorf("text line names empty fields: %s", got)
	}
}

func TestJSONStringEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"plain": `"plain"`, "tab\there": `"tab\there"`, "\x01": `"\u0001"`, "é€": `"é€"`,
		"bad\xffutf8": `"bad\ufffdutf8"`, `back\slash`: `"back\\slash"`,
	} {
		got := appendJSONString(nil, in)
		if string(got) != want {
			t.Errorf("%q: %s, want %s", in, got, want)
		}
		if in != "bad\xffutf8" {
			var back string
			if err := json.Unmarshal(got, &back); err != nil || back != in {
				t.Errorf("%q: round trip %q, %v", in, back, err)
			}
		}
	}
}

// Errors are always logged; successes by sampling.
func TestSampling(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, WriterOptions{FlushInterval: time.Hour})
	l := New(w, Text, 1e-12)
	r := record()
	for _, st := range []int{200, 204, 206, 304} {
		r.Status = st
		for range 100 {
			l.Observe(r)
		}
	}
	for _, st := range []int{400, 403, 404, 500, 503} {
		r.Status = st
		l.Observe(r)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n != 5 {
		t.Errorf("%d lines, want the 5 errors:\n%s", n, out.String())
	}
	out.Reset()
	w = NewWriter(&out, WriterOptions{FlushInterval: time.Hour})
	l = New(w, Text, 1)
	r.Status = 200
	for range 10 {
		l.Observe(r)
	}
	w.Close()
	if n := strings.Count(out.String(), "\n"); n != 10 {
		t.Errorf("sample 1: %d lines, want 10", n)
	}
}

// blockingWriter blocks every Write until released.
type blockingWriter struct {
	entered chan struct{}
	release chan struct{}
	mu      sync.Mutex
	buf     bytes.Buffer
}

func (b *blockingWriter) Write(p []byte) (int, error) {
	select {
	case b.entered <- struct{}{}:
	default:
	}
	<-b.release
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// A disk that does not take writes: Append keeps returning at once, holds
// at most MaxBuffer bytes and counts the lines it drops.
func TestWriterDropsWhenDiskIsSlow(t *testing.T) {
	bw := &blockingWriter{entered: make(chan struct{}, 1), release: make(chan struct{})}
	var errs []error
	var emu sync.Mutex
	w := NewWriter(bw, WriterOptions{FlushInterval: time.Hour, FlushSize: 10, MaxBuffer: 100,
		Errors: func(err error) { emu.Lock(); errs = append(errs, err); emu.Unlock() }})
	line := []byte("0123456789012345678\n") // 20 bytes
	w.Append(line)                          // reaches FlushSize: the writer takes it and blocks
	<-bw.entered
	kept := 0
	for range 10 {
		if w.Append(line) {
			kept++
		}
	}
	if kept != 5 || w.Dropped() != 5 {
		t.Errorf("kept %d, dropped %d; want 5 and 5 (100-byte buffer)", kept, w.Dropped())
	}
	close(bw.release)
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "5 lines dropped") {
		// The loop may have reported the drops itself.
		emu.Lock()
		if len(errs) == 0 || !strings.Contains(joinErrs(errs), "5 lines dropped") {
			t.Errorf("drops not reported: close %v, loop %v", err, errs)
		}
		emu.Unlock()
	}
	if got := strings.Count(bw.buf.String(), "\n"); got != 6 {
		t.Errorf("%d lines written, want 6", got)
	}
}

func joinErrs(errs []error) string {
	var s []string
	for _, e := range errs {
		s = append(s, e.Error())
	}
	return strings.Join(s, "; ")
}

// Reopen after a rename (logrotate's postrotate): new lines go to a new
// file at the path, none is lost.
func TestWriterReopen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "access.log")
	w, err := OpenFile(path, WriterOptions{FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	w.Append([]byte("one\n"))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	w.Append([]byte("two\n")) // queued before the reopen: into the old file
	if err := w.Reopen(); err != nil {
		t.Fatal(err)
	}
	w.Append([]byte("three\n"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{path + ".1": "one\ntwo\n", path: "three\n"} {
		got, err := os.ReadFile(file)
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", file, got, err, want)
		}
	}
}

// BenchmarkObserve is the cost a request pays for its access log line.
func BenchmarkObserve(b *testing.B) {
	for _, f := range []struct {
		name string
		f    Format
	}{{"json", JSON}, {"text", Text}} {
		b.Run(f.name, func(b *testing.B) {
			w := NewWriter(io.Discard, WriterOptions{})
			defer w.Close()
			l := New(w, f.f, 1)
			r := record()
			r.Status = 200
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					l.Observe(r)
				}
			})
		})
	}
}
