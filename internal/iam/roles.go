package iam

import (
	"context"
	"time"
	"unicode/utf8"

	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
)

// A role's session duration bounds (IAM's MaxSessionDuration).
const (
	DefaultMaxSession = time.Hour
	MinMaxSession     = time.Hour
	MaxMaxSession     = 12 * time.Hour
)

// RoleInput is what CreateRole takes.
type RoleInput struct {
	Name        string
	Path        string // "" is "/"
	TrustPolicy []byte // AssumeRolePolicyDocument: a trust policy
	Description string
	// MaxSessionDuration bounds the sessions of the role, whole seconds
	// between an hour and 12 hours; 0 is an hour.
	MaxSessionDuration time.Duration
	// Boundary is the managed policy that is the role's permissions
	// boundary ("" none).
	Boundary string
}

// CreateRole creates a role whose trust policy the policy language
// accepts as a trust policy.
func (s *Service) CreateRole(ctx context.Context, in RoleInput) (meta.IAMEntity, error) {
	if err := checkEntityName(meta.EntityRole, in.Name); err != nil {
		return meta.IAMEntity{}, err
	}
	if err := parsePolicy(in.TrustPolicy, policy.Trust); err != nil {
		return meta.IAMEntity{}, err
	}
	if utf8.RuneCountInString(in.Description) > maxRoleDesc {
		return meta.IAMEntity{}, invalid(ErrValidation, "1 validation error detected: Value at 'description' failed to satisfy constraint: Member must have length less than or equal to %d", maxRoleDesc)
	}
	d := in.MaxSessionDuration
	if d == 0 {
		d = DefaultMaxSession
	}
	if d < MinMaxSession || d > MaxMaxSession || d%time.Second != 0 {
		return meta.IAMEntity{}, invalid(ErrValidation, "1 validation error detected: Value '%d' at 'maxSessionDuration' failed to satisfy constraint: Member must have value between %d and %d",
			int64(d/time.Second), int64(MinMaxSession/time.Second), int64(MaxMaxSession/time.Second))
	}
	return s.createEntity(ctx, meta.IAMEntity{
		Kind: meta.EntityRole, Name: in.Name, Path: in.Path,
		TrustPolicy: in.TrustPolicy, Description: in.Description, MaxSessionDuration: d, Boundary: in.Boundary,
	}, prefixRole)
}

// GetRole returns the role name, its trust policy included.
func (s *Service) GetRole(ctx context.Context, name string) (meta.IAMEntity, error) {
	return s.store.GetEntity(ctx, meta.EntityRole, name)
}

// ListRoles returns a page of roles, by name, and the next page's marker.
func (s *Service) ListRoles(ctx context.Context, p Page) ([]meta.IAMEntity, string, error) {
	return s.listEntities(ctx, meta.EntityRole, p)
}

// DeleteRole deletes a role without policies (DeleteConflict otherwise).
func (s *Service) DeleteRole(ctx context.Context, name string) error {
	return s.changed(s.store.DeleteEntity(ctx, meta.EntityRole, name))
}
