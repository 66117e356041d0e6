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
// Only the root credentials may call it for now (Config.Authorize decides
// for any other key, once user keys authenticate).
package iamapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/jogstore/jog/internal/iam"
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
	// Credentials resolves the access keys that may sign requests.
	Credentials sigv4.Credentials
	// Root is the root access key: it may call every action.
	Root string
	// Authorize decides whether accessKey, authenticated and not the
	// root's, may call action (an IAM action name, "iam:CreateUser"): nil
	// or an error (errAccessDenied refuses). Nil: only the root may.
	Authorize func(ctx context.Context, accessKey, action string) error
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
	return &Handler{svc: svc, cfg: cfg, verifier: &sigv4.Verifier{Region: cfg.Region, Service: Service, Credentials: cfg.Credentials}}
}

// request is one IAM request once authenticated.
type request struct {
	ctx       context.Context
	id        string
	action    string
	params    url.Values
	accessKey string
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
	body, err := queryapi.ReadBody(r)
	if err != nil {
		return err
	}
	res, err := h.verifier.Verify(r)
	if err != nil {
		return err
	}
	req.accessKey = res.AccessKey
	req.params, err = queryapi.Params(r, body)
	if err != nil {
		return err
	}
	req.action = req.params.Get("Action")
	a, ok := actions[req.action]
	if v := req.params.Get("Version"); !ok || v != "" && v != Version {
		return apiErrorf(http.StatusBadRequest, "InvalidAction", "Could not find operation %s for version %s", req.action, req.params.Get("Version"))
	}
	if err := h.authorize(req, a.iamAction); err != nil {
		return err
	}
	result, err := a.serve(h, req)
	if err != nil {
		return err
	}
	return queryapi.WriteResponse(w, xmlns, req.action, req.id, result)
}

// authorize lets the root do anything and asks Config.Authorize about any
// other key.
func (h *Handler) authorize(req *request, action string) error {
	if req.accessKey == h.cfg.Root {
		return nil
	}
	if h.cfg.Authorize != nil {
		return h.cfg.Authorize(req.ctx, req.accessKey, action)
	}
	return errAccessDenied(req.accessKey, action)
}
