package service

import (
	"context"
	"errors"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/sse"
)

// encryptionConfig is the name a bucket's default encryption is stored
// under (meta.Store.PutBucketConfig), as JSON of sse.BucketDefault.
const encryptionConfig = "encryption"

// ErrNoEncryptionConfig: the bucket has no default encryption (S3:
// ServerSideEncryptionConfigurationNotFoundError).
var ErrNoEncryptionConfig = errors.New("the bucket has no default encryption")

// PutBucketEncryption stores bucket's default encryption (validated by
// the caller), replacing any earlier one.
func (s *Service) PutBucketEncryption(ctx context.Context, bucket string, d sse.BucketDefault) error {
	return s.putConfigDoc(ctx, bucket, encryptionConfig, d, s.bucketEncryption.drop)
}

// GetBucketEncryption returns bucket's default encryption as stored now
// (ErrNoEncryptionConfig when it has none).
func (s *Service) GetBucketEncryption(ctx context.Context, bucket string) (sse.BucketDefault, error) {
	return getConfigDoc[sse.BucketDefault](ctx, s, bucket, encryptionConfig, ErrNoEncryptionConfig)
}

// DeleteBucketEncryption removes bucket's default encryption (none is
// fine).
func (s *Service) DeleteBucketEncryption(ctx context.Context, bucket string) error {
	return s.deleteConfigDoc(ctx, bucket, encryptionConfig, s.bucketEncryption.drop)
}

// encryptionFor is the encryption a write to bucket gets: req when it
// asks for some, else the bucket's default (cached, ConfigCacheTTL), else
// none.
func (s *Service) encryptionFor(ctx context.Context, bucket string, req sse.Request) (sse.Request, error) {
	if req.Mode != "" {
		return req, nil
	}
	d, err := s.bucketEncryption.load(bucket, func() (*sse.BucketDefault, error) {
		d, err := s.GetBucketEncryption(ctx, bucket)
		switch {
		case errors.Is(err, ErrNoEncryptionConfig):
			return nil, nil
		case err != nil:
			return nil, err
		}
		return &d, nil
	}, func(err error) bool { return errors.Is(err, meta.ErrBucketNotFound) })
	if err != nil || d == nil {
		return req, err
	}
	return d.Request(), nil
}
