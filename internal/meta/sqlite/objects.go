package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

const objectColumns = "version_id, blob_id, size, etag, mtime, storage_class, owner, headers, user_meta"

// GetObject implements meta.Store.
func (s *Store) GetObject(ctx context.Context, bucket, key, versionID string) (meta.Object, error) {
	id, err := bucketID(ctx, s.rd, bucket)
	if err != nil {
		return meta.Object{}, err
	}
	q := "SELECT " + objectColumns + " FROM objects WHERE bucket_id = ? AND key = ? AND is_latest = 1"
	args := []any{id, key}
	if versionID != "" {
		q = "SELECT " + objectColumns + " FROM objects WHERE bucket_id = ? AND key = ? AND version_id = ?"
		args = append(args, versionID)
	}
	o, err := scanObject(s.rd.QueryRowContext(ctx, q, args...))
	o.Bucket, o.Key = bucket, key
	return o, err
}

func scanObject(row *sql.Row) (meta.Object, error) {
	var (
		o                 meta.Object
		blobID            sql.NullString
		mtime             int64
		headers, userMeta sql.NullString
	)
	err := row.Scan(&o.VersionID, &blobID, &o.Size, &o.ETag, &mtime, &o.StorageClass, &o.Owner, &headers, &userMeta)
	if errors.Is(err, sql.ErrNoRows) {
		return meta.Object{}, meta.ErrObjectNotFound
	}
	if err != nil {
		return meta.Object{}, err
	}
	o.BlobID = blobID.String
	o.LastModified = time.UnixMilli(mtime).UTC()
	if headers.Valid {
		if err := json.Unmarshal([]byte(headers.String), &o.Headers); err != nil {
			return meta.Object{}, err
		}
	}
	if userMeta.Valid {
		if err := json.Unmarshal([]byte(userMeta.String), &o.UserMeta); err != nil {
			return meta.Object{}, err
		}
	}
	return o, nil
}

// current is the latest version of a key as a write transaction sees it.
type current struct {
	exists    bool
	versionID string
	etag      string
	blobID    string
}

func latest(ctx context.Context, tx querier, bucketID int64, key string) (current, error) {
	var c current
	var blobID sql.NullString
	err := tx.QueryRowContext(ctx,
		"SELECT version_id, etag, blob_id FROM objects WHERE bucket_id = ? AND key = ? AND is_latest = 1",
		bucketID, key).Scan(&c.versionID, &c.etag, &blobID)
	if errors.Is(err, sql.ErrNoRows) {
		return c, nil
	}
	c.exists, c.blobID = err == nil, blobID.String
	return c, err
}

func (c current) check(cond meta.Condition) error {
	if cond.IfNoneMatchAny && c.exists {
		return meta.ErrPreconditionFailed
	}
	if cond.IfMatch != "" && (!c.exists || strings.Trim(cond.IfMatch, `"`) != c.etag) {
		if !c.exists {
			return meta.ErrObjectNotFound
		}
		return meta.ErrPreconditionFailed
	}
	return nil
}

// PutObject implements meta.Store.
func (s *Store) PutObject(ctx context.Context, o meta.Object, cond meta.Condition) ([]string, error) {
	headers, err := json.Marshal(o.Headers)
	if err != nil {
		return nil, err
	}
	var userMeta any
	if len(o.UserMeta) > 0 {
		b, err := json.Marshal(o.UserMeta)
		if err != nil {
			return nil, err
		}
		userMeta = string(b)
	}
	if o.VersionID == "" {
		o.VersionID = meta.NullVersion
	}
	var freed []string
	err = s.write(ctx, func(tx querier) error {
		id, err := bucketID(ctx, tx, o.Bucket)
		if err != nil {
			return err
		}
		cur, err := latest(ctx, tx, id, o.Key)
		if err != nil {
			return err
		}
		if err := cur.check(cond); err != nil {
			return err
		}
		replaced := "" // blob of the version this put replaces
		if cur.exists {
			if cur.versionID == o.VersionID {
				if _, err := tx.ExecContext(ctx, "DELETE FROM objects WHERE bucket_id = ? AND key = ? AND version_id = ?",
					id, o.Key, cur.versionID); err != nil {
					return err
				}
				replaced = cur.blobID
			} else if _, err := tx.ExecContext(ctx, "UPDATE objects SET is_latest = 0 WHERE bucket_id = ? AND key = ? AND version_id = ?",
				id, o.Key, cur.versionID); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO objects
			(bucket_id, key, version_id, is_latest, blob_id, size, etag, mtime, storage_class, owner, headers, user_meta)
			VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, o.Key, o.VersionID, nullString(o.BlobID), o.Size, o.ETag, o.LastModified.UnixMilli(),
			o.StorageClass, o.Owner, string(headers), userMeta)
		if err != nil {
			return err
		}
		freed, err = appendIfUnreferenced(ctx, tx, freed, replaced)
		return err
	})
	if err != nil {
		return nil, err
	}
	return freed, nil
}

// DeleteObject implements meta.Store.
func (s *Store) DeleteObject(ctx context.Context, bucket, key, versionID string, cond meta.Condition) ([]string, error) {
	var freed []string
	err := s.write(ctx, func(tx querier) error {
		id, err := bucketID(ctx, tx, bucket)
		if err != nil {
			return err
		}
		cur, err := latest(ctx, tx, id, key)
		if err != nil {
			return err
		}
		if err := cur.check(cond); err != nil {
			return err
		}
		if versionID == "" {
			if !cur.exists {
				return nil
			}
			versionID = cur.versionID
		}
		var blobID sql.NullString
		var isLatest bool
		err = tx.QueryRowContext(ctx,
			"DELETE FROM objects WHERE bucket_id = ? AND key = ? AND version_id = ? RETURNING blob_id, is_latest",
			id, key, versionID).Scan(&blobID, &isLatest)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if isLatest { // promote the newest remaining version, if any
			_, err = tx.ExecContext(ctx, `UPDATE objects SET is_latest = 1
				WHERE bucket_id = ? AND key = ? AND version_id = (
					SELECT version_id FROM objects WHERE bucket_id = ? AND key = ? ORDER BY mtime DESC LIMIT 1)`,
				id, key, id, key)
			if err != nil {
				return err
			}
		}
		freed, err = appendIfUnreferenced(ctx, tx, freed, blobID.String)
		return err
	})
	if err != nil {
		return nil, err
	}
	return freed, nil
}

// appendIfUnreferenced appends blobID to freed when it is not empty and no
// object refers to it any more (another key or version may share it).
func appendIfUnreferenced(ctx context.Context, tx querier, freed []string, blobID string) ([]string, error) {
	if blobID == "" {
		return freed, nil
	}
	var one int
	err := tx.QueryRowContext(ctx, "SELECT 1 FROM objects WHERE blob_id = ? LIMIT 1", blobID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return append(freed, blobID), nil
	}
	return freed, err
}

// UnreferencedBlobs implements meta.Store.
func (s *Store) UnreferencedBlobs(ctx context.Context, ids []string) ([]string, error) {
	var out []string
	for _, id := range ids {
		var one int
		err := s.rd.QueryRowContext(ctx, "SELECT 1 FROM objects WHERE blob_id = ? LIMIT 1", id).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			out = append(out, id)
			continue
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}
