package service

import (
	"context"
	"errors"

	"github.com/jogstore/jog/internal/acl"
	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
)

// The names of a bucket's access settings (meta.Store.PutBucketConfig):
// its ACL (acl.Encode's string), its Object Ownership (the setting; ""
// once DeleteBucketOwnershipControls removed it) and its
// PublicAccessBlock (acl.PublicAccessBlock).
const (
	bucketACLConfig   = "acl"
	ownershipConfig   = "ownership"
	publicBlockConfig = "publicAccessBlock"
)

// Errors of the access settings, S3's OwnershipControlsNotFoundError and
// NoSuchPublicAccessBlockConfiguration.
var (
	ErrNoOwnershipControls = errors.New("the bucket ownership controls were not found")
	ErrNoPublicAccessBlock = errors.New("the public access block configuration was not found")
	errNoBucketACL         = errors.New("no bucket ACL")
)

// Access is what decides requests on a bucket besides the principal's
// identity policies: its policy, its ACL and the settings that say
// whether ACLs count (Object Ownership) and what public access is
// blocked. BucketAccess caches it; it is immutable.
type Access struct {
	// Ownership is the bucket's Object Ownership setting; "" when
	// DeleteBucketOwnershipControls removed it (ACLs are enabled then, as
	// with ObjectWriter). A bucket that never had one is
	// BucketOwnerEnforced, S3's default since April 2023.
	Ownership string
	// Block is the bucket's PublicAccessBlock, nil when it has none.
	Block *acl.PublicAccessBlock
	// PolicyPublic: the bucket policy is public (authz.IsPublic).
	PolicyPublic bool

	policy     *policy.Compiled // the bucket policy, nil for none
	restricted *policy.Compiled // its Deny statements alone (RestrictPublicBuckets)
	acl        *policy.Compiled // the public grants of the bucket ACL, when they count
	// logDelivery: ACLs are enabled and the bucket ACL grants the log
	// delivery group what server access logging needs.
	logDelivery bool
}

// ACLsEnabled reports whether ACLs are stored and honoured in the bucket:
// not under BucketOwnerEnforced. A nil Access (no bucket) has none.
func (a *Access) ACLsEnabled() bool { return a != nil && a.Ownership != acl.BucketOwnerEnforced }

// ObjectACLs reports whether object ACLs may allow anything in the
// bucket: ACLs are enabled and IgnorePublicAcls is off (only public
// grants allow anything in JOG).
func (a *Access) ObjectACLs() bool {
	return a.ACLsEnabled() && (a.Block == nil || !a.Block.IgnorePublicAcls)
}

// Policy is the bucket policy a request is decided with: nil for none.
// With RestrictPublicBuckets, while the policy is public, requests from
// outside the account (anonymous ones, in JOG) get only its Deny
// statements.
func (a *Access) Policy(anonymous bool) *policy.Compiled {
	if a == nil {
		return nil
	}
	if anonymous && a.restricted != nil {
		return a.restricted
	}
	return a.policy
}

// Restricts reports whether RestrictPublicBuckets shuts the bucket to a
// request from outside the account (an anonymous one, in JOG) because its
// policy is public: only the policy's Deny statements apply to it then,
// and no ACL.
func (a *Access) Restricts(anonymous bool) bool {
	return anonymous && a != nil && a.restricted != nil
}

// ACL is the allows of the bucket's ACL, nil when it grants nothing that
// counts.
func (a *Access) ACL() *policy.Compiled {
	if a == nil {
		return nil
	}
	return a.acl
}

// LogDeliveryACL reports whether the bucket's ACL lets S3's log delivery
// group write server access logs into it (acl.GrantsLogDelivery), ACLs
// being enabled: the target's consent before bucket policies.
func (a *Access) LogDeliveryACL() bool { return a != nil && a.logDelivery }

// MayAllowAnonymous reports whether anything of the bucket could allow an
// anonymous request: a policy or ACL, or object ACLs.
func (a *Access) MayAllowAnonymous() bool {
	return !a.Restricts(true) && (a.Policy(true) != nil || a.ACL() != nil || a.ObjectACLs())
}

// BucketAccess returns bucket's Access, meta.ErrBucketNotFound without
// the bucket. Answers come from a cache (ConfigCacheTTL), dropped at once by
// a change of the policy, ACL, ownership or public access block through
// this Service.
func (s *Service) BucketAccess(ctx context.Context, bucket string) (*Access, error) {
	return s.bucketAccess.load(bucket, func() (*Access, error) { return s.loadAccess(ctx, bucket) },
		func(err error) bool { return errors.Is(err, meta.ErrBucketNotFound) })
}

