package service

import (
	"context"
	"errors"

	"github.com/jogstore/jog/internal/cors"
	"github.com/jogstore/jog/internal/meta"
)

// corsConfig is the name a bucket's CORS configuration is stored under
// (meta.Store.PutBucketConfig), as JSON of cors.Config.
const corsConfig = "cors"

// PutBucketCORS stores bucket's CORS configuration (validated by the
// caller with cors.ParseXML), replacing any earlier one.
func (s *Service) PutBucketCORS(ctx context.Context, bucket string, c cors.Config) error {
	return s.putConfigDoc(ctx, bucket, corsConfig, c, s.corsRules.drop)
}

// GetBucketCORS returns bucket's CORS configuration as stored now
// (cors.ErrNoConfig when it has none).
func (s *Service) GetBucketCORS(ctx context.Context, bucket string) (cors.Config, error) {
	return getConfigDoc[cors.Config](ctx, s, bucket, corsConfig, cors.ErrNoConfig)
}

// DeleteBucketCORS removes bucket's CORS configuration (none is fine).
func (s *Service) DeleteBucketCORS(ctx context.Context, bucket string) error {
	return s.deleteConfigDoc(ctx, bucket, corsConfig, s.corsRules.drop)
}

// BucketCORS returns bucket's compiled CORS rules, nil when it has none,
// meta.ErrBucketNotFound without the bucket. Answers come from a cache
// (ConfigCacheTTL), so requests from browsers cost no query on repeat.
func (s *Service) BucketCORS(ctx context.Context, bucket string) (*cors.Rules, error) {
	return s.corsRules.load(bucket, func() (*cors.Rules, error) {
		c, err := s.GetBucketCORS(ctx, bucket)
		switch {
		case errors.Is(err, cors.ErrNoConfig):
			return nil, nil
		case err != nil:
			return nil, err
		}
		return cors.Compile(c), nil
	}, func(err error) bool { return errors.Is(err, meta.ErrBucketNotFound) })
}

// PreflightCORS evaluates a preflight (OPTIONS) request to bucket as S3
// does: ErrNoOrigin, then cors.ErrNoBucket, cors.ErrNotEnabled,
// *cors.MethodError, cors.ErrNotAllowed. hasMethod tells an empty
// Access-Control-Request-Method from a missing one.
func (s *Service) PreflightCORS(ctx context.Context, bucket, origin, method, requestHeaders string, hasMethod bool) (cors.Match, error) {
	if origin == "" {
		return cors.Match{}, cors.ErrNoOrigin
	}
	if bucket == "" {
		return cors.Match{}, cors.ErrNoBucket
	}
	rules, err := s.BucketCORS(ctx, bucket)
	if errors.Is(err, meta.ErrBucketNotFound) {
		return cors.Match{}, cors.ErrNoBucket
	}
	if err != nil {
		return cors.Match{}, err
	}
	return rules.Preflight(origin, method, requestHeaders, hasMethod)
}
