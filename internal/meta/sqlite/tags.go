package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// PutObjectTags implements meta.ObjectStore: one UPDATE of the live row
// (or of the version's row in object_versions), in one transaction.
func (s *Store) PutObjectTags(ctx context.Context, bucket, key, versionID, tags string) (string, error) {
	return s.putVersionColumn(ctx, bucket, key, versionID, "tags", tags)
}

// PutObjectACL implements meta.ObjectStore as PutObjectTags.
func (s *Store) PutObjectACL(ctx context.Context, bucket, key, versionID, acl string) (string, error) {
	return s.putVersionColumn(ctx, bucket, key, versionID, "acl", acl)
}

// putVersionColumn sets column (a constant of this package: tags, acl) of
// key's latest version or the given one to value ("" is NULL).
func (s *Store) putVersionColumn(ctx context.Context, bucket, key, versionID, column, value string) (string, error) {
	var updated string
	err := s.write(ctx, func(tx querier) error {
		b, err := bucketRow(ctx, tx, bucket)
		if err != nil {
			return err
		}
		cond, args := "is_latest = 1", []any{nullString(value), b.id, key}
		if versionID != "" {
			cond, args = "version_id = ?", append(args, versionID)
		}
		err = tx.QueryRowContext(ctx, "UPDATE objects SET "+column+" = ? WHERE bucket_id = ? AND key = ? AND "+cond+" RETURNING version_id",
			args...).Scan(&updated)
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if !b.versions {
			return meta.ErrObjectNotFound
		}
		// Not live: a delete marker (the latest, or the one named), or a
		// noncurrent version.
		var marker bool
		var mtime int64
		err = tx.QueryRowContext(ctx, "SELECT version_id, delete_marker, mtime FROM object_versions WHERE bucket_id = ? AND key = ? AND "+cond,
			args[1:]...).Scan(&updated, &marker, &mtime)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return meta.ErrObjectNotFound
		case err != nil:
			return err
		case marker:
			return &meta.DeleteMarkerError{VersionID: updated, LastModified: time.UnixMilli(mtime).UTC()}
		}
		_, err = tx.ExecContext(ctx, "UPDATE object_versions SET "+column+" = ? WHERE bucket_id = ? AND key = ? AND version_id = ?",
			nullString(value), b.id, key, updated)
		return err
	})
	if err != nil {
		return "", err
	}
	return updated, nil
}
