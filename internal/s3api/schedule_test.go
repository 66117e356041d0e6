package s3api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/qos/sched"
)

// sendfileRecorder is a connection's writer: it records what each ReadFrom
// was handed.
type sendfileRecorder struct {
	bytes.Buffer
	froms []string
}

func (w *sendfileRecorder) ReadFrom(src io.Reader) (int64, error) {
	desc := fmt.Sprintf("%T", src)
	if lr, ok := src.(*io.LimitedReader); ok {
		desc = fmt.Sprintf("%T(%T, %d)", lr, lr.R, lr.N)
	}
	w.froms = append(w.froms, desc)
	return io.Copy(&w.Buffer, src)
}

// TestScheduledDownloadKeepsSendfile: the GET body still reaches the
// connection's ReadFrom as an *io.LimitedReader straight over the blob's
// *os.File (sendfile): unwrapped when nothing is reserved and the body is
// small, in 4 MiB slices when it is large, in granted chunks while a
// reservation is active.
func TestScheduledDownloadKeepsSendfile(t *testing.T) {
	data := make([]byte, 9<<20)
	for i := range data {
		data[i] = byte(i)
	}
	path := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s := sched.New(sched.Config{}, sched.Capacities{Read: 1e12, Write: 1e12})
	h := &Handler{cfg: Config{Scheduler: s}}
	get := func(reservation *meta.Reservation, n int64) []string {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r := &request{Request: httptest.NewRequest("GET", "/b/k", nil), reservation: reservation}
		conn := &sendfileRecorder{}
		w := h.scheduledDownload(r, conn, n)
		if (n <= unwrappedMax && reservation == nil) != (w == io.Writer(conn)) {
			t.Errorf("%d bytes, reservation %v: wrapped = %v", n, reservation != nil, w != io.Writer(conn))
		}
		if got, err := io.CopyN(w, f, n); err != nil || got != n || !bytes.Equal(conn.Bytes(), data[:n]) {
			t.Fatalf("CopyN = %d, %v; the bytes match: %v", got, err, bytes.Equal(conn.Bytes(), data[:n]))
		}
		return conn.froms
	}
	want := func(got []string, n int, each string) {
		t.Helper()
		if len(got) < n {
			t.Fatalf("ReadFrom calls %q, want at least %d", got, n)
		}
		for _, g := range got {
			if len(g) < len(each) || g[:len(each)] != each {
				t.Fatalf("ReadFrom calls %q, want each %s…", got, each)
			}
		}
	}
	want(get(nil, 1<<20), 1, "*io.LimitedReader(*os.File, 1048576)")
	want(get(nil, 9<<20), 3, "*io.LimitedReader(*os.File, ")
	if err := s.Read.Reserve("r1", sched.Spec{Rate: 1e9}); err != nil {
		t.Fatal(err)
	}
	froms := get(&meta.Reservation{ID: "r1"}, 1<<20)
	want(froms, 8, fmt.Sprintf("*io.LimitedReader(*os.File, %d)", sched.DefaultChunk))
	s.Release("r1")
}

// TestScheduledUploadFastPath: with nothing reserved a known-length body up
// to unwrappedMax is the body itself; a longer one, or any body while a
// reservation is active, is wrapped.
func TestScheduledUploadFastPath(t *testing.T) {
	s := sched.New(sched.Config{}, sched.Capacities{Read: 1e12, Write: 1e12})
	h := &Handler{cfg: Config{Scheduler: s}}
	r := &request{Request: httptest.NewRequest("PUT", "/b/k", nil)}
	body := bytes.NewReader(nil)
	for _, c := range []struct {
		size    int64
		reserve bool
		wrapped bool
	}{{1 << 10, false, false}, {unwrappedMax, false, false}, {unwrappedMax + 1, false, true}, {-1, false, true}, {1 << 10, true, true}} {
		if c.reserve {
			if err := s.Write.Reserve("r1", sched.Spec{Rate: 1e9}); err != nil {
				t.Fatal(err)
			}
		}
		if got := h.scheduledUpload(r, body, c.size) != io.Reader(body); got != c.wrapped {
			t.Errorf("size %d, reserved %v: wrapped %v, want %v", c.size, c.reserve, got, c.wrapped)
		}
	}
}

// TestScheduledCopyDrawsOnBothDirections: a server-side copy reads from the
// blob store and writes to it, so it is held back by a reservation's read
// direction and by its write direction. With one direction paced at 1 B/s
// a copy of 1 MiB gets its first chunk (the burst) and then waits until
// the request is cancelled; with neither slow it completes.
func TestScheduledCopyDrawsOnBothDirections(t *testing.T) {
	const n = 1 << 20
	for _, slow := range []string{"", "read", "write"} {
		caps := sched.Capacities{Read: 1e12, Write: 1e12}
		s := sched.New(sched.Config{}, caps)
		for _, d := range []*sched.Direction{s.Read, s.Write} {
			if err := d.Reserve("r1", sched.Spec{Rate: 1}); err != nil {
				t.Fatal(err)
			}
		}
		switch slow {
		case "read":
			s.Read.SetCapacity(1)
		case "write":
			s.Write.SetCapacity(1)
		}
		h := &Handler{cfg: Config{Scheduler: s}}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		r := &request{Request: httptest.NewRequest("PUT", "/b/k", nil).WithContext(ctx)}
		copied, err := io.Copy(io.Discard, h.scheduledCopy(r)(bytes.NewReader(make([]byte, n)), n))
		cancel()
		if slow == "" {
			if err != nil || copied != n {
				t.Errorf("nothing slow: copied %d, %v; want all %d", copied, err, n)
			}
			continue
		}
		if err == nil || copied >= n {
			t.Errorf("%s paced at 1 B/s: copied %d of %d, err %v; want the copy held back", slow, copied, n, err)
		}
	}
}

