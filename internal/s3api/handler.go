package s3api

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/bodytimeout"
	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/qos"
	"github.com/jogstore/jog/internal/qos/sched"
	"github.com/jogstore/jog/internal/service"
	"github.com/jogstore/jog/internal/sigv2"
	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/sts"
)

// Config configures the S3 edge.
type Config struct {
	Region      string
	Domain      string // enables virtual-hosted-style addressing when set
	Credentials sigv4.Credentials
	Logger      *slog.Logger
	// Admitter admits or refuses each request before it is served (see
	// Admitter for where, and why there). Nil means MaxRequests decides.
	Admitter Admitter
	// MaxRequests, when Admitter is nil, bounds the requests served at
	// once (a ConcurrencyLimit); beyond it requests are refused at once
	// with 503 SlowDown, as S3 does. 0 means no bound.
	MaxRequests int
	// Anonymous, when set, bounds the requests not authenticated (yet)
	// served at once, within the Admitter's (AnonymousShare).
	Anonymous *AnonymousShare
	// Body bounds how slowly a request body may arrive (bodytimeout):
	// beyond, 400 RequestTimeout and nothing stored.
	Body bodytimeout.Limits
	// IAM, when set, authenticates IAM users' access keys (after the
	// root's Credentials) and gives their identity policies.
	IAM *iam.Service
	// STS, when set, issues the temporary credentials (session tokens)
	// that sign requests too.
	STS *sts.Service
	// TrustForwardedFor takes aws:SourceIp and aws:SecureTransport from
	// X-Forwarded-For and X-Forwarded-Proto (authz.Options): only behind a
	// proxy that sets them.
	TrustForwardedFor bool
	// AllowInsecureSSEC accepts SSE-C keys over plain HTTP (tests on
	// loopback); otherwise they are refused as S3 refuses them
	// (kms.ErrSSECInsecure), TLS being judged as aws:SecureTransport.
	AllowInsecureSSEC bool
	// DefaultObjectOwnership is the Object Ownership setting of a bucket
	// created without an x-amz-object-ownership header ("" is
	// BucketOwnerEnforced, S3's).
	DefaultObjectOwnership string
	// Reservations, when set, serves the reservation routes and
	// validates the reservations requests present (x-jog-reservation-id,
	// or bound to their principal). Nil: those routes answer 501 and the
	// header is ignored.
	Reservations *qos.Reservations
	// Scheduler, when set, paces the bodies of GET, PUT, UploadPart and
	// UploadPartCopy, and with a request direction the requests
	// themselves (schedule.go): reservations get their rates, best effort
	// shares the rest. Nil: nothing is scheduled.
	Scheduler *sched.Scheduler
	// Observer, when set, is handed every request's Record once it is
	// answered (metrics, access logs). Nil: no Record is built.
	Observer Observer
}

// Handler serves the S3 API over a service.Service.
type Handler struct {
	svc        *service.Service
	cfg        Config
	log        *slog.Logger
	verifier   *sigv4.Verifier
	verifierV2 *sigv2.Verifier
	admit      Admitter // nil = every request admitted
	authz      *authz.Authorizer
	keys       sts.Keys
	account    string // the IAM account, named in the ARNs of KMS keys
}

// request is one S3 request after routing and authentication.
type request struct {
	*http.Request
	id    string
	route Route
	auth  *sigv4.Result
	// who made the request: the root, an IAM user or anonymous.
	who authz.Principal
	// check is the request's condition keys, built when a principal other
	// than the root is authorized.
	check *authz.Check
	// authzIn is what check reads of the request (prepare): a part of
	// the request, not an allocation of its own.
	authzIn authz.Request
	// h is the handler, for authzIn.ExistingTags (the request itself).
	h *Handler
	// form is a PostObject's form fields as the equivalent PUT's headers:
	// what authorization reads for the request's headers (authzHTTP).
	form http.Header
	// own is the existing object the request names, as authorization
	// reads it (request.object).
	own object
	// reservation is the active reservation the request draws on
	// (presentReservation): nil when it presents none. The data path's
	// scheduler reads it.
	reservation *meta.Reservation
	// orig is the request as it arrived, for the Record.
	orig *http.Request
	// body counts the request body bytes read (bytesIn) and tags the
	// client's network errors (clientBody).
	body    clientBody
	bytesIn int64
	// timed is the body under Config.Body, beneath body.
	timed bodytimeout.Reader
	// anonymous is set while the request holds a place in
	// Config.Anonymous (releaseAnonymous).
	anonymous bool
	// code is the S3 error code sent, "" on success.
	code string
	// parsed is the URL's query, parsed once (query).
	parsed url.Values
}