func (s *Service) loadAccess(ctx context.Context, bucket string) (*Access, error) {
	a := &Access{}
	var err error
	if a.Ownership, _, err = s.GetBucketOwnership(ctx, bucket); err != nil {
		return nil, err
	}
	blk, err := s.GetPublicAccessBlock(ctx, bucket)
	switch {
	case err == nil:
		a.Block = &blk
	case !errors.Is(err, ErrNoPublicAccessBlock):
		return nil, err
	}
	doc, err := s.GetBucketPolicy(ctx, bucket)
	switch {
	case err == nil:
		// A stored policy that no longer compiles is an error, not
		// skipped: skipping a Deny would grant what it denies.
		p, err := policy.Parse(doc, policy.Resource)
		if err != nil {
			return nil, err
		}
		if a.policy, err = policy.Compile(p); err != nil {
			return nil, err
		}
		a.PolicyPublic = authz.IsPublic(p)
		if a.PolicyPublic && a.Block != nil && a.Block.RestrictPublicBuckets {
			if a.restricted, err = denyOnly(p); err != nil {
				return nil, err
			}
		}
	case !errors.Is(err, ErrNoSuchBucketPolicy):
		return nil, err
	}
	if a.ACLsEnabled() {
		enc, err := s.GetBucketACL(ctx, bucket)
		if err != nil {
			return nil, err
		}
		grants, err := acl.Decode(enc, "")
		if err != nil {
			return nil, err
		}
		a.logDelivery = acl.GrantsLogDelivery(grants)
		if a.ObjectACLs() {
			a.acl = acl.Compile(grants, authz.BucketARN(bucket), authz.BucketARN(bucket), false)
		}
	}
	return a, nil
}

// denyOnly is p with its Deny statements alone.
func denyOnly(p *policy.Policy) (*policy.Compiled, error) {
	q := *p
	q.Statements = nil
	for _, st := range p.Statements {
		if st.Effect == policy.Deny {
			q.Statements = append(q.Statements, st)
		}
	}
	return policy.Compile(&q)
}

// GetBucketACL returns bucket's ACL as stored (acl.Encode; "" for the
// private ACL).
func (s *Service) GetBucketACL(ctx context.Context, bucket string) (string, error) {
	enc, err := getConfigDoc[string](ctx, s, bucket, bucketACLConfig, errNoBucketACL)
	if errors.Is(err, errNoBucketACL) {
		return "", nil
	}
	return enc, err
}

// PutBucketACL replaces bucket's ACL (acl.Encode's form).
func (s *Service) PutBucketACL(ctx context.Context, bucket, enc string) error {
	return s.putConfigDoc(ctx, bucket, bucketACLConfig, enc, s.bucketAccess.drop)
}

// GetBucketOwnership returns bucket's Object Ownership setting and
// whether it has ownership controls: BucketOwnerEnforced (set false) for
// a bucket that never had any, "" (set false) for one whose controls were
// deleted.
func (s *Service) GetBucketOwnership(ctx context.Context, bucket string) (setting string, set bool, err error) {
	v, err := getConfigDoc[string](ctx, s, bucket, ownershipConfig, ErrNoOwnershipControls)
	switch {
	case errors.Is(err, ErrNoOwnershipControls):
		return acl.BucketOwnerEnforced, false, nil
	case err != nil:
		return "", false, err
	}
	return v, v != "", nil
}

// PutBucketOwnership sets bucket's Object Ownership ("" removes the
// controls: DeleteBucketOwnershipControls).
func (s *Service) PutBucketOwnership(ctx context.Context, bucket, setting string) error {
	return s.putConfigDoc(ctx, bucket, ownershipConfig, setting, s.bucketAccess.drop)
}

// GetPublicAccessBlock returns bucket's PublicAccessBlock
// (ErrNoPublicAccessBlock when it has none).
func (s *Service) GetPublicAccessBlock(ctx context.Context, bucket string) (acl.PublicAccessBlock, error) {
	return getConfigDoc[acl.PublicAccessBlock](ctx, s, bucket, publicBlockConfig, ErrNoPublicAccessBlock)
}

// PutPublicAccessBlock replaces bucket's PublicAccessBlock.
func (s *Service) PutPublicAccessBlock(ctx context.Context, bucket string, b acl.PublicAccessBlock) error {
	return s.putConfigDoc(ctx, bucket, publicBlockConfig, b, s.bucketAccess.drop)
}

// DeletePublicAccessBlock removes bucket's PublicAccessBlock (none is
// fine).
func (s *Service) DeletePublicAccessBlock(ctx context.Context, bucket string) error {
	return s.deleteConfigDoc(ctx, bucket, publicBlockConfig, s.bucketAccess.drop)
}

// PutObjectACL replaces the ACL (acl.Encode's form) of key's latest
// version (versionID "") or the given one, and returns that version's ID.
func (s *Service) PutObjectACL(ctx context.Context, bucket, key, versionID, enc string) (string, error) {
	return s.meta.PutObjectACL(ctx, bucket, key, versionID, enc)
}
