package iam

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/meta"
)

// Bootstrap is a provisioning document (`jog server --iam-bootstrap FILE`):
// groups and users, with their inline policies and access keys, created at
// start-up where absent. What exists already is left as it is (a user's
// policies are put again: a bootstrap file states them).
type Bootstrap struct {
	Groups []BootstrapGroup `json:"groups"`
	Users  []BootstrapUser  `json:"users"`
}

// BootstrapGroup is a group and its inline policies, by name.
type BootstrapGroup struct {
	Name     string                     `json:"name"`
	Policies map[string]json.RawMessage `json:"policies"`
}

// BootstrapUser is a user, its groups, inline policies and access keys.
type BootstrapUser struct {
	Name       string                     `json:"name"`
	Groups     []string                   `json:"groups"`
	Policies   map[string]json.RawMessage `json:"policies"`
	AccessKeys []BootstrapKey             `json:"accessKeys"`
}

// BootstrapKey is an access key given in full: the operator chose it.
type BootstrapKey struct {
	AccessKeyID     string `json:"accessKeyId"`
	SecretAccessKey string `json:"secretAccessKey"`
}

// ParseBootstrap reads a bootstrap document; unknown fields are refused.
func ParseBootstrap(doc []byte) (*Bootstrap, error) {
	var b Bootstrap
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("iam bootstrap: %w", err)
	}
	return &b, nil
}

// ApplyBootstrap creates what b names and the store lacks.
func (s *Service) ApplyBootstrap(ctx context.Context, b *Bootstrap) error {
	exists := func(err error) bool { return errors.Is(err, meta.ErrEntityAlreadyExists) }
	for _, g := range b.Groups {
		if _, err := s.CreateGroup(ctx, g.Name, "/"); err != nil && !exists(err) {
			return fmt.Errorf("iam bootstrap: group %s: %w", g.Name, err)
		}
		for name, doc := range g.Policies {
			if err := s.PutInlinePolicy(ctx, meta.EntityGroup, g.Name, name, doc); err != nil {
				return fmt.Errorf("iam bootstrap: group %s policy %s: %w", g.Name, name, err)
			}
		}
	}
	for _, u := range b.Users {
		if _, err := s.CreateUser(ctx, u.Name, "/"); err != nil && !exists(err) {
			return fmt.Errorf("iam bootstrap: user %s: %w", u.Name, err)
		}
		for _, g := range u.Groups {
			if err := s.AddUserToGroup(ctx, g, u.Name); err != nil {
				return fmt.Errorf("iam bootstrap: user %s group %s: %w", u.Name, g, err)
			}
		}
		for name, doc := range u.Policies {
			if err := s.PutInlinePolicy(ctx, meta.EntityUser, u.Name, name, doc); err != nil {
				return fmt.Errorf("iam bootstrap: user %s policy %s: %w", u.Name, name, err)
			}
		}
		for _, k := range u.AccessKeys {
			if err := s.importAccessKey(ctx, u.Name, k); err != nil {
				return fmt.Errorf("iam bootstrap: user %s key %s: %w", u.Name, k.AccessKeyID, err)
			}
		}
	}
	return nil
}

// importAccessKey stores an access key given in full, unless a key of that
// ID exists (whoever it belongs to).
func (s *Service) importAccessKey(ctx context.Context, user string, k BootstrapKey) error {
	if len(k.AccessKeyID) < 16 || len(k.AccessKeyID) > 128 || len(k.SecretAccessKey) < 16 {
		return invalid(ErrValidation, "an access key ID of 16 to 128 characters and a secret of at least 16 are required")
	}
	if _, err := s.store.GetAccessKey(ctx, k.AccessKeyID); err == nil {
		return nil
	} else if !errors.Is(err, meta.ErrNoSuchEntity) {
		return err
	}
	secret := keyring.NewSecret(k.SecretAccessKey)
	ak := meta.AccessKey{ID: k.AccessKeyID, User: user, Sealed: s.keys.Seal(k.AccessKeyID, secret), Status: meta.AccessKeyActive, Created: s.now()}
	return s.changed(s.store.CreateAccessKey(ctx, ak))
}
