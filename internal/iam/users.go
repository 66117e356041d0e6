package iam

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"time"

	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/meta"
)

// createEntity checks and creates a user, group or role; e carries the
// kind, name and path, and for a role its own fields.
func (s *Service) createEntity(ctx context.Context, e meta.IAMEntity, prefix string) (meta.IAMEntity, error) {
	if err := checkEntityName(e.Kind, e.Name); err != nil {
		return meta.IAMEntity{}, err
	}
	path, err := checkPath(e.Path)
	if err != nil {
		return meta.IAMEntity{}, err
	}
	e.Path = path
	if e.Boundary != "" {
		if err := checkARN(e.Boundary); err != nil {
			return meta.IAMEntity{}, err
		}
	}
	e.ID = newID(prefix, 21)
	e.ARN = s.arn(e.Kind.String()+"/", path[1:], e.Name)
	e.Created = s.now()
	if err := s.changed(s.store.CreateEntity(ctx, e)); err != nil {
		return meta.IAMEntity{}, err
	}
	return e, nil
}

// CreateUser creates the user name under path ("" is "/").
func (s *Service) CreateUser(ctx context.Context, name, path string) (meta.IAMEntity, error) {
	return s.CreateUserWithBoundary(ctx, name, path, "")
}

// CreateUserWithBoundary creates the user name under path with the
// managed policy boundary ("" none) as its permissions boundary.
func (s *Service) CreateUserWithBoundary(ctx context.Context, name, path, boundary string) (meta.IAMEntity, error) {
	return s.createEntity(ctx, meta.IAMEntity{Kind: meta.EntityUser, Name: name, Path: path, Boundary: boundary}, prefixUser)
}

// GetUser returns the user name.
func (s *Service) GetUser(ctx context.Context, name string) (meta.IAMEntity, error) {
	return s.store.GetEntity(ctx, meta.EntityUser, name)
}

// ListUsers returns a page of users, by name, and the next page's marker
// ("" after the last page).
func (s *Service) ListUsers(ctx context.Context, p Page) ([]meta.IAMEntity, string, error) {
	return s.listEntities(ctx, meta.EntityUser, p)
}

func (s *Service) listEntities(ctx context.Context, kind meta.EntityKind, p Page) ([]meta.IAMEntity, string, error) {
	opts, err := p.options()
	if err != nil {
		return nil, "", err
	}
	es, err := s.store.ListEntities(ctx, kind, opts)
	if err != nil {
		return nil, "", err
	}
	es, next := page(p, es, entityName)
	return es, next, nil
}

// DeleteUser deletes a user that has no access keys, groups or policies
// left (DeleteConflict otherwise, as IAM).
func (s *Service) DeleteUser(ctx context.Context, name string) error {
	return s.changed(s.store.DeleteEntity(ctx, meta.EntityUser, name))
}

// NewAccessKey is a key just created: the only time its secret is known
// outside the store.
type NewAccessKey struct {
	meta.AccessKey
	Secret keyring.Secret
}

// secretLen is the length of a secret access key: 30 random bytes in
// base64, 40 characters as AWS's.
const secretLen = 30

// NewKeyPair returns a new access key ID starting with prefix (AKIA for
// an IAM user's key, ASIA for temporary credentials), 20 characters as
// AWS's, and a random secret.
func NewKeyPair(prefix string) (string, keyring.Secret) {
	b := make([]byte, secretLen)
	rand.Read(b)
	return newID(prefix, 20), keyring.NewSecret(base64.StdEncoding.EncodeToString(b))
}

// CreateAccessKey creates an active access key for user and returns it
// with its secret, which is stored sealed and never returned again.
func (s *Service) CreateAccessKey(ctx context.Context, user string) (NewAccessKey, error) {
	id, secret := NewKeyPair(prefixAccessKey)
	k := meta.AccessKey{ID: id, User: user, Sealed: s.keys.Seal(id, secret), Status: meta.AccessKeyActive, Created: s.now()}
	if err := s.changed(s.store.CreateAccessKey(ctx, k)); err != nil {
		return NewAccessKey{}, err
	}
	if u, err := s.store.GetEntity(ctx, meta.EntityUser, user); err == nil {
		k.User = u.Name // as created, whatever the case asked
	}
	k.Sealed = nil
	return NewAccessKey{AccessKey: k, Secret: secret}, nil
}

// ListAccessKeys returns user's keys, oldest first, without their
// secrets.
func (s *Service) ListAccessKeys(ctx context.Context, user string) ([]meta.AccessKey, error) {
	keys, err := s.store.ListAccessKeys(ctx, user)
	for i := range keys {
		keys[i].Sealed = nil
	}
	return keys, err
}

// UpdateAccessKey sets the status of user's key id: meta.AccessKeyActive
// or meta.AccessKeyInactive. An inactive key signs nothing.
func (s *Service) UpdateAccessKey(ctx context.Context, user, id, status string) error {
	if status != meta.AccessKeyActive && status != meta.AccessKeyInactive {
		return invalid(ErrValidation, "1 validation error detected: Value '%s' at 'status' failed to satisfy constraint: Member must satisfy enum value set: [Active, Inactive]", status)
	}
	return s.changed(s.store.SetAccessKeyStatus(ctx, user, id, status))
}

// DeleteAccessKey deletes user's key id.
func (s *Service) DeleteAccessKey(ctx context.Context, user, id string) error {
	return s.changed(s.store.DeleteAccessKey(ctx, user, id))
}

// AccessKeyUsed records that key id signed a request at t. It does not
// invalidate the cache: it changes no decision.
func (s *Service) AccessKeyUsed(ctx context.Context, id string, t time.Time) error {
	return s.store.SetAccessKeyLastUsed(ctx, id, t)
}

// Entity returns the user, group or role name as an IAM request on it is
// authorized: the stored entity (its ARN with its path, its permissions
// boundary) when it exists, else one with the ARN it would have under
// path ("" and an invalid path are "/").
func (s *Service) Entity(ctx context.Context, kind meta.EntityKind, name, path string) (meta.IAMEntity, error) {
	e, err := s.store.GetEntity(ctx, kind, name)
	if err == nil {
		return e, nil
	}
	if !errors.Is(err, meta.ErrNoSuchEntity) {
		return meta.IAMEntity{}, err
	}
	return meta.IAMEntity{Kind: kind, Name: name, ARN: s.arn(kind.String()+"/", pathOrRoot(path)[1:], name)}, nil
}

// PolicyARN is the ARN of the managed policy name under path ("" and an
// invalid path are "/").
func (s *Service) PolicyARN(name, path string) string {
	return s.arn("policy/", pathOrRoot(path)[1:], name)
}

// pathOrRoot is path checked, "/" when it is empty or invalid.
func pathOrRoot(path string) string {
	if p, err := checkPath(path); err == nil {
		return p
	}
	return "/"
}
