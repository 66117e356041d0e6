package iamapi

import (
	"net/http"

	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
)

// target is what an IAM request acts on: the resource IAM's Service
// Authorization Reference names (the ARN of the user, group, role or
// managed policy, "*" for a listing of no single entity) and, for a user
// or role, its permissions boundary.
type target struct {
	arn      string
	boundary string
}

// resourceFunc returns the target of a request.
type resourceFunc func(h *Handler, r *request) (target, error)

// The target of each kind of action. An entity is named by its stored
// ARN (with its path) when it exists, else by the ARN a Create would give
// it (the request's Path).
var (
	anyResource resourceFunc = func(*Handler, *request) (target, error) { return target{arn: "*"}, nil }

	userResource resourceFunc = func(h *Handler, r *request) (target, error) {
		name, err := r.userName()
		if err != nil {
			return target{}, err
		}
		return entityTarget(h, r, meta.EntityUser, name)
	}
	groupResource = entityResource(meta.EntityGroup, "GroupName")
	roleResource  = entityResource(meta.EntityRole, "RoleName")

	policyResource resourceFunc = func(_ *Handler, r *request) (target, error) {
		arn, err := r.arg("PolicyArn")
		return target{arn: arn}, err
	}

	newPolicyResource resourceFunc = func(h *Handler, r *request) (target, error) {
		name, err := r.arg("PolicyName")
		if err != nil {
			return target{}, err
		}
		return target{arn: h.svc.PolicyARN(name, r.get("Path"))}, nil
	}
)

func entityResource(kind meta.EntityKind, param string) resourceFunc {
	return func(h *Handler, r *request) (target, error) {
		name, err := r.arg(param)
		if err != nil {
			return target{}, err
		}
		return entityTarget(h, r, kind, name)
	}
}

func entityTarget(h *Handler, r *request, kind meta.EntityKind, name string) (target, error) {
	e, err := h.svc.Entity(r.ctx, kind, name, r.get("Path"))
	return target{arn: e.ARN, boundary: e.Boundary}, err
}

// conditionKeys are IAM's own condition keys of a request on t, as IAM's
// Service Authorization Reference lists them for the action: iam:PolicyARN
// (the managed policy attached or detached) and iam:PermissionsBoundary
// (the boundary a Put*PermissionsBoundary sets, else the user's or role's
// current one), so that a delegated administrator can be confined to
// entities under a given boundary.
func conditionKeys(a action, r *request, t target) policy.Context {
	keys := policy.Context{}
	if a.policyKey {
		keys.Set("iam:PolicyARN", r.get("PolicyArn"))
	}
	if a.boundaryKey {
		b := t.boundary
		if v := r.get("PermissionsBoundary"); v != "" {
			b = v
		}
		if b != "" {
			keys.Set("iam:PermissionsBoundary", b)
		}
	}
	return keys
}

// userName is the request's UserName or, when it has none, the calling
// user's: GetUser and the access key actions act on the caller by
// default, as IAM does for a user's long-term key.
func (r *request) userName() (string, error) {
	if v := r.get("UserName"); v != "" || r.caller == nil {
		return r.arg("UserName")
	}
	return r.caller.UserName, nil
}

// authorize lets the root do anything; any other caller (an IAM user, a
// role session) Config.Authorize decides on the action's resource. Nil
// Authorize: only the root may call. Temporary credentials from
// GetSessionToken are refused, as IAM refuses them without MFA.
func (h *Handler) authorize(r *http.Request, req *request, a action) error {
	who, err := h.cfg.Keys.Principal(req.ctx, req.accessKey, req.session)
	if err != nil {
		return err
	}
	switch {
	case who.IsRoot() && (who.Session == nil || who.Session.Console):
		return nil
	case who.Session != nil && who.Type != policy.AssumedRole && !who.Session.Console:
		h.cfg.Logger.InfoContext(req.ctx, "access denied", "id", req.id, "principal", who.Name(), "action", a.iamAction, "reason", "GetSessionToken credentials")
		return apiErrorf(http.StatusForbidden, "AccessDenied", "%s is not authorized to perform: %s with credentials from GetSessionToken: the IAM API requires MFA, which JOG does not offer", who.Name(), a.iamAction)
	case who.Type == policy.User:
		req.caller = who.User
	}
	t, err := a.resource(h, req)
	if err != nil {
		return err
	}
	if h.cfg.Authorize == nil || h.cfg.Authorize(r, who, a.iamAction, t.arn, conditionKeys(a, req, t)) != policy.Allowed {
		h.cfg.Logger.InfoContext(req.ctx, "access denied", "id", req.id, "principal", who.Name(), "action", a.iamAction, "resource", t.arn)
		return errAccessDenied(who.Name(), a.iamAction, t.arn)
	}
	return nil
}
