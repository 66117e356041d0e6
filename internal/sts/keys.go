package sts

import (
	"context"
	"errors"
	"fmt"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/sigv4"
)

// Keys are the credentials signatures are verified against, and who each
// is: the root's static keys first, then IAM users' active keys, and
// temporary credentials with their session token. It is a
// sigv4.SessionCredentials (and, by its SecretKey, a sigv2.Credentials).
type Keys struct {
	Root sigv4.Credentials
	IAM  *iam.Service // nil: the root's keys only
	STS  *Service     // nil: no temporary credentials
}

var (
	_ sigv4.SessionCredentials = Keys{}
	_ sigv4.HolderCredentials  = Keys{}
)

// rootHolder is the holder KeyHolder names for the root's keys.
type rootHolder struct{}

// KeyHolder returns the secret of a long-term key and who holds it: the
// root, or the IAM user as an *iam.Principal (nil when it did not load;
// Principal then looks again and reports why).
func (k Keys) KeyHolder(id string) (string, any, bool) {
	if k.Root != nil {
		if s, ok := k.Root.SecretKey(id); ok {
			return s, rootHolder{}, true
		}
	}
	if k.IAM != nil {
		if s, p, ok := k.IAM.KeyHolder(id); ok {
			if p == nil {
				return s, nil, true
			}
			return s, p, true
		}
	}
	return "", nil, false
}

// SecretKey returns the secret of a long-term key.
func (k Keys) SecretKey(id string) (string, bool) {
	if k.Root != nil {
		if s, ok := k.Root.SecretKey(id); ok {
			return s, true
		}
	}
	if k.IAM != nil {
		return k.IAM.SecretKey(id)
	}
	return "", false
}

// SessionKey returns the secret of temporary credentials and their
// *Session, from the token the request carries.
func (k Keys) SessionKey(id, token string) (string, any, error) {
	if k.STS == nil {
		return "", nil, fmt.Errorf("%w: this server issues no session tokens", sigv4.ErrInvalidToken)
	}
	s, err := Open(k.STS.keys, id, token, k.STS.now())
	if err != nil {
		return "", nil, err
	}
	return s.Secret.Reveal(), s, nil
}

// Principal is who signed with access key id: the root for its keys, the
// IAM user a key belongs to, or, for temporary credentials, the role
// session or the user or root session. holder is what the verifier
// returned in sigv4.Result.Holder: the session, or who KeyHolder found
// holds a long-term key, which spares a second look-up. A key gone since
// its signature was checked is sigv4.ErrInvalidAccessKeyID; a session
// whose role or user is gone, ErrRevoked.
func (k Keys) Principal(ctx context.Context, id string, holder any) (authz.Principal, error) {
	switch h := holder.(type) {
	case *Session:
		if h != nil {
			return k.sessionPrincipal(ctx, h)
		}
	case rootHolder:
		return authz.Root, nil
	case *iam.Principal:
		if h != nil {
			return authz.Principal{Type: policy.User, User: h}, nil
		}
	}
	if k.Root != nil {
		if _, ok := k.Root.SecretKey(id); ok {
			return authz.Root, nil
		}
	}
	if k.IAM == nil {
		return authz.Principal{}, sigv4.ErrInvalidAccessKeyID
	}
	p, err := k.IAM.Principal(ctx, id)
	if errors.Is(err, iam.ErrNoSuchKey) {
		// Disabled or deleted between the signature check and now.
		return authz.Principal{}, sigv4.ErrInvalidAccessKeyID
	}
	if err != nil {
		return authz.Principal{}, err
	}
	return authz.Principal{Type: policy.User, User: p}, nil
}

func (k Keys) sessionPrincipal(ctx context.Context, s *Session) (authz.Principal, error) {
	if s.Kind == KindRoot {
		return authz.Principal{Type: policy.Root, Session: &authz.Session{Issued: s.Issued, Console: s.Console}}, nil
	}
	if k.IAM == nil {
		return authz.Principal{}, ErrRevoked
	}
	kind := meta.EntityUser
	if s.Kind == KindRole {
		kind = meta.EntityRole
	}
	p, err := k.IAM.EntityPrincipal(ctx, kind, s.Name)
	if errors.Is(err, meta.ErrNoSuchEntity) || err == nil && p.UserID != s.ID {
		return authz.Principal{}, fmt.Errorf("%w: %s %s", ErrRevoked, kind, s.Name)
	}
	if err != nil {
		return authz.Principal{}, err
	}
	sess := &authz.Session{Issued: s.Issued, Console: s.Console}
	if s.Kind == KindUser {
		return authz.Principal{Type: policy.User, User: p, Session: sess}, nil
	}
	sess.Policy, err = k.IAM.SessionPolicy(ctx, s.Policy, s.PolicyARNs)
	if errors.Is(err, meta.ErrNoSuchEntity) || errors.Is(err, iam.ErrMalformedPolicyDocument) {
		// A managed session policy deleted (or changed beyond compiling)
		// since: the session's bounds are no longer known, so it is over.
		return authz.Principal{}, fmt.Errorf("%w: session policy: %v", ErrRevoked, err)
	}
	if err != nil {
		return authz.Principal{}, err
	}
	sess.ARN = SessionARN(p.Account, p.UserName, s.SessionName)
	sess.UserID = p.UserID + ":" + s.SessionName
	return authz.Principal{Type: policy.AssumedRole, User: p, Session: sess}, nil
}
