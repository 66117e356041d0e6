package service

import (
	"context"
	"errors"

	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
)

// bucketPolicyConfig is the name a bucket's policy is stored under
// (meta.Store.PutBucketConfig): the document as the client sent it, a JSON
// string.
const bucketPolicyConfig = "policy"

// ErrNoSuchBucketPolicy: the bucket has no policy (S3's
// NoSuchBucketPolicy).
var ErrNoSuchBucketPolicy = errors.New("the bucket policy does not exist")

// PutBucketPolicy stores bucket's policy document (validated by the caller
// as a resource policy of the bucket), replacing any earlier one.
func (s *Service) PutBucketPolicy(ctx context.Context, bucket string, doc []byte) error {
	return s.putConfigDoc(ctx, bucket, bucketPolicyConfig, string(doc), s.bucketPolicies.drop)
}

// GetBucketPolicy returns bucket's policy document as stored
// (ErrNoSuchBucketPolicy when it has none).
func (s *Service) GetBucketPolicy(ctx context.Context, bucket string) ([]byte, error) {
	doc, err := getConfigDoc[string](ctx, s, bucket, bucketPolicyConfig, ErrNoSuchBucketPolicy)
	return []byte(doc), err
}

// DeleteBucketPolicy removes bucket's policy (none is fine).
func (s *Service) DeleteBucketPolicy(ctx context.Context, bucket string) error {
	return s.deleteConfigDoc(ctx, bucket, bucketPolicyConfig, s.bucketPolicies.drop)
}

// BucketPolicy returns bucket's compiled policy, nil when it has none,
// meta.ErrBucketNotFound without the bucket. Answers come from a cache
// (CORSCacheTTL), dropped at once by a change through this Service: the
// authorizer reads it on every request that is not the root's.
func (s *Service) BucketPolicy(ctx context.Context, bucket string) (*policy.Compiled, error) {
	return s.bucketPolicies.load(bucket, func() (*policy.Compiled, error) {
		doc, err := s.GetBucketPolicy(ctx, bucket)
		switch {
		case errors.Is(err, ErrNoSuchBucketPolicy):
			return nil, nil
		case err != nil:
			return nil, err
		}
		// A stored policy that no longer compiles is an error, not
		// skipped: skipping a Deny would grant what it denies.
		return policy.ParseCompiled(doc, policy.Resource)
	}, func(err error) bool { return errors.Is(err, meta.ErrBucketNotFound) })
}
