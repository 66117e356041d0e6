package bodytimeout

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// result is what the test handler saw of the body.
type result struct {
	n      int
	err    error
	ctxErr error // the request's context once the handler is done
}

// serve starts a server whose handler reads the body under l (through
// Handler), sleeping pause after each read and after the end, and reports
// what it read; it answers 400 with the error, else 200.
func serve(t *testing.T, l Limits, pause time.Duration) (string, <-chan result) {
	t.Helper()
	got := make(chan result, 1)
	srv := httptest.NewServer(Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var res result
		buf := make([]byte, 4)
		for {
			n, err := r.Body.Read(buf)
			res.n += n
			time.Sleep(pause)
			if err != nil {
				if err != io.EOF {
					res.err = err
				}
				break
			}
		}
		if res.err == nil { // a reader may ask again past the end (multipart does)
			_, _ = r.Body.Read(buf)
			time.Sleep(pause)
		}
		res.ctxErr = r.Context().Err()
		got <- res
		if res.err != nil {
			http.Error(w, res.err.Error(), http.StatusBadRequest)
		}
	}), l))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), got
}

// send writes a request of size bytes to addr, then the body as chunks
// with gap between them, and returns the response's status line (or the
// error that ended it).
func send(t *testing.T, addr string, size int, chunks []string, gap time.Duration) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	fmt.Fprintf(conn, "PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", size)
	status := make(chan string, 1)
	go func() {
		line, err := bufio.NewReader(conn).ReadString('\n')
		if err != nil {
			line = err.Error()
		}
		status <- strings.TrimSpace(line)
	}()
	for _, c := range chunks {
		select {
		case s := <-status:
			return s // answered before the body was sent
		case <-time.After(gap):
		}
		_, _ = io.WriteString(conn, c)
	}
	return <-status
}

func wait(t *testing.T, got <-chan result) result {
	t.Helper()
	select {
	case r := <-got:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("the handler never finished")
		return result{}
	}
}

// TestIdle: a body that stops sending is cut after Idle with ErrTimeout,
// and the client still gets the handler's answer.
func TestIdle(t *testing.T) {
	addr, got := serve(t, Limits{Idle: 300 * time.Millisecond}, 0)
	status := send(t, addr, 10, []string{"ab"}, 0)
	r := wait(t, got)
	if !errors.Is(r.err, ErrTimeout) || r.n != 2 {
		t.Fatalf("read %d bytes, err %v; want 2 and ErrTimeout", r.n, r.err)
	}
	if !strings.Contains(status, "400") {
		t.Errorf("the client got %q, want the handler's 400", status)
	}
}

// TestMinRate: a body trickling a byte every 100 ms never idles for 300
// ms, but falls below 100 bytes/s: it is cut, after its 300 ms of grace
// and the second its bytes earned.
func TestMinRate(t *testing.T) {
	addr, got := serve(t, Limits{Idle: 300 * time.Millisecond, MinRate: 100}, 0)
	start := time.Now()
	send(t, addr, 1000, strings.Split(strings.Repeat("x", 200), ""), 100*time.Millisecond)
	r := wait(t, got)
	if !errors.Is(r.err, ErrTimeout) {
		t.Fatalf("read %d bytes, err %v; want ErrTimeout", r.n, r.err)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("cut after %v: the trickle went on", took)
	}
}

// TestFlowing: a body that keeps up the rate is read whole however long
// it lasts, with the server pausing longer than Idle between reads (its
// own time is not the client's), and the request's context is not ended
// by a deadline left after the body's end.
func TestFlowing(t *testing.T) {
	addr, got := serve(t, Limits{Idle: 300 * time.Millisecond, MinRate: 100}, 600*time.Millisecond)
	status := send(t, addr, 12, []string{strings.Repeat("y", 12)}, 0) // three reads
	r := wait(t, got)
	if r.err != nil || r.n != 12 || r.ctxErr != nil {
		t.Fatalf("read %d bytes, err %v, context %v; want 12, none, none", r.n, r.err, r.ctxErr)
	}
	if !strings.Contains(status, "200") {
		t.Errorf("the client got %q, want 200", status)
	}
	// 30 chunks of 50 bytes, 50 ms apart: 1.5 s in all, longer than
	// Idle, at 1000 bytes/s.
	addr, got = serve(t, Limits{Idle: time.Second, MinRate: 100}, 0)
	var chunks []string
	for range 30 {
		chunks = append(chunks, strings.Repeat("z", 50))
	}
	send(t, addr, 1500, chunks, 50*time.Millisecond)
	if r := wait(t, got); r.err != nil || r.n != 1500 {
		t.Fatalf("a flowing body: read %d bytes, err %v", r.n, r.err)
	}
}

// TestOff: without limits the body is not wrapped.
func TestOff(t *testing.T) {
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	if got := Handler(h, Limits{MinRate: 100}); fmt.Sprintf("%p", got) != fmt.Sprintf("%p", h) {
		t.Error("Handler wrapped next with no Idle")
	}
}

// deadlineWriter is a ResponseWriter that takes read deadlines, as
// net/http's does.
type deadlineWriter struct {
	http.ResponseWriter
	set int
}

func (w *deadlineWriter) SetReadDeadline(time.Time) error { w.set++; return nil }

// TestNoAlloc: a Reader embedded in a request costs no allocation to set
// up and read (the S3 handler's hot path), and moves the deadline once
// per Idle/steps, not on every read.
func TestNoAlloc(t *testing.T) {
	w := &deadlineWriter{ResponseWriter: httptest.NewRecorder()}
	body := io.NopCloser(strings.NewReader(strings.Repeat("x", 1<<20)))
	var r Reader
	p := make([]byte, 16)
	if n := testing.AllocsPerRun(100, func() {
		r.Reset(w, body, Limits{Idle: time.Hour, MinRate: 1})
		_, _ = r.Read(p)
		_, _ = r.Read(p)
	}); n != 0 {
		t.Errorf("Reset and Read allocate %v times", n)
	}
	w.set = 0
	r.Reset(w, body, Limits{Idle: time.Hour})
	for range 1000 {
		_, _ = r.Read(p)
	}
	if w.set != 1 {
		t.Errorf("1000 quick reads set the deadline %d times, want once", w.set)
	}
}

// TestDone: a handler that answers without reading the body: net/http
// reads the rest before it sends the answer (a small body, to keep the
// connection), and Done bounds that read by Idle, so a client that stops
// sending still gets the answer.
func TestDone(t *testing.T) {
	srv := httptest.NewServer(Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "refused", http.StatusForbidden)
	}), Limits{Idle: 300 * time.Millisecond}))
	t.Cleanup(srv.Close)
	if status := send(t, srv.Listener.Addr().String(), 100, []string{"a"}, 0); !strings.Contains(status, "403") {
		t.Errorf("the client got %q, want the handler's 403", status)
	}
}
