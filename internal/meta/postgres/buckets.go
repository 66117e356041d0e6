package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jogstore/jog/internal/meta"
)

// CreateBucket implements meta.Store: one statement, the name's unique
// index deciding between two gateways creating the same bucket.
func (s *Store) CreateBucket(ctx context.Context, b meta.Bucket) error {
	s.hints.drop(b.Name) // of a bucket of that name deleted elsewhere
	versioning := ""
	if b.ObjectLock {
		versioning = meta.VersioningEnabled
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO buckets (name, region, owner, created_at, versioning, object_lock, quota_bytes)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (name) DO NOTHING`,
		b.Name, b.Region, b.Owner, millis(b.CreatedAt), versioning, b.ObjectLock, max(b.Quota, 0))
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return meta.ErrBucketExists
	}
	return nil
}

// bucketColumns are read FROM buckets, in scanBucket's order.
const bucketColumns = "name, region, owner, created_at, versioning, object_lock, quota_bytes"

func scanBucket(row pgx.Row) (meta.Bucket, error) {
	var b meta.Bucket
	var created int64
	if err := row.Scan(&b.Name, &b.Region, &b.Owner, &created, &b.Versioning, &b.ObjectLock, &b.Quota); err != nil {
		return meta.Bucket{}, err
	}
	b.CreatedAt = fromMillis(created)
	return b, nil
}

// GetBucket implements meta.Store.
func (s *Store) GetBucket(ctx context.Context, name string) (meta.Bucket, error) {
	at := time.Now()
	b, err := scanBucket(s.pool.QueryRow(ctx, "SELECT "+bucketColumns+" FROM buckets WHERE name = $1", name))
	if errors.Is(err, pgx.ErrNoRows) {
		return meta.Bucket{}, meta.ErrBucketNotFound
	}
	if err == nil {
		s.hints.put(b, at)
	}
	return b, err
}

// ListBuckets implements meta.Store: one range scan of the name index.
func (s *Store) ListBuckets(ctx context.Context, opts meta.ListBucketsOptions) ([]meta.Bucket, error) {
	q, args := "SELECT "+bucketColumns+" FROM buckets WHERE name >= $1", []any{opts.Prefix}
	if opts.After >= opts.Prefix {
		q, args = "SELECT "+bucketColumns+" FROM buckets WHERE name > $1", []any{opts.After}
	}
	if end := meta.PrefixEnd(opts.Prefix); end != "" {
		args = append(args, end)
		q += " AND name < $2"
	}
	q += " ORDER BY name"
	if opts.Limit > 0 {
		args = append(args, opts.Limit)
		q += fmt.Sprintf(" LIMIT $%d", len(args))
	}
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []meta.Bucket
	for rows.Next() {
		b, err := scanBucket(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// DeleteBucket implements meta.Store. It locks the bucket's row FOR
// UPDATE, so it waits for every write to the bucket in flight, and the
// writes that follow find no bucket.
func (s *Store) DeleteBucket(ctx context.Context, name string) ([]string, error) {
	defer s.hints.drop(name)
	var freed []string
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		id, err := lockBucket(ctx, tx, name, true)
		if err != nil {
			return err
		}
		var used bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM objects WHERE bucket_id = $1)
			OR EXISTS (SELECT 1 FROM object_versions WHERE bucket_id = $1)`, id).Scan(&used); err != nil {
			return err
		}
		if used {
			return meta.ErrBucketNotEmpty
		}
		freed, err = collectBlobs(ctx, tx, `DELETE FROM parts WHERE upload_id IN
			(SELECT upload_id FROM uploads WHERE bucket_id = $1) RETURNING blob_id`, id)
		if err != nil {
			return err
		}
		// object_locks is empty too: a version's lock row goes with it.
		for _, table := range []string{"uploads", "bucket_configs", "reservations", "object_locks"} {
			if _, err := tx.Exec(ctx, "DELETE FROM "+table+" WHERE bucket_id = $1", id); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, "DELETE FROM buckets WHERE id = $1", id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return freed, nil
}

// SetBucketVersioning implements meta.Store. Like DeleteBucket it locks
// the bucket's row FOR UPDATE: a write reads the versioning state (and
// object lock) under its FOR KEY SHARE lock, and must find it unchanged
// until it commits (meta.Condition.Versioning).
func (s *Store) SetBucketVersioning(ctx context.Context, bucket, state string) error {
	return s.changeBucket(ctx, bucket,
		"UPDATE buckets SET versioning = $2 WHERE id = $1 AND (NOT object_lock OR $2 = 'Enabled')", state)
}

// EnableObjectLock implements meta.Store, locking as SetBucketVersioning.
func (s *Store) EnableObjectLock(ctx context.Context, bucket string) error {
	return s.changeBucket(ctx, bucket, "UPDATE buckets SET object_lock = true WHERE id = $1 AND versioning = 'Enabled'")
}

// changeBucket runs update (on bucket $1, with args from $2) under the
// bucket's exclusive lock; an update that changes no row is
// meta.ErrInvalidBucketState.
func (s *Store) changeBucket(ctx context.Context, bucket, update string, args ...any) error {
	defer s.hints.drop(bucket)
	return s.inTx(ctx, func(tx pgx.Tx) error {
		id, err := lockBucket(ctx, tx, bucket, true)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, update, append([]any{id}, args...)...)
		if err == nil && tag.RowsAffected() == 0 {
			return meta.ErrInvalidBucketState
		}
		return err
	})
}

// PutBucketConfig implements meta.Store.
func (s *Store) PutBucketConfig(ctx context.Context, bucket, name string, doc []byte) error {
	if doc == nil {
		doc = []byte{} // NOT NULL: an empty document is still a document
	}
	return s.inTx(ctx, func(tx pgx.Tx) error {
		id, err := lockBucket(ctx, tx, bucket, false)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO bucket_configs (bucket_id, name, doc, updated_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (bucket_id, name) DO UPDATE SET doc = EXCLUDED.doc, updated_at = EXCLUDED.updated_at`,
			id, name, doc, millis(meta.Now()))
		return err
	})
}

// GetBucketConfig implements meta.Store. One query tells a missing bucket
// from a missing configuration.
func (s *Store) GetBucketConfig(ctx context.Context, bucket, name string) ([]byte, error) {
	var doc []byte
	var found bool
	err := s.pool.QueryRow(ctx, `SELECT c.doc, c.doc IS NOT NULL FROM buckets b
		LEFT JOIN bucket_configs c ON c.bucket_id = b.id AND c.name = $1 WHERE b.name = $2`, name, bucket).
		Scan(&doc, &found)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, meta.ErrBucketNotFound
	case err != nil:
		return nil, err
	case !found:
		return nil, meta.ErrNoSuchConfig
	}
	if doc == nil {
		doc = []byte{}
	}
	return doc, nil
}

// DeleteBucketConfig implements meta.Store.
func (s *Store) DeleteBucketConfig(ctx context.Context, bucket, name string) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		id, err := lockBucket(ctx, tx, bucket, false)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "DELETE FROM bucket_configs WHERE bucket_id = $1 AND name = $2", id, name)
		return err
	})
}
