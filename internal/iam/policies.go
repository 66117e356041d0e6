package iam

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
)

// Inline policies and attachments work alike on users, groups and roles:
// the IAM API's PutUserPolicy, PutGroupPolicy and PutRolePolicy are
// PutInlinePolicy with meta.EntityUser, EntityGroup or EntityRole, and so
// on for Get, List, Delete, Attach, Detach and ListAttached.

// maxPolicyDesc is the longest description of a managed policy.
const maxPolicyDesc = 1000

// inlineQuota is IAM's quota on all the inline policies of one entity
// together, by kind.
var inlineQuota = map[meta.EntityKind]struct {
	name  string
	limit int
}{
	meta.EntityUser:  {"UserPolicySize", policy.MaxUserInline},
	meta.EntityGroup: {"GroupPolicySize", policy.MaxGroupInline},
	meta.EntityRole:  {"RolePolicySize", policy.MaxRoleInline},
}

// CreatePolicy creates a customer managed policy of one version (v1, the
// default; JOG keeps no other versions).
func (s *Service) CreatePolicy(ctx context.Context, name, path, description string, doc []byte) (meta.ManagedPolicy, error) {
	if err := checkName("policyName", name, maxPolicyName); err != nil {
		return meta.ManagedPolicy{}, err
	}
	path, err := checkPath(path)
	if err != nil {
		return meta.ManagedPolicy{}, err
	}
	if utf8.RuneCountInString(description) > maxPolicyDesc {
		return meta.ManagedPolicy{}, invalid(ErrValidation, "1 validation error detected: Value at 'description' failed to satisfy constraint: Member must have length less than or equal to %d", maxPolicyDesc)
	}
	if err := checkSize(doc, "PolicySize", policy.MaxManagedPolicy); err != nil {
		return meta.ManagedPolicy{}, err
	}
	if err := parsePolicy(doc, policy.Identity); err != nil {
		return meta.ManagedPolicy{}, err
	}
	now := s.now()
	p := meta.ManagedPolicy{
		Name: name, Path: path, ID: newID(prefixPolicy, 21), ARN: s.arn("policy/", path[1:], name),
		Description: description, Document: doc, DefaultVersion: "v1", Created: now, Updated: now,
	}
	if err := s.changed(s.store.CreatePolicy(ctx, p)); err != nil {
		return meta.ManagedPolicy{}, err
	}
	return p, nil
}

// GetPolicy returns the managed policy arn names.
func (s *Service) GetPolicy(ctx context.Context, arn string) (meta.ManagedPolicy, error) {
	if err := checkARN(arn); err != nil {
		return meta.ManagedPolicy{}, err
	}
	return s.store.GetPolicy(ctx, arn)
}

// ListPolicies returns a page of the account's managed policies (IAM's
// Scope=Local: JOG has no AWS managed policies), by name, and the next
// page's marker.
func (s *Service) ListPolicies(ctx context.Context, p Page) ([]meta.ManagedPolicy, string, error) {
	opts, err := p.options()
	if err != nil {
		return nil, "", err
	}
	ps, err := s.store.ListPolicies(ctx, opts)
	if err != nil {
		return nil, "", err
	}
	ps, next := page(p, ps, func(p meta.ManagedPolicy) string { return p.Name })
	return ps, next, nil
}

// DeletePolicy deletes a managed policy attached to nothing
// (DeleteConflict otherwise).
func (s *Service) DeletePolicy(ctx context.Context, arn string) error {
	if err := checkARN(arn); err != nil {
		return err
	}
	return s.changed(s.store.DeletePolicy(ctx, arn))
}

// PutInlinePolicy stores doc, an identity policy, as the inline policy
// name of a user, group or role, replacing one of that name. IAM's quota
// on an entity's inline policies together is checked against those
// stored when it is called (two racing puts may both pass).
func (s *Service) PutInlinePolicy(ctx context.Context, kind meta.EntityKind, entity, name string, doc []byte) error {
	if err := checkEntityName(kind, entity); err != nil {
		return err
	}
	if err := checkName("policyName", name, maxPolicyName); err != nil {
		return err
	}
	if err := parsePolicy(doc, policy.Identity); err != nil {
		return err
	}
	others, err := s.store.InlinePolicies(ctx, kind, entity)
	if err != nil {
		return err
	}
	total := policy.Size(doc)
	for _, p := range others {
		if !strings.EqualFold(p.Name, name) {
			total += policy.Size(p.Document)
		}
	}
	if q := inlineQuota[kind]; total > q.limit {
		return invalid(meta.ErrLimitExceeded, "Maximum policy size of %d bytes exceeded for %s %s", q.limit, kind, entity)
	}
	return s.changed(s.store.PutInlinePolicy(ctx, kind, entity, name, doc))
}

// GetInlinePolicy returns an entity's inline policy name.
func (s *Service) GetInlinePolicy(ctx context.Context, kind meta.EntityKind, entity, name string) (meta.InlinePolicy, error) {
	return s.store.GetInlinePolicy(ctx, kind, entity, name)
}

// ListInlinePolicies returns the names of an entity's inline policies.
func (s *Service) ListInlinePolicies(ctx context.Context, kind meta.EntityKind, entity string) ([]string, error) {
	ps, err := s.store.InlinePolicies(ctx, kind, entity)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return names, nil
}

// DeleteInlinePolicy deletes an entity's inline policy name.
func (s *Service) DeleteInlinePolicy(ctx context.Context, kind meta.EntityKind, entity, name string) error {
	return s.changed(s.store.DeleteInlinePolicy(ctx, kind, entity, name))
}

// AttachPolicy attaches the managed policy arn to a user, group or role.
func (s *Service) AttachPolicy(ctx context.Context, kind meta.EntityKind, entity, arn string) error {
	if err := checkARN(arn); err != nil {
		return err
	}
	return s.changed(s.store.AttachPolicy(ctx, kind, entity, arn))
}

// DetachPolicy detaches the managed policy arn from a user, group or role.
func (s *Service) DetachPolicy(ctx context.Context, kind meta.EntityKind, entity, arn string) error {
	if err := checkARN(arn); err != nil {
		return err
	}
	return s.changed(s.store.DetachPolicy(ctx, kind, entity, arn))
}

// SetBoundary sets the permissions boundary of a user or role to the
// managed policy arn, or removes it ("").
func (s *Service) SetBoundary(ctx context.Context, kind meta.EntityKind, entity, arn string) error {
	if arn != "" {
		if err := checkARN(arn); err != nil {
			return err
		}
	}
	return s.changed(s.store.SetBoundary(ctx, kind, entity, arn))
}

// ListAttachedPolicies returns the managed policies attached to a user,
// group or role, by name.
func (s *Service) ListAttachedPolicies(ctx context.Context, kind meta.EntityKind, entity string) ([]meta.ManagedPolicy, error) {
	return s.store.AttachedPolicies(ctx, kind, entity)
}
