package service

import (
	"context"
	"errors"

	"github.com/jogstore/jog/internal/meta"
)

// LegacyRegion is us-east-1 (North Virginia), where S3 answers a request
// to re-create a bucket its caller already owns with 200 OK, for legacy
// compatibility; every other region answers BucketAlreadyOwnedByYou.
const LegacyRegion = "us-east-1"

// CreateBucket validates name and creates the bucket in region (the
// server's). In LegacyRegion, creating a bucket that owner already owns
// succeeds and changes nothing; elsewhere it is meta.ErrBucketExists.
func (s *Service) CreateBucket(ctx context.Context, name, region, owner string) error {
	_, err := s.createBucket(ctx, meta.Bucket{Name: name, Region: region, Owner: owner})
	return err
}

// CreateObjectLockBucket is CreateBucket of a bucket with object lock
// (x-amz-bucket-object-lock-enabled): its versioning is Enabled for good.
// Re-creating in LegacyRegion a bucket the owner has without object lock
// is meta.ErrBucketExists: a 200 would claim a lock the bucket lacks.
func (s *Service) CreateObjectLockBucket(ctx context.Context, name, region, owner string) error {
	_, err := s.createBucket(ctx, meta.Bucket{Name: name, Region: region, Owner: owner, ObjectLock: true})
	return err
}

// createBucket creates b; created is false when LegacyRegion's re-creation
// by its owner succeeded without changing anything.
func (s *Service) createBucket(ctx context.Context, b meta.Bucket) (created bool, err error) {
	name, region, owner := b.Name, b.Region, b.Owner
	if err := ValidateBucketName(name); err != nil {
		return false, err
	}
	// A bucket cached as missing exists from now on.
	defer s.dropBucketCaches(name)
	b.CreatedAt = meta.Now()
	err = s.meta.CreateBucket(ctx, b)
	if errors.Is(err, meta.ErrBucketExists) && region == LegacyRegion {
		if had, gerr := s.meta.GetBucket(ctx, name); gerr == nil && had.Owner == owner && (had.ObjectLock || !b.ObjectLock) {
			return false, nil
		}
	}
	return err == nil, err
}

// dropBucketCaches forgets everything cached of bucket name: every
// per-bucket cache of the Service is dropped here, so that a bucket deleted
// and created again starts with none of its predecessor's configuration.
func (s *Service) dropBucketCaches(name string) {
	for _, c := range s.bucketCaches() {
		c.drop(name)
	}
}

// DeleteBucket removes an empty bucket, aborting its uploads in progress.
func (s *Service) DeleteBucket(ctx context.Context, name string) error {
	// Its configurations go with it (meta.Store.DeleteBucket).
	s.dropBucketCaches(name)
	defer s.dropBucketCaches(name)
	freed, err := s.meta.DeleteBucket(ctx, name)
	if err != nil {
		return err
	}
	s.freeBlobs(ctx, freed)
	return nil
}
