package service

import (
	"context"
	"errors"

	"github.com/jogstore/jog/internal/lifecycle"
	"github.com/jogstore/jog/internal/meta"
)

// Names lifecycle documents are stored under (meta.Store.PutBucketConfig):
// the configuration as JSON of lifecycle.Config, and the worker's cursor,
// whose format is the worker's.
const (
	lifecycleConfig = "lifecycle"
	lifecycleCursor = "lifecycle-cursor"
)

// PutBucketLifecycle stores bucket's lifecycle configuration (validated by
// the caller with lifecycle.ParseXML), replacing any earlier one.
func (s *Service) PutBucketLifecycle(ctx context.Context, bucket string, c lifecycle.Config) error {
	return s.putConfigDoc(ctx, bucket, lifecycleConfig, c, s.lifecycleRules.drop)
}

// GetBucketLifecycle returns bucket's lifecycle configuration as stored now
// (lifecycle.ErrNoConfig when it has none).
func (s *Service) GetBucketLifecycle(ctx context.Context, bucket string) (lifecycle.Config, error) {
	return getConfigDoc[lifecycle.Config](ctx, s, bucket, lifecycleConfig, lifecycle.ErrNoConfig)
}

// DeleteBucketLifecycle removes bucket's lifecycle configuration (none is
// fine).
func (s *Service) DeleteBucketLifecycle(ctx context.Context, bucket string) error {
	return s.deleteConfigDoc(ctx, bucket, lifecycleConfig, s.lifecycleRules.drop)
}

// BucketLifecycle returns bucket's compiled lifecycle rules, nil when it
// has none, meta.ErrBucketNotFound without the bucket. Answers come from a
// cache (ConfigCacheTTL), so the x-amz-expiration header of PUT, GET and
// HEAD costs no query on repeat, with or without a configuration.
func (s *Service) BucketLifecycle(ctx context.Context, bucket string) (*lifecycle.Rules, error) {
	return s.lifecycleRules.load(bucket, func() (*lifecycle.Rules, error) {
		c, err := s.GetBucketLifecycle(ctx, bucket)
		switch {
		case errors.Is(err, lifecycle.ErrNoConfig):
			return nil, nil
		case err != nil:
			return nil, err
		}
		return lifecycle.Compile(c, s.lifecycleDay), nil
	}, func(err error) bool { return errors.Is(err, meta.ErrBucketNotFound) })
}

// LifecycleCursor returns the lifecycle worker's cursor document for
// bucket, nil when it has none.
func (s *Service) LifecycleCursor(ctx context.Context, bucket string) ([]byte, error) {
	doc, err := s.meta.GetBucketConfig(ctx, bucket, lifecycleCursor)
	if errors.Is(err, meta.ErrNoSuchConfig) {
		return nil, nil
	}
	return doc, err
}

// SetLifecycleCursor stores the lifecycle worker's cursor for bucket; nil
// removes it.
func (s *Service) SetLifecycleCursor(ctx context.Context, bucket string, doc []byte) error {
	if doc == nil {
		return s.meta.DeleteBucketConfig(ctx, bucket, lifecycleCursor)
	}
	return s.meta.PutBucketConfig(ctx, bucket, lifecycleCursor, doc)
}
