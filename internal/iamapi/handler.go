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
// The root credentials may call every action; an IAM user's request, or a
// role session's, is decided by Config.Authorize (authz.DecideIAM: its
// identity policies, permissions boundary and session policy) on the IAM
// ARN the action acts on (authorize.go). Credentials from GetSessionToken
// are refused, as IAM refuses them without MFA (JOG has none).
package iamapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/queryapi"
	"github.com/jogstore/jog/internal/sigv4"
)

// Service is the name of the service in a credential scope this API
// serves.
const Service = "iam"

// Version is the only API version served.
const Version = "2010-05-08"

// xmlns is the namespace of every response.
const xmlns = "https://iam.amazonaws.com/doc/2010-05-08/"

// Config configures the IAM API.
type Config struct {
	Region string
	// Keys verify signatures (the root's keys, IAM users' active keys and
	// temporary credentials with their token) and say who signed
	// (sts.Keys).
	Keys Keys
	// Authorize decides whether a caller other than the root may call
	// action (an IAM action name, "iam:CreateUser") on resource (an IAM
	// ARN, "*" for a listing), with IAM's own condition keys of the
	// request (iam:PolicyARN, iam:PermissionsBoundary); anything but
	// policy.Allowed refuses (authz.Authorizer.DecideIAM). Nil: only the
	// root may call.
	Authorize func(r *http.Request, who authz.Principal, action, resource string, keys policy.Context) policy.Decision
	// Unauthenticated, when set, bounds the requests reading their
	// bodies before their signatures can be checked
	// (queryapi.ReadBody).
	Unauthenticated queryapi.Share
	Logger          *slog.Logger
}

// Keys are the credentials the API verifies signatures against and who
// each is.
type Keys interface {
	sigv4.SessionCredentials
	// Principal is who signed with access key id (session: the
	// verifier's sigv4.Result.Holder).
	Principal(ctx context.Context, id string, session any) (authz.Principal, error)
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
	return &Handler{svc: svc, cfg: cfg, verifier: &sigv4.Verifier{Region: cfg.Region, Service: Service, Credentials: cfg.Keys}}
}

// request is one IAM request once authenticated.
type request struct {
	ctx       context.Context
	id        string
	action    string
	params    url.Values
	accessKey string
	session   any            // the verifier's Result.Holder: who holds the key
	caller    *iam.Principal // the IAM user calling; nil for the root and roles
}

// ServeHTTP authenticates, authorizes and serves one request; every error
// is written by writeError.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req := &request{ctx: r.Context(), id: queryapi.NewRequestID()}
	w.Header().Set("x-amzn-RequestId", req.id)
	w.Header().Set("Server", "JOG")
	if err := h.serve(w, r, req); err != nil {
		h.writeError(w, req, err)
	}
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request, req *request) error {
	body, err := queryapi.ReadBody(r, h.cfg.Unauthenticated)
	if err != nil {
		return err
	}
	res, err := h.verifier.Verify(r)
	if err != nil {
		return err
	}
	req.accessKey, req.session = res.AccessKey, res.Holder
	req.params, err = queryapi.Params(r, body)
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
	return queryapi.WriteResponse(w, xmlns, req.action, req.id, result)
}
