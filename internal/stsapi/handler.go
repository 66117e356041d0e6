// Package stsapi serves STS's query API (version 2011-06-15) on JOG's
// endpoint: requests signed for service "sts" (sigv4.ScopeService routes
// them here) name an Action — AssumeRole, GetSessionToken,
// GetCallerIdentity — and its parameters in a form body (POST) or the
// query (GET); each calls internal/sts and answers in STS's XML. The
// query protocol's plumbing is internal/queryapi's, shared with IAM's API.
//
//	handler.go  Handler: parse, authenticate, dispatch, respond; the actions
//	errors.go   every error mapped to STS's code and status, in one place
package stsapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/queryapi"
	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/sts"
)

// Service is the name of the service in a credential scope this API
// serves.
const Service = "sts"

// Version is the only API version served.
const Version = "2011-06-15"

// xmlns is the namespace of every response.
const xmlns = "https://sts.amazonaws.com/doc/2011-06-15/"

// Config configures the STS API.
type Config struct {
	Region string
	// Keys resolve the access keys that may sign requests and who each
	// is: the root's, IAM users', temporary credentials.
	Keys sts.Keys
	// TrustForwardedFor: aws:SourceIp and aws:SecureTransport, in trust
	// policies' conditions, from X-Forwarded-For and X-Forwarded-Proto.
	TrustForwardedFor bool
	// Unauthenticated, when set, bounds the requests reading their
	// bodies before their signatures can be checked
	// (queryapi.ReadBody).
	Unauthenticated queryapi.Share
	Logger          *slog.Logger
}

// Handler serves the STS query API over an sts.Service.
type Handler struct {
	svc      *sts.Service
	cfg      Config
	verifier *sigv4.Verifier
	authz    *authz.Authorizer
}

// New returns the STS API handler.
func New(svc *sts.Service, cfg Config) *Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Handler{
		svc: svc, cfg: cfg,
		verifier: &sigv4.Verifier{Region: cfg.Region, Service: Service, Credentials: cfg.Keys},
		authz:    authz.New(svc.Account(), authz.Options{TrustForwardedFor: cfg.TrustForwardedFor}),
	}
}

// request is one STS request once authenticated.
type request struct {
	*http.Request
	ctx    context.Context
	id     string
	action string
	params url.Values
	caller authz.Principal
}

// actions are the served actions.
var actions = map[string]func(*Handler, *request) (any, error){
	"AssumeRole":        (*Handler).assumeRole,
	"GetSessionToken":   (*Handler).getSessionToken,
	"GetCallerIdentity": (*Handler).getCallerIdentity,
}

// ServeHTTP authenticates and serves one request; every error is written
// by writeError.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req := &request{Request: r, ctx: r.Context(), id: queryapi.NewRequestID()}
	w.Header().Set("x-amzn-RequestId", req.id)
	w.Header().Set("Server", "JOG")
	if err := h.serve(w, req); err != nil {
		h.writeError(w, req, err)
	}
}

func (h *Handler) serve(w http.ResponseWriter, req *request) error {
	body, err := queryapi.ReadBody(req.Request, h.cfg.Unauthenticated)
	if err != nil {
		return err
	}
	res, err := h.verifier.Verify(req.Request)
	if err != nil {
		return err
	}
	if req.caller, err = h.cfg.Keys.Principal(req.ctx, res.AccessKey, res.Holder); err != nil {
		return err
	}
	if req.params, err = queryapi.Params(req.Request, body); err != nil {
		return err
	}
	req.action = req.params.Get("Action")
	serve, ok := actions[req.action]
	if v := req.params.Get("Version"); !ok || v != "" && v != Version {
		return queryapi.Errorf(http.StatusBadRequest, "InvalidAction", "Could not find operation %s for version %s", req.action, req.params.Get("Version"))
	}
	result, err := serve(h, req)
	if err != nil {
		return err
	}
	return queryapi.WriteResponse(w, xmlns, req.action, req.id, result)
}

// The response shapes, with the member names of botocore's STS model.

type credentialsXML struct {
	AccessKeyID     string `xml:"AccessKeyId"`
	SecretAccessKey string
	SessionToken    string
	Expiration      string
}

func credentials(c sts.Credentials) credentialsXML {
	return credentialsXML{AccessKeyID: c.AccessKeyID, SecretAccessKey: c.Secret.Reveal(), SessionToken: c.SessionToken,
		Expiration: c.Expiration.UTC().Format(time.RFC3339)}
}

type assumeRoleResult struct {
	Credentials     credentialsXML
	AssumedRoleUser struct {
		AssumedRoleID string `xml:"AssumedRoleId"`
		Arn           string
	}
	PackedPolicySize int `xml:",omitempty"` // 0 (absent) without session policies
}

func (h *Handler) assumeRole(req *request) (any, error) {
	in := sts.AssumeRoleInput{RoleARN: req.params.Get("RoleArn"), SessionName: req.params.Get("RoleSessionName"), Policy: req.params.Get("Policy")}
	if in.RoleARN == "" {
		return nil, errMissing("roleArn")
	}
	if in.SessionName == "" {
		return nil, errMissing("roleSessionName")
	}
	var err error
	if in.Duration, err = duration(req.params); err != nil {
		return nil, err
	}
	for i := 1; ; i++ {
		arn, ok := req.params["PolicyArns.member."+strconv.Itoa(i)+".arn"]
		if !ok {
			break
		}
		in.PolicyARNs = append(in.PolicyARNs, arn[0])
	}
	check := h.authz.Prepare(&authz.Request{Principal: req.caller, HTTP: req.Request})
	out, err := h.svc.AssumeRole(req.ctx, req.caller, check, in)
	if err != nil {
		return nil, err
	}
	res := assumeRoleResult{Credentials: credentials(out.Credentials), PackedPolicySize: out.PackedPolicySize}
	res.AssumedRoleUser.AssumedRoleID, res.AssumedRoleUser.Arn = out.AssumedRoleID, out.ARN
	return res, nil
}

func (h *Handler) getSessionToken(req *request) (any, error) {
	d, err := duration(req.params)
	if err != nil {
		return nil, err
	}
	if req.params.Get("SerialNumber") != "" || req.params.Get("TokenCode") != "" {
		return nil, queryapi.Errorf(http.StatusBadRequest, "ValidationError", "JOG has no MFA devices: SerialNumber and TokenCode are not supported.")
	}
	c, err := h.svc.GetSessionToken(req.caller, d)
	if err != nil {
		return nil, err
	}
	return sessionTokenResult{credentials(c)}, nil
}

type sessionTokenResult struct{ Credentials credentialsXML }

type callerIdentityResult struct {
	UserID  string `xml:"UserId"`
	Account string
	Arn     string
}

func (h *Handler) getCallerIdentity(req *request) (any, error) {
	id := h.svc.CallerIdentity(req.caller)
	return callerIdentityResult{UserID: id.UserID, Account: id.Account, Arn: id.ARN}, nil
}

// duration is the DurationSeconds parameter, 0 when absent.
func duration(p url.Values) (time.Duration, error) {
	v := p.Get("DurationSeconds")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil || n <= 0 {
		return 0, queryapi.Errorf(http.StatusBadRequest, "ValidationError", "1 validation error detected: Value '%s' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to 900", v)
	}
	return time.Duration(n) * time.Second, nil
}