// frozenClock is a sched.Clock whose time never moves: once a grant has
// used the device's credit no further grant ever comes due, so a request
// that waits for one waits until its context ends.
type frozenClock struct{ t time.Time }

func (c frozenClock) Now() time.Time                            { return c.t }
func (frozenClock) AfterFunc(time.Duration, func()) sched.Timer { return stoppedTimer{} }

type stoppedTimer struct{}

func (stoppedTimer) Stop() bool { return true }

// TestAwaitRequestFastPath: without a request direction, or with one where
// no reservation is active, a request is not held (even with its context
// already ended, which any wait would report) and allocates nothing.
func TestAwaitRequestFastPath(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := &request{Request: httptest.NewRequest("HEAD", "/b/k", nil).WithContext(ctx)}
	for name, s := range map[string]*sched.Scheduler{
		"no scheduler":         nil,
		"no request direction": sched.New(sched.Config{}, sched.Capacities{Read: 1e6, Write: 1e6}),
		"nothing reserved":     sched.New(sched.Config{}, sched.Capacities{Requests: 1}),
	} {
		h := &Handler{cfg: Config{Scheduler: s}}
		if err := h.awaitRequest(r); err != nil {
			t.Errorf("%s: awaitRequest = %v, want nil at once", name, err)
		}
		if n := testing.AllocsPerRun(100, func() { _ = h.awaitRequest(r) }); n != 0 {
			t.Errorf("%s: awaitRequest allocates %v times", name, n)
		}
	}
}

// TestRequestsCharged drives the real handler with a request direction of
// 1 request/s on a frozen clock while a request-rate reservation (that no
// request presents) is active: the first request takes the one grant the
// device has banked, so every further request that is charged waits until
// its client gives up (400 RequestTimeout) — HEAD, listings, GET, PUT
// (which stores nothing: the body does not move before the grant), bucket
// configuration — while requests refused before the grant (a CORS
// preflight, a bad signature, a reservation presented to an operation
// that takes none) are answered as before. Once the reservation is
// released nothing is held.
func TestRequestsCharged(t *testing.T) {
	s := newFuzzServer(t)
	s.reset(t)
	scheduler := sched.New(sched.Config{Clock: frozenClock{time.Unix(1_800_000_000, 0)}}, sched.Capacities{Requests: 1})
	if err := scheduler.Requests.Reserve("idle", sched.Spec{Rate: 0.5}); err != nil {
		t.Fatal(err)
	}
	s.h.cfg.Scheduler = scheduler
	serve := func(method, target, headers string, body []byte, badSignature bool) *httptest.ResponseRecorder {
		t.Helper()
		r, ok := s.buildRequest(method, target, headers, body, payloadSHA256)
		if !ok {
			t.Fatalf("%s %s: not a request", method, target)
		}
		if badSignature {
			r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), "Signature=", "Signature=0", 1))
		}
		ctx, cancel := context.WithCancel(context.Background())
		stop := time.AfterFunc(100*time.Millisecond, cancel) // the client gives up
		defer stop.Stop()
		rec := httptest.NewRecorder()
		s.h.ServeHTTP(rec, r.WithContext(ctx))
		return rec
	}
	if rec := serve("HEAD", "/fuzz/k", "", nil, false); rec.Code != 200 {
		t.Fatalf("the first request (the banked grant): %d %s", rec.Code, rec.Body)
	}
	for _, c := range []struct {
		method, target string
		body           string
	}{
		{"HEAD", "/fuzz/k", ""},
		{"GET", "/fuzz/k", ""},
		{"GET", "/fuzz?list-type=2", ""},
		{"GET", "/", ""},
		{"GET", "/fuzz?location", ""},
		{"PUT", "/fuzz/new", "new bytes"},
		{"DELETE", "/fuzz/nokey", ""},
	} {
		if rec := serve(c.method, c.target, "", []byte(c.body), false); rec.Code != 400 || (c.method != "HEAD" && errCode(rec) != "RequestTimeout") { // a HEAD answer has no body
			t.Errorf("%s %s while paced: %d %s; want it held until the client gave up (400 RequestTimeout)", c.method, c.target, rec.Code, errCode(rec))
		}
	}
	if _, err := s.svc.HeadObject(context.Background(), fuzzBucket, "new", "", false); !errors.Is(err, meta.ErrObjectNotFound) {
		t.Errorf("a PUT held before its grant stored its object: %v", err)
	}
	for _, c := range []struct {
		method, target, headers string
		badSignature            bool
		status                  int
	}{
		{"OPTIONS", "/fuzz/k", "Origin: https://example.com\nAccess-Control-Request-Method: GET", false, 403},
		{"GET", "/fuzz/k", "", true, 403},
		{"GET", "/fuzz?list-type=2", "x-jog-reservation-id: idle", false, 400},
	} {
		if rec := serve(c.method, c.target, c.headers, nil, c.badSignature); rec.Code != c.status || errCode(rec) == "RequestTimeout" {
			t.Errorf("%s %s (refused before the grant): %d %s, want %d", c.method, c.target, rec.Code, errCode(rec), c.status)
		}
	}
	scheduler.Release("idle")
	if rec := serve("GET", "/fuzz?list-type=2", "", nil, false); rec.Code != 200 {
		t.Errorf("a listing with no reservation active: %d %s", rec.Code, rec.Body)
	}
}
