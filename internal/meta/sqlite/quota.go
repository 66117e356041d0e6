package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jogstore/jog/internal/meta"
)

// Bucket usage is buckets.used_bytes, kept by triggers on objects and
// object_versions (migration 0015) in the transaction of each change;
// quotas are checked against it in that same transaction (checkQuota,
// checkPartQuota), after the change, so that the check sees exactly what
// would commit.

// SetBucketQuota implements meta.Store.
func (s *Store) SetBucketQuota(ctx context.Context, bucket string, quota int64) error {
	if quota < 0 {
		return fmt.Errorf("quota %d: must not be negative", quota)
	}
	// Dropped before and after the commit, as DeleteBucket does: GetBucket
	// caches Bucket.Quota.
	s.buckets.drop(bucket)
	defer s.buckets.drop(bucket)
	return s.write(ctx, func(tx querier) error {
		return execOne(ctx, tx, meta.ErrBucketNotFound, "UPDATE buckets SET quota_bytes = ? WHERE name = ?", quota, bucket)
	})
}

// BucketUsage implements meta.Store: both columns the triggers keep, in
// one row read.
func (s *Store) BucketUsage(ctx context.Context, bucket string) (meta.Usage, error) {
	var u meta.Usage
	err := s.rd.QueryRowContext(ctx, "SELECT used_bytes, object_count FROM buckets WHERE name = ?", bucket).Scan(&u.Bytes, &u.Objects)
	if errors.Is(err, sql.ErrNoRows) {
		return meta.Usage{}, meta.ErrBucketNotFound
	}
	return u, err
}

// checkQuota refuses, inside tx and after a write of size bytes to
// bucket b, a usage above the bucket's quota. A write of no bytes (a
// delete marker, an empty object) is never refused; a bucket without a
// quota costs no query (b was read in this transaction).
func checkQuota(ctx context.Context, tx querier, b bucketRef, size int64) error {
	if size <= 0 || b.quota == 0 {
		return nil
	}
	var used int64
	if err := tx.QueryRowContext(ctx, "SELECT used_bytes FROM buckets WHERE id = ?", b.id).Scan(&used); err != nil {
		return err
	}
	if used > b.quota {
		return fmt.Errorf("%w: the bucket would hold %d bytes, its quota is %d", meta.ErrQuotaExceeded, used, b.quota)
	}
	return nil
}

// checkPartQuota refuses, inside tx and after a part of size bytes was
// stored for upload, a bucket whose usage plus the upload's parts exceed
// its quota: the completion could not fit, so the part is refused early.
// Parts do not count towards the usage until the upload completes.
func checkPartQuota(ctx context.Context, tx querier, bucket, upload string, size int64) error {
	if size <= 0 {
		return nil
	}
	var quota, used, parts int64
	// The parts are summed only for a bucket with a quota (CASE is lazy).
	err := tx.QueryRowContext(ctx, `SELECT b.quota_bytes, b.used_bytes,
		CASE WHEN b.quota_bytes > 0 THEN (SELECT COALESCE(SUM(size), 0) FROM parts WHERE upload_id = ?) ELSE 0 END
		FROM buckets b WHERE b.name = ?`, upload, bucket).
		Scan(&quota, &used, &parts)
	if errors.Is(err, sql.ErrNoRows) {
		return meta.ErrBucketNotFound
	}
	if err != nil {
		return err
	}
	if quota > 0 && used+parts > quota {
		return fmt.Errorf("%w: the bucket holds %d bytes and the upload's parts %d, its quota is %d", meta.ErrQuotaExceeded, used, parts, quota)
	}
	return nil
}

// checkUsage reports, from one statement's snapshot, a bucket whose
// recorded usage differs from the sum over its stored versions.
func (s *Store) checkUsage(ctx context.Context, id int64) (recorded, actual meta.Usage, err error) {
	err = s.rd.QueryRowContext(ctx, "SELECT used_bytes, object_count, "+usageSQL+" FROM buckets WHERE id = ?1", id).
		Scan(&recorded.Bytes, &recorded.Objects, &actual.Bytes, &actual.Objects)
	return recorded, actual, err
}

// usageSQL computes, for the bucket whose ID is ?1, the two columns the
// triggers keep: the bytes of its versions and the rows of its live view.
const usageSQL = `(SELECT COALESCE(SUM(size), 0) FROM objects WHERE bucket_id = ?1) +
		(SELECT COALESCE(SUM(size), 0) FROM object_versions WHERE bucket_id = ?1),
		(SELECT count(*) FROM objects WHERE bucket_id = ?1)`

// repairUsage sets a bucket's recorded usage to what its rows hold.
func repairUsage(ctx context.Context, tx querier, id int64) error {
	_, err := tx.ExecContext(ctx, "UPDATE buckets SET (used_bytes, object_count) = (SELECT "+usageSQL+") WHERE id = ?1", id)
	return err
}