// query returns the request's query parameters, parsed once for the
// router, serve and the handler: nil when there are none. Callers must
// not modify it.
func (r *request) query() url.Values {
	if r.parsed == nil && r.URL.RawQuery != "" {
		r.parsed = r.URL.Query()
	}
	return r.parsed
}

// handlerFunc serves one operation: a Handler method, as a method
// expression ((*Handler).putObject) in the operations table. It writes the
// success response itself and returns an error for the single error writer
// to map and send.
type handlerFunc func(h *Handler, w http.ResponseWriter, r *request) error

// New returns the S3 API handler.
func New(svc *service.Service, cfg Config) *Handler {
	creds := sts.Keys{Root: cfg.Credentials, IAM: cfg.IAM, STS: cfg.STS}
	account := ""
	if cfg.IAM != nil {
		account = cfg.IAM.Account()
	}
	h := &Handler{
		svc: svc, cfg: cfg, log: cfg.Logger,
		verifier:   &sigv4.Verifier{Region: cfg.Region, Credentials: creds},
		verifierV2: &sigv2.Verifier{Credentials: creds, Domain: cfg.Domain, Routing: SignedRoutingParams()},
		authz:      authz.New(account, authz.Options{TrustForwardedFor: cfg.TrustForwardedFor}),
		keys:       creds,
		account:    account,
	}
	h.admit = cfg.Admitter
	if h.admit == nil && cfg.MaxRequests > 0 {
		h.admit = NewConcurrencyLimit(cfg.MaxRequests)
	}
	return h
}

// serverName is the Server header's one value, shared: net/http only reads
// a response's header values.
var serverName = []string{"JOG"}

// ServeHTTP is the single entry point: route, admit, authenticate,
// dispatch, and write any error in one place.
func (h *Handler) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	start := time.Now()
	w := &statusWriter{ResponseWriter: rw}
	req := &request{Request: r, orig: r, id: newRequestID()}
	hdr := w.Header()
	ids := [...]string{req.id, hostID(req.id)}
	hdr["X-Amz-Request-Id"] = ids[0:1:1]
	hdr["X-Amz-Id-2"] = ids[1:2:2]
	hdr["Server"] = serverName

	if h.cfg.Observer != nil {
		// Deferred: a response that fails after its header (writeError)
		// ends in a panic, and is observed too.
		defer h.observe(w, req, start)
	}
	req.route = parseRoute(r, h.cfg.Domain, req.query())
	var err error
	if h.admit == nil {
		err = h.serveThenRelease(w, req, nil)
	} else if release, refused := h.admit.Admit(r.Context(), req.route); refused != nil {
		err = refused
	} else {
		err = h.serveThenRelease(w, req, release)
	}
	if err != nil {
		h.writeError(w, req, err)
	}
	req.timed.Done() // what net/http reads of the rest of the body is bounded too
	if !h.log.Enabled(r.Context(), slog.LevelDebug) {
		return // not even the attributes' slice
	}
	h.log.LogAttrs(r.Context(), slog.LevelDebug, "request",
		slog.String("id", req.id), slog.String("op", req.route.Op.String()),
		slog.String("method", r.Method), slog.String("bucket", req.route.Bucket),
		slog.String("key", req.route.Key), slog.Int("status", w.status),
		slog.Int64("bytes_out", w.written), slog.Duration("dur", time.Since(start)))
}

// serveThenRelease serves an admitted request and releases its admission
// (release; nil when every request is admitted) even when a handler
// panics (net/http recovers the panic; a slot kept forever would shrink
// the server's capacity for good), and its authorization's Check for the
// next request.
func (h *Handler) serveThenRelease(w http.ResponseWriter, req *request, release func()) error {
	defer func() {
		if release != nil {
			release()
		}
		h.releaseAnonymous(req)
		req.check.Release()
		req.check = nil
	}()
	return h.serve(w, req)
}

