package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jogstore/jog/internal/meta"
)

// Bucket configuration documents (CORS, lifecycle) are stored as JSON of
// their owner package's type under a name (meta.BucketStore.PutBucketConfig).
// A change drops the bucket's entry of the cache derived from the document,
// before and after the write (configCache.drop).

// putConfigDoc stores v as bucket's document name.
func (s *Service) putConfigDoc(ctx context.Context, bucket, name string, v any, drop func(string)) error {
	doc, err := json.Marshal(v)
	if err != nil {
		return err
	}
	drop(bucket)
	defer drop(bucket)
	return s.meta.PutBucketConfig(ctx, bucket, name, doc)
}

// getConfigDoc reads bucket's document name into a T: none when the bucket
// has no such document.
func getConfigDoc[T any](ctx context.Context, s *Service, bucket, name string, none error) (T, error) {
	var v T
	doc, err := s.meta.GetBucketConfig(ctx, bucket, name)
	if errors.Is(err, meta.ErrNoSuchConfig) {
		return v, none
	}
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(doc, &v); err != nil {
		return v, fmt.Errorf("stored %s configuration of %s: %w", name, bucket, err)
	}
	return v, nil
}

// deleteConfigDoc removes bucket's document name (none is fine).
func (s *Service) deleteConfigDoc(ctx context.Context, bucket, name string, drop func(string)) error {
	drop(bucket)
	defer drop(bucket)
	return s.meta.DeleteBucketConfig(ctx, bucket, name)
}
