package service

import (
	"context"

	"github.com/jogstore/jog/internal/meta"
)

// Bucket quotas (docs/QOS.md): the store keeps each bucket's usage exact
// and refuses, in the transaction that would commit it, a write that
// would take the usage past the quota (meta.ErrQuotaExceeded). The
// refused write's data, already stored as a blob, is freed as for any
// failed commit.

// CreateBucketWith is CreateBucket with what b sets beyond its name,
// region and owner: ObjectLock (as CreateObjectLockBucket) and Quota.
// created is false when the owner re-created it in LegacyRegion: nothing
// changed, and nothing more is to be set on it.
func (s *Service) CreateBucketWith(ctx context.Context, b meta.Bucket) (created bool, err error) {
	return s.createBucket(ctx, b)
}

// SetBucketQuota sets bucket's quota in bytes; 0 removes it.
func (s *Service) SetBucketQuota(ctx context.Context, bucket string, quota int64) error {
	return s.meta.SetBucketQuota(ctx, bucket, quota)
}

// BucketQuota returns bucket's quota (0: none) and its usage.
func (s *Service) BucketQuota(ctx context.Context, bucket string) (quota int64, used meta.Usage, err error) {
	b, err := s.meta.GetBucket(ctx, bucket)
	if err != nil {
		return 0, meta.Usage{}, err
	}
	used, err = s.meta.BucketUsage(ctx, bucket)
	return b.Quota, used, err
}
