package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// CreateBucket implements meta.Store.
func (s *Store) CreateBucket(ctx context.Context, b meta.Bucket) error {
	return s.write(ctx, func(tx querier) error {
		var one int
		err := tx.QueryRowContext(ctx, "SELECT 1 FROM buckets WHERE name = ?", b.Name).Scan(&one)
		if err == nil {
			return meta.ErrBucketExists
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		versioning := ""
		if b.ObjectLock {
			versioning = meta.VersioningEnabled
		}
		_, err = tx.ExecContext(ctx,
			"INSERT INTO buckets (name, region, owner, created_at, versioning, object_lock, quota_bytes) VALUES (?, ?, ?, ?, ?, ?, ?)",
			b.Name, b.Region, b.Owner, b.CreatedAt.UnixMilli(), versioning, b.ObjectLock, max(b.Quota, 0))
		return err
	})
}

// GetBucket implements meta.Store.
func (s *Store) GetBucket(ctx context.Context, name string) (meta.Bucket, error) {
	if b, ok := s.buckets.get(name); ok {
		return b, nil
	}
	gen := s.buckets.generation()
	b := meta.Bucket{Name: name}
	var created int64
	err := s.rd.QueryRowContext(ctx,
		"SELECT region, owner, created_at, versioning, object_lock, quota_bytes FROM buckets WHERE name = ?", name).
		Scan(&b.Region, &b.Owner, &created, &b.Versioning, &b.ObjectLock, &b.Quota)
	if errors.Is(err, sql.ErrNoRows) {
		return meta.Bucket{}, meta.ErrBucketNotFound
	}
	if err != nil {
		return meta.Bucket{}, err
	}
	b.CreatedAt = time.UnixMilli(created).UTC()
	s.buckets.put(b, gen)
	return b, nil
}

// ListBuckets implements meta.Store: one range scan of the name index.
func (s *Store) ListBuckets(ctx context.Context, opts meta.ListBucketsOptions) ([]meta.Bucket, error) {
	q := "SELECT name, region, owner, created_at, versioning, object_lock, quota_bytes FROM buckets WHERE name >= ?"
	args := []any{opts.Prefix}
	if opts.After >= opts.Prefix {
		q = "SELECT name, region, owner, created_at, versioning, object_lock, quota_bytes FROM buckets WHERE name > ?"
		args = []any{opts.After}
	}
	if end := meta.PrefixEnd(opts.Prefix); end != "" {
		q += " AND name < ?"
		args = append(args, end)
	}
	q += " ORDER BY name"
	if opts.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, opts.Limit)
	}
	rows, err := s.rd.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []meta.Bucket
	for rows.Next() {
		var b meta.Bucket
		var created int64
		if err := rows.Scan(&b.Name, &b.Region, &b.Owner, &created, &b.Versioning, &b.ObjectLock, &b.Quota); err != nil {
			return nil, err
		}
		b.CreatedAt = time.UnixMilli(created).UTC()
		out = append(out, b)
	}
	return out, rows.Err()
}

// DeleteBucket implements meta.Store.
func (s *Store) DeleteBucket(ctx context.Context, name string) ([]string, error) {
	var freed []string
	// Dropped before and after the commit: a lookup in between would
	// otherwise cache the bucket being deleted.
	s.buckets.drop(name)
	defer s.buckets.drop(name)
	err := s.write(ctx, func(tx querier) error {
		id, err := bucketID(ctx, tx, name)
		if err != nil {
			return err
		}
		var one int
		err = tx.QueryRowContext(ctx, `SELECT 1 WHERE EXISTS (SELECT 1 FROM objects WHERE bucket_id = ?1)
			OR EXISTS (SELECT 1 FROM object_versions WHERE bucket_id = ?1)`, id).Scan(&one)
		if err == nil {
			return meta.ErrBucketNotEmpty
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		freed, err = deleteParts(ctx, tx, `DELETE FROM parts WHERE upload_id IN
			(SELECT upload_id FROM uploads WHERE bucket_id = ?) RETURNING blob_id`, id)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM uploads WHERE bucket_id = ?", id); err != nil {
			return err
		}
		// Empty when the index is right; a bucket created later may
		// reuse the id.
		if _, err := tx.ExecContext(ctx, "DELETE FROM dirs WHERE bucket_id = ?", id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM bucket_configs WHERE bucket_id = ?", id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM reservations WHERE bucket_id = ?", id); err != nil {
			return err
		}
		// Empty too: a version's lock row goes with the version.
		if _, err := tx.ExecContext(ctx, "DELETE FROM object_locks WHERE bucket_id = ?", id); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "DELETE FROM buckets WHERE id = ?", id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return freed, nil
}

// SetBucketVersioning implements meta.Store.
func (s *Store) SetBucketVersioning(ctx context.Context, bucket, state string) error {
	s.buckets.drop(bucket)
	defer s.buckets.drop(bucket)
	return s.write(ctx, func(tx querier) error {
		var locked bool
		err := tx.QueryRowContext(ctx, "SELECT object_lock FROM buckets WHERE name = ?", bucket).Scan(&locked)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return meta.ErrBucketNotFound
		case err != nil:
			return err
		case locked && state != meta.VersioningEnabled:
			return meta.ErrInvalidBucketState
		}
		_, err = tx.ExecContext(ctx, "UPDATE buckets SET versioning = ? WHERE name = ?", state, bucket)
		return err
	})
}

// EnableObjectLock implements meta.Store.
func (s *Store) EnableObjectLock(ctx context.Context, bucket string) error {
	s.buckets.drop(bucket)
	defer s.buckets.drop(bucket)
	return s.write(ctx, func(tx querier) error {
		var versioning string
		err := tx.QueryRowContext(ctx, "SELECT versioning FROM buckets WHERE name = ?", bucket).Scan(&versioning)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return meta.ErrBucketNotFound
		case err != nil:
			return err
		case versioning != meta.VersioningEnabled:
			return meta.ErrInvalidBucketState
		}
		_, err = tx.ExecContext(ctx, "UPDATE buckets SET object_lock = 1 WHERE name = ?", bucket)
		return err
	})
}
