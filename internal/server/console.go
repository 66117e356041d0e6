package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/bodytimeout"
	"github.com/jogstore/jog/internal/console"
	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/s3api"
	"github.com/jogstore/jog/internal/sts"
)

// withConsole mounts the web console (internal/console, --console) on
// next, the server's handler: its requests are signed with a session's
// temporary credentials and served by next, as any client's. Without
// --console-addr it is served on the S3 port at /console/ (a request
// elsewhere costs one prefix check); with it, on that listener only,
// which also serves next (its presigned URLs name the host they were
// made on), and the S3 port has no console.
//
// The console's handler reads sign-ins and its own API's bodies under
// bodyLimits (the S3 requests it proxies keep that timing), and a sign-in
// holds a place in the S3 handler's anonymous share while it is served.
func (s *Server) withConsole(next http.Handler, keys sts.Keys, serverKey *keyring.Keyring, az *authz.Authorizer, anonymous *s3api.AnonymousShare) (http.Handler, error) {
	if !s.cfg.Console {
		return next, nil
	}
	c, err := console.New(console.Config{
		Handler: next, Keys: keys, Sealer: serverKey, Authorizer: az, Metrics: s.metrics.Handler(),
		Region: s.cfg.Region, Domain: s.cfg.Domain, Session: s.cfg.ConsoleSession,
		TrustForwardedFor: s.cfg.TrustForwardedFor, Logger: s.log.With("component", "console"),
		Revoker: revoker(s.stores.Meta), Anonymous: anonymous,
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); c.SyncRevocations(ctx, s.sessionsChanged) }()
	s.stopRevocations = func() { cancel(); <-done }
	timed := bodytimeout.Handler(c, bodyLimits(s.cfg))
	mounted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, consolePath) && console.Wants(r) {
			timed.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
	if s.cfg.ConsoleAddr != "" {
		s.consoleHandler = mounted
		return next, nil
	}
	return mounted, nil
}

// revoker is the store's record of sign-outs, final on every gateway
// sharing it (nil when the store keeps none).
func revoker(store meta.Store) meta.SessionRevoker {
	r, _ := store.(meta.SessionRevoker)
	return r
}

// consolePath is the prefix withConsole checks: console.Prefix without
// its slash, which a browser may be sent to.
const consolePath = "/console"

// serveConsole serves the console on --console-addr until the returned
// stop is called (a no-op without the flag).
func (s *Server) serveConsole(ctx context.Context) (stop func(context.Context), err error) {
	if s.consoleHandler == nil {
		return func(context.Context) {}, nil
	}
	ln, err := net.Listen("tcp", s.cfg.ConsoleAddr)
	if err != nil {
		return nil, fmt.Errorf("console listen: %w", err)
	}
	hs := s.httpServer(ctx, s.consoleHandler)
	go func() {
		if err := s.serveOn(hs, ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("console listener failed", "err", err)
		}
	}()
	s.log.Info("serving the console", "addr", ln.Addr().String(), "tls", s.cfg.TLSCert != "")
	return func(ctx context.Context) {
		if err := hs.Shutdown(ctx); err != nil {
			hs.Close()
		}
	}, nil
}
