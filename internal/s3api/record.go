package s3api

import (
	"net/http"
	"time"

	"github.com/jogstore/jog/internal/authz"
)

// Record is what the edge knows of one S3 request once it is answered:
// what metrics count and access logs write. It is handed to
// Config.Observer after the response, and valid only during that call.
type Record struct {
	ID    string // the request ID (x-amz-request-id)
	Start time.Time
	// Request is the request as it arrived (URI, Host, User-Agent,
	// Referer, TLS): read it, never its body.
	Request *http.Request
	Op      Op     // OpUnknown when the request named no operation
	Bucket  string // "" when none
	Key     string // "" when none
	// Principal is who signed the request (the zero Principal, anonymous,
	// when nobody did or before authentication); AccessKey the key it was
	// signed with.
	Principal authz.Principal
	AccessKey string
	Status    int    // the HTTP status sent
	Code      string // the S3 error code sent; "" on success
	BytesIn   int64  // request body bytes read from the client
	BytesOut  int64  // response body bytes written
	// Duration is from arrival to the handler's return; FirstByte to the
	// response's header (0 when none was sent).
	Duration  time.Duration
	FirstByte time.Duration
}

// Observer receives the Record of every request the S3 handler serves,
// refused ones included, on the request's goroutine after its response:
// it must not block, and must not keep the Record.
type Observer interface {
	Observe(*Record)
}

// Observers is an Observer that hands each Record to every one of its
// elements, in order.
type Observers []Observer

// Observe implements Observer.
func (o Observers) Observe(r *Record) {
	for _, x := range o {
		x.Observe(r)
	}
}

// observe builds the request's Record and hands it to the observer.
func (h *Handler) observe(w *statusWriter, req *request, start time.Time) {
	rec := Record{
		ID: req.id, Start: start, Request: req.orig, Op: req.route.Op,
		Bucket: req.route.Bucket, Key: req.route.Key, Principal: req.who,
		Status: w.status, Code: req.code, BytesIn: req.bytesIn, BytesOut: w.written,
		Duration: time.Since(start),
	}
	if req.auth != nil {
		rec.AccessKey = req.auth.AccessKey
	}
	if !w.first.IsZero() {
		rec.FirstByte = w.first.Sub(start)
	}
	h.cfg.Observer.Observe(&rec)
}
