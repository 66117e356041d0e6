package iamapi

import (
	"errors"
	"net/http"

	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/sigv4"
)

// resourceFunc returns the resource an IAM request acts on, as IAM's
// Service Authorization Reference names it: the ARN of the user, group,
// role or managed policy, or "*" for a listing of no single entity.
type resourceFunc func(h *Handler, r *request) (string, error)

// The resource of each kind of action. An entity is named by its stored
// ARN (with its path) when it exists, else by the ARN a Create would give
// it (the request's Path).
var (
	anyResource resourceFunc = func(*Handler, *request) (string, error) { return "*", nil }

	userResource resourceFunc = func(h *Handler, r *request) (string, error) {
		name, err := r.userName()
		if err != nil {
			return "", err
		}
		return h.svc.EntityARN(r.ctx, meta.EntityUser, name, r.get("Path"))
	}
	groupResource = entityResource(meta.EntityGroup, "GroupName")
	roleResource  = entityResource(meta.EntityRole, "RoleName")

	policyResource resourceFunc = func(_ *Handler, r *request) (string, error) { return r.arg("PolicyArn") }

	newPolicyResource resourceFunc = func(h *Handler, r *request) (string, error) {
		name, err := r.arg("PolicyName")
		if err != nil {
			return "", err
		}
		return h.svc.PolicyARN(name, r.get("Path")), nil
	}
)

func entityResource(kind meta.EntityKind, param string) resourceFunc {
	return func(h *Handler, r *request) (string, error) {
		name, err := r.arg(param)
		if err != nil {
			return "", err
		}
		return h.svc.EntityARN(r.ctx, kind, name, r.get("Path"))
	}
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

// authorize lets the root do anything; any other key is the IAM user it
// belongs to, whose request Config.Authorize decides on the action's
// resource. Nil Authorize: only the root may call.
func (h *Handler) authorize(r *http.Request, req *request, a action) error {
	if req.accessKey == h.cfg.Root {
		return nil
	}
	p, err := h.svc.Principal(req.ctx, req.accessKey)
	if errors.Is(err, iam.ErrNoSuchKey) {
		return sigv4.ErrInvalidAccessKeyID // disabled or deleted since the signature check
	}
	if err != nil {
		return err
	}
	req.caller = p
	resource, err := a.resource(h, req)
	if err != nil {
		return err
	}
	if h.cfg.Authorize == nil || h.cfg.Authorize(r, p, a.iamAction, resource) != policy.Allowed {
		h.cfg.Logger.InfoContext(req.ctx, "access denied", "id", req.id, "principal", p.ARN, "action", a.iamAction, "resource", resource)
		return errAccessDenied(p.ARN, a.iamAction, resource)
	}
	return nil
}
