// Package bodytimeout cuts request bodies that stall or trickle (issue 37):
// a body must send bytes within an idle timeout and, after that much
// grace, keep up a minimum average rate, as S3 answers a client that
// stops sending with 400 RequestTimeout. It sets the connection's read
// deadline (http.ResponseController) before each read of the body, so a
// server that reads no deadline ever cuts a long transfer that flows, and
// the time the server itself spends between reads (pacing, writing to
// disk) is never held against the client.
package bodytimeout

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// ErrTimeout is the error a Reader returns (wrapping the connection's
// deadline error) when the body sent nothing for Limits.Idle, or fell
// below Limits.MinRate: S3's 400 RequestTimeout.
var ErrTimeout = errors.New("the request body was not sent within the timeout")

// Code and Message are S3's answer to a body cut, with status 400: what
// the handlers send for ErrTimeout.
const (
	Code    = "RequestTimeout"
	Message = "Your socket connection to the server was not read from or written to within the timeout period."
)

// Limits are how slowly a request body may arrive. The zero value sets no
// limit.
type Limits struct {
	// Idle is the longest the server waits for the body's next bytes; 0:
	// no limit (and no MinRate either).
	Idle time.Duration
	// MinRate, bytes per second, is the least average rate a body must
	// keep up once Idle has passed: the time spent waiting for the body
	// may be at most Idle plus a second per MinRate bytes received (the
	// rule of Apache's mod_reqtimeout, "body=20,MinRate=500"). 0: none.
	MinRate int64
}

// On reports whether l limits anything.
func (l Limits) On() bool { return l.Idle > 0 }

// steps is how finely a deadline moves: it is set again only once it would
// move later by more than Idle/steps, so a fast transfer sets it a few
// times per Idle, not on every read, and a limit cuts at most Idle/steps
// early.
const steps = 8

// Reader is a request body under Limits. Its zero value is not usable:
// Reset it. It is a value to embed where a request is already allocated
// (the S3 handler's request): it costs no allocation of its own.
type Reader struct {
	body io.ReadCloser
	rc   http.ResponseController
	lim  Limits
	// n is the bytes received, waited the time spent inside the body's
	// Read: the rate is measured over the time the server waited.
	n      int64
	waited time.Duration
	set    time.Time // the read deadline set, zero when none
	off    bool      // no limits, or the connection takes no deadline
	eof    bool
	cut    bool // ErrTimeout returned
}

// Reset makes r the body of the request w answers, under l.
func (r *Reader) Reset(w http.ResponseWriter, body io.ReadCloser, l Limits) {
	*r = Reader{body: body, rc: *http.NewResponseController(w), lim: l, off: !l.On()}
}

// Timed reports whether body is a Reader already: a request a handler
// passes on to another (the console's proxy to S3) is timed once.
func Timed(body io.Reader) bool {
	_, ok := body.(*Reader)
	return ok
}

// Read reads the body with the connection's read deadline at the limits:
// ErrTimeout (wrapped) when they are passed.
func (r *Reader) Read(p []byte) (int, error) {
	if r.off || r.eof {
		return r.body.Read(p)
	}
	start := time.Now()
	allow := r.allowance()
	if allow <= 0 {
		r.cut = true
		return 0, fmt.Errorf("%w: less than %d bytes/s", ErrTimeout, r.lim.MinRate)
	}
	if due := start.Add(allow); !r.set.After(start) || due.Sub(r.set) > r.lim.Idle/steps {
		if err := r.rc.SetReadDeadline(due); err != nil {
			r.off = true // not a connection (a test's recorder): unlimited
		} else {
			r.set = due
		}
	}
	n, err := r.body.Read(p)
	r.waited += time.Since(start)
	r.n += int64(n)
	switch {
	case err == io.EOF:
		// At the body's end net/http clears the deadline and reads the
		// connection in the background, to see the client go: a
		// deadline set now would end the request. None is, from here.
		r.eof = true
	case err != nil && errors.Is(err, os.ErrDeadlineExceeded):
		r.cut = true
		err = fmt.Errorf("%w: %w", ErrTimeout, err)
	}
	return n, err
}

// allowance is how long the next read may wait: Idle, or less when the
// rate's credit (Idle, and a second per MinRate bytes, less the time
// already waited) is smaller.
func (r *Reader) allowance() time.Duration {
	if r.lim.MinRate <= 0 {
		return r.lim.Idle
	}
	credit := r.lim.Idle.Seconds() + float64(r.n)/float64(r.lim.MinRate) - r.waited.Seconds()
	if credit >= r.lim.Idle.Seconds() {
		return r.lim.Idle
	}
	return time.Duration(credit * float64(time.Second))
}

// Close closes the body.
func (r *Reader) Close() error { return r.body.Close() }

// Done is called when the handler returns. net/http then reads what is
// left of a body the handler did not read to its end (up to 256 KiB, to
// keep the connection) before it sends the response: the connection gets
// Idle for that, not for ever, and a body cut gets nothing more (the
// answer goes at once, and the connection is closed).
func (r *Reader) Done() {
	switch {
	case r.body == nil || r.off || r.eof:
	case r.cut:
		_ = r.rc.SetReadDeadline(time.Now())
	default:
		_ = r.rc.SetReadDeadline(time.Now().Add(r.lim.Idle))
	}
}

// Handler times the bodies of the requests next serves under l (nothing
// when l is off): for the handlers that read bodies of their own (IAM,
// STS, the console); the S3 handler embeds its Reader.
func Handler(next http.Handler, l Limits) http.Handler {
	if !l.On() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Body == nil || req.Body == http.NoBody || Timed(req.Body) {
			next.ServeHTTP(w, req)
			return
		}
		// A copy of the request: net/http decides how to finish by its
		// own request's Body, which must stay its own.
		timed := req.WithContext(req.Context())
		r := &Reader{}
		r.Reset(w, req.Body, l)
		timed.Body = r
		defer r.Done()
		next.ServeHTTP(w, timed)
	})
}
