package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jogstore/jog/internal/meta"
)

// PutBucketConfig implements meta.Store.
func (s *Store) PutBucketConfig(ctx context.Context, bucket, name string, doc []byte) error {
	if doc == nil {
		doc = []byte{} // NOT NULL: an empty document is still a document
	}
	return s.write(ctx, func(tx querier) error {
		id, err := bucketID(ctx, tx, bucket)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO bucket_configs (bucket_id, name, doc, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (bucket_id, name) DO UPDATE SET doc = excluded.doc, updated_at = excluded.updated_at`,
			id, name, doc, meta.Now().UnixMilli())
		return err
	})
}

// GetBucketConfig implements meta.Store. One query tells a missing bucket
// from a missing configuration.
func (s *Store) GetBucketConfig(ctx context.Context, bucket, name string) ([]byte, error) {
	var doc []byte
	var found bool
	err := s.rd.QueryRowContext(ctx, `SELECT c.doc, c.doc IS NOT NULL FROM buckets b
		LEFT JOIN bucket_configs c ON c.bucket_id = b.id AND c.name = ? WHERE b.name = ?`, name, bucket).
		Scan(&doc, &found)
	switch {
	case errors.Is(err, sql.ErrNoRows):
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
	return s.write(ctx, func(tx querier) error {
		id, err := bucketID(ctx, tx, bucket)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "DELETE FROM bucket_configs WHERE bucket_id = ? AND name = ?", id, name)
		return err
	})
}
