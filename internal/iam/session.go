package iam

import (
	"context"
	"errors"
	"strings"

	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
)

// maxCachedSessionPolicies bounds the session policies kept compiled: past
// it, new ones are compiled for each request until the store changes.
const maxCachedSessionPolicies = 1024

// SessionPolicy compiles the session policy of temporary credentials: the
// inline document (none when empty) and the managed policies arns name,
// joined into one (policy.Join); nil when there are none. It is cached,
// by the documents, until the store changes. A malformed inline document
// is ErrMalformedPolicyDocument; a managed policy that does not exist,
// meta.ErrNoSuchEntity.
func (s *Service) SessionPolicy(ctx context.Context, inline string, arns []string) (*policy.Compiled, error) {
	if inline == "" && len(arns) == 0 {
		return nil, nil
	}
	epoch, err := s.fresh(ctx)
	if err != nil {
		return nil, err
	}
	key := inline + "\x00" + strings.Join(arns, "\x00")
	s.mu.RLock()
	c := s.cache.sessions[key]
	s.mu.RUnlock()
	if c != nil {
		return c, nil
	}
	var parts []*policy.Compiled
	if inline != "" {
		p, err := policy.ParseCompiled([]byte(inline), policy.Identity)
		if err != nil {
			return nil, invalid(ErrMalformedPolicyDocument, "%s", err.Error())
		}
		parts = append(parts, p)
	}
	for _, arn := range arns {
		if err := checkARN(arn); err != nil {
			return nil, err
		}
		mp, err := s.store.GetPolicy(ctx, arn)
		if errors.Is(err, meta.ErrNoSuchEntity) {
			return nil, invalid(meta.ErrNoSuchEntity, "Policy %s does not exist or is not attachable.", arn)
		}
		if err != nil {
			return nil, err
		}
		p, err := policy.ParseCompiled(mp.Document, policy.Identity)
		if err != nil {
			return nil, invalid(ErrMalformedPolicyDocument, "policy %s: %s", arn, err.Error())
		}
		parts = append(parts, p)
	}
	c = policy.Join(parts...)
	s.remember(epoch, func(cc *cache) {
		if len(cc.sessions) < maxCachedSessionPolicies {
			cc.sessions[key] = c
		}
	})
	return c, nil
}
