package service

import (
	"context"
	"errors"
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
	return s.putConfigDoc(ctx, bucket, bucketPolicyConfig, string(doc), s.bucketAccess.drop)
}

// GetBucketPolicy returns bucket's policy document as stored
// (ErrNoSuchBucketPolicy when it has none).
func (s *Service) GetBucketPolicy(ctx context.Context, bucket string) ([]byte, error) {
	doc, err := getConfigDoc[string](ctx, s, bucket, bucketPolicyConfig, ErrNoSuchBucketPolicy)
	return []byte(doc), err
}

// DeleteBucketPolicy removes bucket's policy (none is fine).
func (s *Service) DeleteBucketPolicy(ctx context.Context, bucket string) error {
	return s.deleteConfigDoc(ctx, bucket, bucketPolicyConfig, s.bucketAccess.drop)
}
