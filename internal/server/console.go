package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"

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
// temporary credentials and served by next, as any client's. By default
// it is served on a listener of its own (config.ConsoleListen), an
// origin apart from the objects', which serves nothing else; the S3 port
// then has no console, and the console's links name the S3 port. With
// --console-addr=same it is served on the S3 port at /console/ (a
// request elsewhere costs one prefix check). ADR 0025.
//
// The console's handler reads sign-ins and its own API's bodies under
// bodyLimits (the S3 requests it proxies keep that timing), and a sign-in
// holds a place in the S3 handler's anonymous share while it is served.
// It returns the console too (nil when off), whose revocation sync start
// runs.
func (s *Server) withConsole(next http.Handler, keys sts.Keys, serverKey *keyring.Keyring, az *authz.Authorizer, anonymous *s3api.AnonymousShare) (http.Handler, *console.Handler, error) {
	if !s.cfg.Console {
		return next, nil, nil
	}
	own, err := s.cfg.ConsoleListen()
	if err != nil {
		return nil, nil, err
	}
	cfg := console.Config{
		Handler: next, Keys: keys, Sealer: serverKey, Authorizer: az, Metrics: s.metrics.Handler(),
		Region: s.cfg.Region, Domain: s.cfg.Domain, Session: s.cfg.ConsoleSession, S3URL: s.cfg.ConsoleS3URL,
		TrustForwardedFor: s.cfg.TrustForwardedFor, Logger: s.log.With("component", "console"),
		Revoker: revoker(s.stores.Meta), Anonymous: anonymous,
	}
	if own != "" {
		cfg.S3Port = s.s3Port.Load
	}
	c, err := console.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	timed := bodytimeout.Handler(c, bodyLimits(s.cfg))
	if own != "" {
		s.consoleHandler = consoleOnly(timed)
		return s.homeToConsole(next, s.consolePort.Load), c, nil
	}
	home := s.homeToConsole(next, nil)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, consolePath) && console.Wants(r) {
			timed.ServeHTTP(w, r)
			return
		}
		home.ServeHTTP(w, r)
	}), c, nil
}

// homeToConsole sends a browser that opens the S3 endpoint's root — an
// unsigned GET / that is ListBuckets (not a virtual-hosted bucket's
// listing) with an Accept that prefers text/html, console.Navigation — to
// the console, rather than ListBuckets' AccessDenied: to the console's
// own listener (consolePort, its port once it listens) or, when consolePort
// is nil, to /console/ on this port. Any other request goes on to next
// unchanged.
//
// The redirect is 302 Found: temporary, so a browser does not cache it
// (a 301 or 308 would keep sending "/" to a console later turned off or
// moved); 303 and 307 differ from 302 only for methods other than GET.
// The console's own listener answers its "/" so too. Vary: Accept, since
// "/" answers S3 clients otherwise.
func (s *Server) homeToConsole(next http.Handler, consolePort func() string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u := s.consoleHome(r, consolePort); u != "" {
			w.Header().Add("Vary", "Accept")
			http.Redirect(w, r, u, http.StatusFound)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// consoleOnly serves the console's own listener: the console under
// /console, "/" sent there, and nothing else (no S3: an object served on
// the console's origin could use its session).
func consoleOnly(c http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case p == consolePath || strings.HasPrefix(p, console.Prefix):
			c.ServeHTTP(w, r)
		case p == "/":
			http.Redirect(w, r, console.Prefix, http.StatusFound)
		default:
			http.Error(w, "Not found: the web console is at "+console.Prefix+"; S3 is served on another port.", http.StatusNotFound)
		}
	})
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

// consoleHome is where homeToConsole sends r: "" when r is not a
// browser opening the root, or the console's own listener is not yet
// listening.
func (s *Server) consoleHome(r *http.Request, consolePort func() string) string {
	if r.URL.Path != "/" || !console.Navigation(r) || s3api.ParseRoute(r, s.cfg.Domain).Op != s3api.OpListBuckets {
		return ""
	}
	port := ""
	if consolePort != nil {
		if port = consolePort(); port == "" {
			return ""
		}
	}
	return console.HomeURL(r, port, s.cfg.TrustForwardedFor)
}

// portOf is the port of a listener's address.
func portOf(a net.Addr) string {
	_, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return ""
	}
	return port
}

// ListenConsole opens the console's own listener, when it has one
// (config.ConsoleListen), and records the port of the S3 listener s3,
// which the console's links name. It returns the console's address, nil
// when it has no listener of its own. Serve calls it when the caller has
// not (the caller calls it first to print the address).
func (s *Server) ListenConsole(s3 net.Addr) (net.Addr, error) {
	s.s3Port.Store(portOf(s3))
	if s.consoleHandler == nil {
		return nil, nil
	}
	if s.consoleLn == nil {
		addr, _ := s.cfg.ConsoleListen() // checked by withConsole
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("console listen: %w", err)
		}
		s.consoleLn = ln
		s.consolePort.Store(portOf(ln.Addr()))
	}
	return s.consoleLn.Addr(), nil
}

// serveConsole serves the console on its own listener until the returned
// stop is called (a no-op when it has none).
func (s *Server) serveConsole(ctx context.Context, s3 net.Addr) (stop func(context.Context), err error) {
	if _, err := s.ListenConsole(s3); err != nil || s.consoleLn == nil {
		return func(context.Context) {}, err
	}
	ln := s.consoleLn
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

// portHolder is a listener's port, set once it listens.
type portHolder struct{ v atomic.Value }

func (p *portHolder) Store(port string) { p.v.Store(port) }

// Load is the port ("" before the S3 listener is known).
func (p *portHolder) Load() string {
	v, _ := p.v.Load().(string)
	return v
}
