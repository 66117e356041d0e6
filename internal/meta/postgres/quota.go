package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/jogstore/jog/internal/meta"
)

// Bucket usage (ADR 0018): buckets.used_bytes is kept by the triggers of
// migration 0001 only while the bucket has a quota, in the transaction of
// each change. The trigger's UPDATE locks the bucket's row until the
// write commits, so the writes to a bucket with a quota are serial from
// their first change of a version on, and checkQuota, run after the
// change, reads a usage no other transaction can move. A bucket without
// a quota has no usage kept: BucketUsage sums its versions.

// usageOf is the SQL of the bytes the stored versions of the bucket whose
// ID is the expression id sum to.
func usageOf(id string) string {
	return "(SELECT coalesce(sum(size), 0) FROM objects WHERE bucket_id = " + id + ")::bigint + " +
		"(SELECT coalesce(sum(size), 0) FROM object_versions WHERE bucket_id = " + id + ")::bigint"
}

// SetBucketQuota implements meta.Store. It locks the bucket's row FOR
// UPDATE, waiting for the writes in flight (none can start meanwhile),
// and computes the usage the triggers keep from now on.
func (s *Store) SetBucketQuota(ctx context.Context, bucket string, quota int64) error {
	if quota < 0 {
		return fmt.Errorf("quota %d: must not be negative", quota)
	}
	defer s.hints.drop(bucket)
	return s.inTx(ctx, func(tx pgx.Tx) error {
		id, err := lockBucket(ctx, tx, bucket, true)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "UPDATE buckets SET quota_bytes = $2::bigint, used_bytes = CASE WHEN $2::bigint > 0 THEN "+
			usageOf("$1")+" ELSE 0 END WHERE id = $1", id, quota)
		return err
	})
}

// BucketUsage implements meta.Store: the kept usage of a bucket with a
// quota, the sum over the versions of one without, and the count of its
// live view (kept nowhere: a bucket row every write updated would make
// all writes to a bucket serial), all in one statement's snapshot.
func (s *Store) BucketUsage(ctx context.Context, bucket string) (meta.Usage, error) {
	var u meta.Usage
	err := s.pool.QueryRow(ctx, "SELECT CASE WHEN b.quota_bytes > 0 THEN b.used_bytes ELSE "+usageOf("b.id")+
		" END, (SELECT count(*) FROM objects WHERE bucket_id = b.id) FROM buckets b WHERE b.name = $1", bucket).Scan(&u.Bytes, &u.Objects)
	if errors.Is(err, pgx.ErrNoRows) {
		return meta.Usage{}, meta.ErrBucketNotFound
	}
	return u, err
}

// checkQuota refuses, inside tx and after a write of size bytes to
// bucket b, a usage above the bucket's quota. A write of no bytes (a
// delete marker, an empty object) is never refused; a bucket without a
// quota costs no query (b was read under the bucket's lock, which keeps
// the quota from changing).
func checkQuota(ctx context.Context, tx pgx.Tx, b bucketRef, size int64) error {
	if size <= 0 || b.quota == 0 {
		return nil
	}
	var used int64
	if err := tx.QueryRow(ctx, "SELECT used_bytes FROM buckets WHERE id = $1", b.id).Scan(&used); err != nil {
		return err
	}
	if used > b.quota {
		return fmt.Errorf("%w: the bucket would hold %d bytes, its quota is %d", meta.ErrQuotaExceeded, used, b.quota)
	}
	return nil
}