func (h *Handler) serve(w http.ResponseWriter, req *request) error {
	// Wrap the body (here, and in authenticate) on a shallow copy of the
	// request: once the handler returns, net/http looks at its own
	// request's Body to decide how to finish — close the connection rather
	// than read a large unread body, never send "100 Continue" for a body
	// the handler did not read. Behind a wrapper it would instead read up to
	// 256 KiB first, waiting on a client that waits for the answer.
	req.Request = req.Request.WithContext(req.Context())
	if req.Body != nil && req.Body != http.NoBody {
		src := req.Body
		if h.cfg.Body.On() && !bodytimeout.Timed(src) { // the console's proxy timed it already
			req.timed.Reset(w, src, h.cfg.Body)
			src = &req.timed
		}
		req.body = clientBody{ReadCloser: src, n: &req.bytesIn}
		req.Body = &req.body
	}
	// CORS comes before authentication, as in S3: a preflight carries no
	// credentials, and a browser reads an actual request's error (a
	// signature that does not match, an expired URL) only with the CORS
	// headers. A request without Origin pays one map lookup.
	if req.route.Op == OpPreflight {
		return h.preflight(w, req)
	}
	if origin := req.Header["Origin"]; len(origin) > 0 && req.route.Bucket != "" {
		h.setCORSHeaders(w, req, origin[0])
	}
	// A browser-based upload is authenticated, and then authorized, by
	// its form (postObject): it carries no Authorization header.
	if req.route.Op != OpPostObject {
		if err := h.authenticate(req); err != nil {
			return err
		}
	}
	// A header or query parameter JOG reads one value of, sent twice, is
	// refused before the authorizer and the handler read it: a policy
	// would see both values, the handler act on one.
	if name := repeatedHeader(req.Header); name != "" {
		return apiErr(http.StatusBadRequest, "InvalidArgument",
			"The header %q appears more than once.", strings.ToLower(name))
	}
	q := req.query()
	if name := repeatedParam(q); name != "" {
		return apiErr(http.StatusBadRequest, "InvalidArgument",
			"The query parameter %q appears more than once.", name)
	}
	if req.route.Op != OpPostObject {
		if err := h.authorize(req); err != nil {
			return err
		}
		if req.who.Type == policy.Anonymous {
			if err := anonymousRefusal(req); err != nil {
				return err
			}
		}
	}
	// Not authenticated (yet): an anonymous request, or a form upload
	// until postObject verifies its signature (its who is still the zero
	// Principal, anonymous). It holds a place in the anonymous share.
	if req.who.Type == policy.Anonymous {
		if !h.cfg.Anonymous.Take() {
			return ErrSlowDown
		}
		req.anonymous = true
	}
	switch req.route.Op {
	case OpUnknown:
		return errMethodNotAllowed
	case OpUnsupported:
		return apiErr(http.StatusNotImplemented, "NotImplemented",
			"The %q API is not implemented yet.", req.route.Sub)
	}
	if err := checkWire(req.route.Op, req.Header, q); err != nil {
		return err
	}
	if versionOps.has(req.route.Op) {
		if _, err := versionParam(q); err != nil {
			return err
		}
	}
	if err := h.checkExpectedOwners(req); err != nil {
		return err
	}
	if err := h.presentReservation(req); err != nil {
		return err
	}
	if req.reservation != nil { // the client learns which reservation it drew on
		w.Header().Set(qos.Header, req.reservation.ID)
	}
	if req.route.Op != OpPostObject { // charged once its form is authorised
		if err := h.awaitRequest(req); err != nil {
			return err
		}
	}
	h.withNotify(req)
	if err := h.withReplica(req); err != nil {
		return err
	}
	return operations[req.route.Op].serve(h, w, req)
}

// releaseAnonymous gives back the request's place in the anonymous share,
// if it holds one: when it is answered, or once a form upload's signature
// is verified.
func (h *Handler) releaseAnonymous(req *request) {
	if req.anonymous {
		req.anonymous = false
		h.cfg.Anonymous.Release()
	}
}

// errClientRead marks a failure to read the request body from the client's
// connection (reset, timeout): the client's doing, not the server's.
var errClientRead = errors.New("reading the request body")

// clientBody tags the request body's network errors with errClientRead,
// so a client that hangs up mid-upload gets (if it still listens) 400
// IncompleteBody and the log no internal error. io.EOF and
// io.ErrUnexpectedEOF pass through unchanged: readers compare them by ==.
// It counts the bytes read in n, when set.
type clientBody struct {
	io.ReadCloser
	n *int64
}

func (b clientBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.n != nil {
		*b.n += int64(n)
	}
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		err = fmt.Errorf("%w: %w", errClientRead, err)
	}
	return n, err
}

