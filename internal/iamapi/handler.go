// Package iamapi serves IAM's query API (version 2010-05-08) on JOG's
// endpoint: requests signed for service "iam" (sigv4.ScopeService routes
// them here) name an Action and its parameters in a form body (POST) or
// the query (GET); each action calls internal/iam's Service and answers in
// IAM's XML.
//
//	handler.go  Handler: parse, authenticate, authorize, dispatch, respond
//	actions.go  the action table: each Action, its IAM action name, its code;
//	            users, keys, groups, roles
//	policies.go managed policies; inline and attached policies of users,
//	            groups and roles
//	xml.go      the response shapes (botocore's IAM model's member names)
//	errors.go   every error mapped to IAM's code and status, in one place
//
// The root credentials may call every action; an IAM user's request is
// decided by Config.Authorize (authz.DecideIAM: its identity policies and
// permissions boundary) on the IAM ARN the action acts on (authorize.go).
package iamapi

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/sigv4"
)

// Service is the name of the service in a credential scope this API
// serves.
const Service = "iam"

// Version is the only API version served.
const Version = "2010-05-08"

// xmlns is the namespace of every response.
const xmlns = "https://iam.amazonaws.com/doc/2010-05-08/"

// maxBody bounds a request's form body: the largest parameters are policy
// documents (at most 10 KiB once stored), URL-encoded.
const maxBody = 1 << 20

// Config configures the IAM API.
type Config struct {
	Region string
	// Credentials resolves the root's access keys; the IAM users' active
	// keys (the iam.Service's) authenticate too.
	Credentials sigv4.Credentials
	// Root is the root access key: it may call every action.
	Root string
	// Authorize decides whether an IAM user (any key but the root's) may
	// call action (an IAM action name, "iam:CreateUser") on resource (an
	// IAM ARN, "*" for a listing), with IAM's own condition keys of the
	// request (iam:PolicyARN, iam:PermissionsBoundary); anything but
	// policy.Allowed refuses. Nil: only the root may call.
	Authorize func(r *http.Request, who *iam.Principal, action, resource string, keys policy.Context) policy.Decision
	Logger    *slog.Logger
}

// Handler serves the IAM query API over an iam.Service.
type Handler struct {
	svc      *iam.Service
	cfg      Config
	verifier *sigv4.Verifier
}

// New returns the IAM API handler.
func New(svc *iam.Service, cfg Config) *Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	creds := userKeys{cfg.Credentials, svc}
	return &Handler{svc: svc, cfg: cfg, verifier: &sigv4.Verifier{Region: cfg.Region, Service: Service, Credentials: creds}}
}

// userKeys are the root's keys, then the IAM users' active keys.
type userKeys struct {
	root  sigv4.Credentials
	users *iam.Service
}

func (c userKeys) SecretKey(id string) (string, bool) {
	if c.root != nil {
		if s, ok := c.root.SecretKey(id); ok {
			return s, true
		}
	}
	return c.users.SecretKey(id)
}

// request is one IAM request once authenticated.
type request struct {
	ctx       context.Context
	id        string
	action    string
	params    url.Values
	accessKey string
	caller    *iam.Principal // the IAM user calling; nil for the root
}

// ServeHTTP authenticates, authorizes and serves one request; every error
// is written by writeError.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req := &request{ctx: r.Context(), id: newRequestID()}
	w.Header().Set("x-amzn-RequestId", req.id)
	w.Header().Set("Server", "JOG")
	if err := h.serve(w, r, req); err != nil {
		h.writeError(w, req, err)
	}
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request, req *request) error {
	body, err := h.readBody(r)
	if err != nil {
		return err
	}
	res, err := h.verifier.Verify(r)
	if err != nil {
		return err
	}
	req.accessKey = res.AccessKey
	req.params, err = params(r, body)
	if err != nil {
		return err
	}
	req.action = req.params.Get("Action")
	a, ok := actions[req.action]
	if v := req.params.Get("Version"); !ok || v != "" && v != Version {
		return apiErrorf(http.StatusBadRequest, "InvalidAction", "Could not find operation %s for version %s", req.action, req.params.Get("Version"))
	}
	if err := h.authorize(r, req, a); err != nil {
		return err
	}
	result, err := a.serve(h, req)
	if err != nil {
		return err
	}
	return writeResponse(w, req, result)
}

// readBody reads the form body (bounded) and makes sure the signature
// covers it: the payload hash a client signed must be the body's (IAM's
// SDKs send no x-amz-content-sha256; the verifier then signs the body's
// hash, set here). An unsigned payload is refused: the body names the
// action.
func (h *Handler) readBody(r *http.Request) ([]byte, error) {
	var body []byte
	if r.Body != nil {
		var err error
		body, err = io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err != nil {
			return nil, apiErrorf(http.StatusBadRequest, "MalformedQueryString", "The request body could not be read.")
		}
		if len(body) > maxBody {
			return nil, apiErrorf(http.StatusRequestEntityTooLarge, "RequestEntityTooLarge", "The request body is larger than %d bytes.", maxBody)
		}
	}
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	switch v := r.Header.Values("X-Amz-Content-Sha256"); {
	case len(v) == 0:
		r.Header.Set("X-Amz-Content-Sha256", hash)
	case len(v) != 1 || v[0] != hash:
		return nil, sigv4.ErrContentSHA256Mismatch
	}
	return body, nil
}

// params are the query's parameters and the form body's; a POST's body
// must be a form.
func params(r *http.Request, body []byte) (url.Values, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, apiErrorf(http.StatusBadRequest, "MalformedQueryString", "The query string is malformed.")
	}
	if len(body) == 0 {
		return q, nil
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(strings.ToLower(ct), "application/x-www-form-urlencoded") {
		return nil, apiErrorf(http.StatusBadRequest, "MalformedQueryString", "The request body must be application/x-www-form-urlencoded.")
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, apiErrorf(http.StatusBadRequest, "MalformedQueryString", "The request body is not a valid form.")
	}
	for k, v := range form {
		q[k] = append(q[k], v...)
	}
	return q, nil
}

// writeResponse writes <ActionResponse><ActionResult>result</ActionResult>
// <ResponseMetadata/></ActionResponse>; a nil result has no Result element.
func writeResponse(w http.ResponseWriter, req *request, result any) error {
	var b strings.Builder
	enc := xml.NewEncoder(&b)
	start := xml.StartElement{Name: xml.Name{Local: req.action + "Response"}, Attr: []xml.Attr{{Name: xml.Name{Local: "xmlns"}, Value: xmlns}}}
	if err := enc.EncodeToken(start); err != nil {
		return err
	}
	if result != nil {
		if err := enc.EncodeElement(result, xml.StartElement{Name: xml.Name{Local: req.action + "Result"}}); err != nil {
			return err
		}
	}
	meta := struct {
		RequestID string `xml:"RequestId"`
	}{req.id}
	if err := enc.EncodeElement(meta, xml.StartElement{Name: xml.Name{Local: "ResponseMetadata"}}); err != nil {
		return err
	}
	if err := enc.EncodeToken(start.End()); err != nil {
		return err
	}
	if err := enc.Flush(); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, xml.Header+b.String()) // a client gone is no error to answer
	return nil
}

func newRequestID() string {
	b := make([]byte, 16)
	rand.Read(b)
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
