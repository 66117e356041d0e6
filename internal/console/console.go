package console

import (
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/console/ui"
	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/sts"
)

// Prefix is the path the console is served under; Prefix without its
// slash redirects there.
const Prefix = "/console/"

const apiPrefix = Prefix + "api/"

// DefaultSession is how long a sign-in lasts unless Config says.
const DefaultSession = 12 * time.Hour

// Config is what the console needs of the server.
type Config struct {
	// Handler serves S3, IAM and STS requests: the server's own chain
	// (metrics, health, in-flight count, byService), which the proxy
	// hands each signed request to.
	Handler http.Handler
	// Keys are the credentials the S3 edge verifies: sign-in checks the
	// access key and secret against them, and resolves principals.
	Keys sts.Keys
	// Sealer is the server key: it seals session tokens (as STS does)
	// and the console's cookie.
	Sealer *keyring.Keyring
	// Authorizer decides jog:GetMetrics for principals other than the
	// root; the same Authorizer the IAM API uses.
	Authorizer *authz.Authorizer
	// Metrics serves the Prometheus text (GET /console/api/metrics).
	Metrics http.Handler
	// Region signs the proxied requests; Domain, when set, is the Host
	// they carry (path-style at the bare domain, never a virtual host).
	Region string
	Domain string
	// S3URL is the S3 endpoint's origin (http(s)://host[:port]) that
	// presigned links name and the pages may load previews from;
	// S3Port, when set, the S3 listener's port: the console is served on
	// a listener of its own, and the S3 origin is the request's host
	// name at that port. Without either, the request's own origin.
	S3URL  string
	S3Port func() string
	// Session is how long a sign-in lasts (DefaultSession when 0).
	Session time.Duration
	// TrustForwardedFor takes the client's address (the sign-in
	// throttle's key) and scheme (the cookie's Secure, presigned URLs)
	// from X-Forwarded-For and X-Forwarded-Proto.
	TrustForwardedFor bool
	Logger            *slog.Logger
	// UI is the files served under /console/ (ui.FS's dist when nil).
	UI fs.FS
	// Now is the clock of sessions and the throttle (time.Now when nil).
	Now func() time.Time
	// Revoker, when set, records sign-outs so that every gateway sharing
	// the store refuses the session (SyncRevocations); else a sign-out
	// holds on this gateway only.
	Revoker meta.SessionRevoker
	// Anonymous, when set, is the share of the server's request slots
	// that requests not authenticated may hold (s3api.AnonymousShare): a
	// sign-in takes a place while it is served, or is refused with 503
	// SlowDown.
	Anonymous interface {
		Take() bool
		Release()
	}
}

// Handler serves /console/. It is safe for concurrent use.
type Handler struct {
	cfg      Config
	log      *slog.Logger
	throttle *throttle
	revoked  *revocations
	static   *static
}

// New returns the console's handler.
func New(cfg Config) (*Handler, error) {
	if cfg.Handler == nil || cfg.Sealer == nil || cfg.Keys.STS == nil || cfg.Authorizer == nil {
		return nil, errors.New("console: Handler, Sealer, Keys.STS and Authorizer are required")
	}
	if cfg.Session == 0 {
		cfg.Session = DefaultSession
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	files := cfg.UI
	if files == nil {
		sub, err := fs.Sub(ui.FS, "dist")
		if err != nil {
			return nil, err
		}
		files = sub
	}
	return &Handler{
		cfg: cfg, log: cfg.Logger,
		throttle: newThrottle(signInBurst, signInEvery, throttleEntries),
		revoked:  newRevocations(maxRevoked),
		static:   newStatic(files),
	}, nil
}

// Wants reports whether r is the console's rather than S3's: a path
// under Prefix (or Prefix without its slash, asked for as a page by a
// browser) that carries no S3 signature. A signed request to a bucket
// named "console" (path-style) goes on to S3, and so does any request
// for "/console" but a browser's; an anonymous request for an object of
// a bucket named "console" is the console's (ADR 0023). The caller has
// checked the prefix "/console".
func Wants(r *http.Request) bool {
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, Prefix):
	case p == Prefix[:len(Prefix)-1]:
		if !Navigation(r) {
			return false
		}
	default:
		return false
	}
	if r.Header.Get("Authorization") != "" {
		return false
	}
	if r.URL.RawQuery == "" {
		return true
	}
	q := r.URL.Query()
	return !q.Has("X-Amz-Signature") && !q.Has("X-Amz-Credential") && !q.Has("Signature") && !q.Has("AWSAccessKeyId")
}

// ServeHTTP serves a request Wants took.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if p == Prefix[:len(Prefix)-1] {
		http.Redirect(w, r, Prefix, http.StatusFound)
		return
	}
	if rest, ok := strings.CutPrefix(p, apiPrefix); ok {
		h.api(w, r, rest)
		return
	}
	h.static.serve(w, r, strings.TrimPrefix(p, Prefix), pageCSP(h.s3Origin(r)))
}

// api serves /console/api/<rest>.
func (h *Handler) api(w http.ResponseWriter, r *http.Request, rest string) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// Browsers say where a request comes from: refuse any other site's
	// (a page of a bucket on a sibling host is same-site, not
	// same-origin). The CSRF header is the check that does not depend
	// on the browser.
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		writeError(w, http.StatusForbidden, codeInvalidCsrf, "Requests from another site are refused.")
		return
	}
	if rest == "session" {
		h.session(w, r)
		return
	}
	sess, ok := h.authenticate(w, r)
	if !ok {
		return
	}
	switch {
	case rest == "s3" || strings.HasPrefix(rest, "s3/"):
		h.proxyS3(w, r, sess, strings.TrimPrefix(rest, "s3"))
	case rest == "iam":
		h.proxyIAM(w, r, sess)
	case rest == "presign":
		h.presign(w, r, sess)
	case rest == "metrics":
		h.metrics(w, r, sess)
	default:
		writeError(w, http.StatusNotFound, "NotFound", "No such console API: "+rest)
	}
}

// Codes of the console's own JSON errors (S3's and IAM's come as XML
// from the proxied request).
const (
	codeInvalidCsrf  = "InvalidCsrfToken"
	codeExpired      = "ExpiredToken"
	codeNotSignedIn  = "NotSignedIn"
	codeInvalidKey   = "InvalidAccessKeyId"
	codeBadSignature = "SignatureDoesNotMatch"
)

// apiError is the console's JSON error body.
type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func writeError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, apiError{Code: code, Message: message})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// methodNotAllowed answers a method a console API does not take.
func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	writeError(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "Use "+allow+".")
}

// secure reports whether r came over TLS (or, behind a trusted proxy,
// says it did).
func (h *Handler) secure(r *http.Request) bool { return secureRequest(r, h.cfg.TrustForwardedFor) }

// secureRequest reports whether r came over TLS or, when the proxy's
// X-Forwarded-Proto is trusted, says it did.
func secureRequest(r *http.Request, trustForwardedFor bool) bool {
	if r.TLS != nil {
		return true
	}
	return trustForwardedFor && strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}
