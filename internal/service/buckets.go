package service

import (
	"context"

	"github.com/jogstore/jog/internal/meta"
)

// CreateBucket validates name and creates the bucket.
func (s *Service) CreateBucket(ctx context.Context, name, region, owner string) error {
	if err := ValidateBucketName(name); err != nil {
		return err
	}
	// A bucket cached as missing exists from now on.
	defer s.corsRules.drop(name)
	return s.meta.CreateBucket(ctx, meta.Bucket{Name: name, Region: region, Owner: owner, CreatedAt: meta.Now()})
}

// DeleteBucket removes an empty bucket, aborting its uploads in progress.
func (s *Service) DeleteBucket(ctx context.Context, name string) error {
	// Its configurations go with it (meta.Store.DeleteBucket).
	s.corsRules.drop(name)
	defer s.corsRules.drop(name)
	freed, err := s.meta.DeleteBucket(ctx, name)
	if err != nil {
		return err
	}
	s.freeBlobs(ctx, freed)
	return nil
}
