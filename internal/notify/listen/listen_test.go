package listen

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/notify"
)

// event is a record as the server builds it.
func event(name notify.EventName, key string, size int64) notify.Event {
	return notify.NewEvent(name, notify.Request{ID: "REQ1", PrincipalID: "AKIA"},
		notify.Source{Region: "us-east-1", Bucket: "photos", Key: key, Size: size, ETag: "abc", At: time.Unix(1e9, 0)}, "cfg")
}

func post(t *testing.T, h http.Handler, auth string, body []byte) int {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/anything", bytes.NewReader(body))
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w.Code
}

func message(t *testing.T, evs ...notify.Event) []byte {
	t.Helper()
	b, err := json.Marshal(notify.Message{Records: evs})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLine: an event's line names it, its bucket and decoded key, and the
// size ("-" for a removal); a key with a space or a control character is
// quoted, so that the line stays one line.
func TestLine(t *testing.T) {
	for _, c := range []struct {
		e    notify.Event
		want string
	}{
		{event("s3:ObjectCreated:Put", "images/beach.jpg", 6), "ObjectCreated:Put photos/images/beach.jpg 6"},
		{event("s3:ObjectCreated:Put", "empty", 0), "ObjectCreated:Put photos/empty 0"},
		{event("s3:ObjectRemoved:Delete", "images/beach.jpg", 0), "ObjectRemoved:Delete photos/images/beach.jpg -"},
		{event("s3:ObjectCreated:Copy", "holiday 2026/beach (1).jpg", 9), `ObjectCreated:Copy "photos/holiday 2026/beach (1).jpg" 9`},
		{event("s3:ObjectCreated:Put", "a\x1b[2Jb\nc", 1), `ObjectCreated:Put "photos/a\x1b[2Jb\nc" 1`},
		{event("s3:ObjectCreated:Put", "naïve+x%", 1), "ObjectCreated:Put photos/naïve+x% 1"},
	} {
		if got := Line(c.e); got != c.want {
			t.Errorf("Line(%q) = %q, want %q", c.e.S3.Object.Key, got, c.want)
		}
	}
}

// TestReceiver: a POSTed message is written, a line per record, and
// answered 200; with a token, a POST without it or with another is 401
// and writes nothing; another method is 405 and a body that is not a
// message 400, neither writing anything; --json writes the records.
func TestReceiver(t *testing.T) {
	var out bytes.Buffer
	r := New(&out, Options{Token: "s3cr3t"})
	msg := message(t, event("s3:ObjectCreated:Put", "k", 3))
	for _, auth := range []string{"", "Bearer wrong", "s3cr3t", "Bearer s3cr3t2", "bearer s3cr3t"} {
		if code := post(t, r, auth, msg); code != http.StatusUnauthorized {
			t.Errorf("Authorization %q: %d, want 401", auth, code)
		}
	}
	for _, body := range []string{"", "{", `{"Events":[]}`, "[1]", strings.Repeat(" ", MaxBody+1) + "{}"} {
		if code := post(t, r, "Bearer s3cr3t", []byte(body)); code != http.StatusBadRequest {
			t.Errorf("body %.20q: %d, want 400", body, code)
		}
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	if w.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d, want 405", w.Code)
	}
	if out.Len() != 0 {
		t.Fatalf("refused requests wrote %q", out.String())
	}
	two := message(t, event("s3:ObjectCreated:Put", "k", 3), event("s3:ObjectRemoved:Delete", "k", 0))
	if code := post(t, r, "Bearer s3cr3t", two); code != http.StatusOK {
		t.Fatalf("the right token: %d, want 200", code)
	}
	if want := "ObjectCreated:Put photos/k 3\nObjectRemoved:Delete photos/k -\n"; out.String() != want {
		t.Errorf("written %q, want %q", out.String(), want)
	}

	out.Reset()
	j := New(&out, Options{JSON: true})
	if code := post(t, j, "", msg); code != http.StatusOK {
		t.Fatalf("--json, no token: %d, want 200", code)
	}
	var got notify.Event
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || !strings.HasSuffix(out.String(), "}\n") || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("--json wrote %q: %v", out.String(), err)
	}
	if got.EventName != "ObjectCreated:Put" || got.S3.Bucket.Name != "photos" || got.S3.Object.Key != "k" || *got.S3.Object.Size != 3 ||
		got.ResponseElements.RequestID != "REQ1" {
		t.Errorf("--json record: %+v", got)
	}
}
