package s3api

import (
	"context"
	"sync/atomic"
)

// Admitter decides whether a request may be served now. It is the one
// place where capacity policies plug in: today a bound on the requests in
// service, later reservations of throughput per bucket or kind of
// operation, and the metrics that count what was admitted and refused.
//
// Handler.ServeHTTP calls Admit once per request, right after routing and
// before anything else costs: before the CORS lookup, a preflight, or
// authentication. So a flood of requests — unsigned, badly signed, or
// signed — is shed before the server computes a single signature, and a
// refusal does not depend on who asks. Authorisation is therefore not an
// Admitter's business: deciding whether a principal may perform
// Route.Op.Actions() needs the principal, known only once the request is
// authenticated; it belongs after authentication in Handler.serve, where
// the route and the verified access key are both at hand.
//
// The order a request goes through:
//
//	route (ParseRoute) → admit (Admitter) → CORS, preflight → authenticate →
//	[authorise] → anonymous share (AnonymousShare) → unknown/unsupported
//	refused → wire table, expected owners → handler → release
type Admitter interface {
	// Admit admits a request for rt, or refuses it. ctx is the request's
	// context: an Admitter that waits for capacity must stop when it is
	// done. On admission it returns a release func, which ServeHTTP calls
	// exactly once, when the handler has returned; releasing must not
	// block. A refusal's error is sent to the client through the one
	// error mapper (ErrSlowDown for 503 SlowDown, or an *APIError).
	//
	// Admit runs on every request: it must not allocate on the common
	// path (return a release func made once, not a closure per call).
	Admit(ctx context.Context, rt Route) (release func(), err error)
}

// ErrSlowDown is S3's 503 SlowDown ("Please reduce your request rate."):
// what an Admitter returns to refuse a request for lack of capacity. SDKs
// retry it with backoff.
var ErrSlowDown error = errSlowDown

// ConcurrencyLimit admits up to a fixed number of requests at once, every
// operation alike, and refuses the next ones at once with ErrSlowDown, as
// S3 does: a client backs off rather than queueing in the server.
// Config.MaxRequests builds one.
type ConcurrencyLimit struct {
	slots   chan struct{} // one token per request in service
	release func()
}

var _ Admitter = (*ConcurrencyLimit)(nil)

// NewConcurrencyLimit returns a limit of n requests at once (n > 0).
func NewConcurrencyLimit(n int) *ConcurrencyLimit {
	l := &ConcurrencyLimit{slots: make(chan struct{}, n)}
	l.release = func() { <-l.slots }
	return l
}

// Admit takes a slot without waiting.
func (l *ConcurrencyLimit) Admit(context.Context, Route) (func(), error) {
	select {
	case l.slots <- struct{}{}:
		return l.release, nil
	default:
		return nil, ErrSlowDown
	}
}

// AnonymousShare bounds the requests served at once that are not
// authenticated (yet): anonymous requests a bucket policy serves, browser
// form uploads (PostObject) until their signature is verified, console
// sign-ins. They hold Admitter slots too, but never more than the share,
// so however slowly they send their bodies, signed requests find the rest
// of the slots free. Beyond it they are refused at once with ErrSlowDown.
// A nil *AnonymousShare bounds nothing. Signed requests never touch it;
// the others pay an atomic add.
type AnonymousShare struct {
	held atomic.Int64
	max  int64
}

// NewAnonymousShare returns a share of max requests at once; nil (no
// bound) when max <= 0.
func NewAnonymousShare(max int) *AnonymousShare {
	if max <= 0 {
		return nil
	}
	return &AnonymousShare{max: int64(max)}
}

// Take takes a place in the share if one is free; Release gives it back.
func (s *AnonymousShare) Take() bool {
	if s == nil {
		return true
	}
	if s.held.Add(1) > s.max {
		s.held.Add(-1)
		return false
	}
	return true
}

// Release gives back a place Take took.
func (s *AnonymousShare) Release() {
	if s != nil {
		s.held.Add(-1)
	}
}