// repeatedParam returns the first (by name) query parameter that appears
// more than once, or "". Repeated parameters are refused rather than
// resolved: "?uploadId=a&uploadId=b" or "?list-type=2&list-type=1" would
// otherwise mean whichever value a reader picks, and a proxy in front of
// JOG may pick differently.
func repeatedParam(q url.Values) string {
	name := ""
	for k, v := range q {
		if len(v) > 1 && (name == "" || k < name) {
			name = k
		}
	}
	return name
}

// writeError maps err to its S3 error and sends it. HEAD responses and 304s
// carry no body. Internal errors are logged with the request ID.
func (h *Handler) writeError(w *statusWriter, req *request, err error) {
	var late errAfterHeader
	if errors.As(err, &late) || w.status != 0 {
		h.log.Warn("request failed after response started", "id", req.id, "err", err)
		req.code = "InternalError"  // for the Record: the response is cut short
		panic(http.ErrAbortHandler) // the client sees a truncated response, never a wrong one
	}
	ae, known := toAPIError(err)
	req.code = ae.Code
	if !known {
		h.log.Error("internal error", "id", req.id, "op", req.route.Op.String(),
			"bucket", req.route.Bucket, "key", req.route.Key, "err", err)
	} else if ae == errInsufficientStorage {
		h.log.Error("no space left for the data dir", "id", req.id, "op", req.route.Op.String(),
			"bucket", req.route.Bucket, "key", req.route.Key, "err", err)
	} else {
		h.log.Debug("request error", "id", req.id, "code", ae.Code, "err", err)
	}
	hdr := w.Header()
	keep := ae.Status == http.StatusNotModified // a 304 still names the ETag and Last-Modified
	marker := errors.As(err, new(markerAnswer)) // a delete marker's answer names its Last-Modified
	for _, k := range []string{"ETag", "Last-Modified", "Accept-Ranges", "Content-Disposition",
		"Content-Encoding", "Content-Language", "Cache-Control", "Expires"} {
		if !keep && !(marker && k == "Last-Modified") {
			hdr.Del(k)
		}
	}
	if ae.Code == errUnavailable.Code { // a store that may come back: when to try again
		hdr.Set("Retry-After", strconv.Itoa(retryAfter))
	}
	if ae.Status == http.StatusNotModified || req.Method == http.MethodHead {
		hdr.Del("Content-Type")
		hdr.Del("Content-Length")
		w.WriteHeader(ae.Status)
		return
	}
	body := errorResponse{
		Code: ae.Code, Message: ae.Message, RequestID: req.id, HostID: hostID(req.id),
		Resource: req.URL.Path, BucketName: req.route.Bucket, Key: req.route.Key,
	}
	var denied *corsDenied
	if errors.As(err, &denied) {
		body.Method, body.ResourceType = denied.method, denied.resourceType
	}
	out, _ := xml.Marshal(body)
	hdr.Set("Content-Type", "application/xml")
	hdr.Del("Content-Length")
	w.WriteHeader(ae.Status)
	_, _ = io.WriteString(w, xml.Header)
	_, _ = w.Write(out)
}

// retryAfter is the Retry-After, in seconds, of a ServiceUnavailable
// answer (errUnavailable: the metadata store cannot be reached).
const retryAfter = 5

func newRequestID() string {
	// Unique, not secret: math/rand/v2's per-thread generator rather than
	// crypto/rand, written as 16 upper-case hex digits in one allocation.
	const digits = "0123456789ABCDEF"
	var b [16]byte
	v := rand.Uint64()
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b[:])
}

// hostID derives the x-amz-id-2 value from the request ID.
func hostID(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:16])
}

// statusWriter records the status and byte count for logs and metrics. It
// forwards ReadFrom so that io.Copy from a file still reaches sendfile.
type statusWriter struct {
	http.ResponseWriter
	status  int
	written int64
	first   time.Time // when the header was sent
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		w.first = time.Now()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
		w.first = time.Now()
	}
	n, err := w.ResponseWriter.Write(p)
	w.written += int64(n)
	return n, err
}

func (w *statusWriter) ReadFrom(src io.Reader) (int64, error) {
	if w.status == 0 {
		w.status = http.StatusOK
		w.first = time.Now()
	}
	var n int64
	var err error
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(src) // HTTP/1: sendfile from an *os.File
	} else {
		n, err = io.Copy(writerOnly{w.ResponseWriter}, src) // HTTP/2
	}
	w.written += n
	return n, err
}

// writerOnly hides every method but Write, so io.Copy cannot loop back
// into ReadFrom.
type writerOnly struct{ io.Writer }

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
