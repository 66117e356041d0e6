package iamapi

import (
	"net/http"

	"github.com/jogstore/jog/internal/meta"
)

// Managed policies.

func (h *Handler) createPolicy(r *request) (any, error) {
	a, err := r.args("PolicyName", "PolicyDocument")
	if err != nil {
		return nil, err
	}
	p, err := h.svc.CreatePolicy(r.ctx, a[0], r.get("Path"), r.get("Description"), []byte(a[1]))
	return struct{ Policy policyXML }{managedPolicy(p)}, err
}

func (h *Handler) policy(r *request) (meta.ManagedPolicy, error) {
	arn, err := r.arg("PolicyArn")
	if err != nil {
		return meta.ManagedPolicy{}, err
	}
	return h.svc.GetPolicy(r.ctx, arn)
}

func (h *Handler) getPolicy(r *request) (any, error) {
	p, err := h.policy(r)
	return struct{ Policy policyXML }{managedPolicy(p)}, err
}

// listPolicies lists the account's own policies: Scope AWS lists none
// (JOG has no AWS managed policies); OnlyAttached filters each page.
func (h *Handler) listPolicies(r *request) (any, error) {
	p, err := r.page()
	if err != nil {
		return nil, err
	}
	var ps []meta.ManagedPolicy
	var next string
	switch scope := r.get("Scope"); scope {
	case "", "All", "Local":
		ps, next, err = h.svc.ListPolicies(r.ctx, p)
	case "AWS":
	default:
		err = apiErrorf(http.StatusBadRequest, "ValidationError", "1 validation error detected: Value '%s' at 'scope' failed to satisfy constraint: Member must satisfy enum value set: [All, AWS, Local]", scope)
	}
	if r.get("OnlyAttached") == "true" {
		kept := ps[:0]
		for _, p := range ps {
			if p.AttachmentCount > 0 {
				kept = append(kept, p)
			}
		}
		ps = kept
	}
	return struct {
		Policies members[policyXML]
		truncation
	}{mapped(ps, managedPolicy), truncated(next)}, err
}

func (h *Handler) deletePolicy(r *request) (any, error) {
	arn, err := r.arg("PolicyArn")
	if err != nil {
		return nil, err
	}
	return nil, h.svc.DeletePolicy(r.ctx, arn)
}

// getPolicyVersion serves the one version JOG keeps, the default.
func (h *Handler) getPolicyVersion(r *request) (any, error) {
	v, err := r.arg("VersionId")
	if err != nil {
		return nil, err
	}
	p, err := h.policy(r)
	if err != nil {
		return nil, err
	}
	if v != p.DefaultVersion {
		return nil, meta.IAMErrorf(meta.ErrNoSuchEntity, "Policy %s version %s does not exist or is not attachable.", p.ARN, v)
	}
	return struct{ PolicyVersion policyVersionXML }{policyVersionXML{
		Document: encodeDocument(p.Document), VersionID: v, IsDefaultVersion: true, Created: isoTime(p.Created),
	}}, nil
}

func (h *Handler) listPolicyVersions(r *request) (any, error) {
	p, err := h.policy(r)
	if err != nil {
		return nil, err
	}
	return struct {
		Versions members[policyVersionXML]
		truncation
	}{members[policyVersionXML]{[]policyVersionXML{{VersionID: p.DefaultVersion, IsDefaultVersion: true, Created: isoTime(p.Created)}}}, truncation{}}, nil
}

// entityPolicies serves the inline and attached policies of one kind of
// entity: Put{User,Group,Role}Policy and the rest.
type entityPolicies struct {
	kind meta.EntityKind
	noun string // "User", "Group", "Role"
}

// entity reads the entity's name: UserName, GroupName or RoleName.
func (e entityPolicies) entity(r *request) (string, error) {
	return r.arg(e.noun + "Name")
}

// named reads the entity's name and the policy's (PolicyName, or
// PolicyArn).
func (e entityPolicies) named(r *request, param string) (string, string, error) {
	a, err := r.args(e.noun+"Name", param)
	if err != nil {
		return "", "", err
	}
	return a[0], a[1], nil
}

func (e entityPolicies) put(h *Handler, r *request) (any, error) {
	a, err := r.args(e.noun+"Name", "PolicyName", "PolicyDocument")
	if err != nil {
		return nil, err
	}
	return nil, h.svc.PutInlinePolicy(r.ctx, e.kind, a[0], a[1], []byte(a[2]))
}

func (e entityPolicies) get(h *Handler, r *request) (any, error) {
	name, policy, err := e.named(r, "PolicyName")
	if err != nil {
		return nil, err
	}
	p, err := h.svc.GetInlinePolicy(r.ctx, e.kind, name, policy)
	if err != nil {
		return nil, err
	}
	return inlinePolicyResult{noun: e.noun, entity: name, p: p}, nil
}

func (e entityPolicies) list(h *Handler, r *request) (any, error) {
	name, err := e.entity(r)
	if err != nil {
		return nil, err
	}
	names, err := h.svc.ListInlinePolicies(r.ctx, e.kind, name)
	if err != nil {
		return nil, err
	}
	names, tr, err := pageOf(r, names)
	return struct {
		PolicyNames members[string]
		truncation
	}{members[string]{names}, tr}, err
}

func (e entityPolicies) delete(h *Handler, r *request) (any, error) {
	name, policy, err := e.named(r, "PolicyName")
	if err != nil {
		return nil, err
	}
	return nil, h.svc.DeleteInlinePolicy(r.ctx, e.kind, name, policy)
}

func (e entityPolicies) attach(h *Handler, r *request) (any, error) {
	name, arn, err := e.named(r, "PolicyArn")
	if err != nil {
		return nil, err
	}
	return nil, h.svc.AttachPolicy(r.ctx, e.kind, name, arn)
}

func (e entityPolicies) detach(h *Handler, r *request) (any, error) {
	name, arn, err := e.named(r, "PolicyArn")
	if err != nil {
		return nil, err
	}
	return nil, h.svc.DetachPolicy(r.ctx, e.kind, name, arn)
}

func (e entityPolicies) listAttached(h *Handler, r *request) (any, error) {
	name, err := e.entity(r)
	if err != nil {
		return nil, err
	}
	ps, err := h.svc.ListAttachedPolicies(r.ctx, e.kind, name)
	if err != nil {
		return nil, err
	}
	ps, tr, err := pageOf(r, ps)
	return struct {
		AttachedPolicies members[attachedPolicyXML]
		truncation
	}{mapped(ps, func(p meta.ManagedPolicy) attachedPolicyXML { return attachedPolicyXML{p.Name, p.ARN} }), tr}, err
}

// putBoundary sets the user's or role's permissions boundary to the
// managed policy PermissionsBoundary names.
func (e entityPolicies) putBoundary(h *Handler, r *request) (any, error) {
	name, arn, err := e.named(r, "PermissionsBoundary")
	if err != nil {
		return nil, err
	}
	return nil, h.svc.SetBoundary(r.ctx, e.kind, name, arn)
}

func (e entityPolicies) deleteBoundary(h *Handler, r *request) (any, error) {
	name, err := e.entity(r)
	if err != nil {
		return nil, err
	}
	return nil, h.svc.SetBoundary(r.ctx, e.kind, name, "")
}
