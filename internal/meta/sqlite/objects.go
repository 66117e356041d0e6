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

// objectColumns are read FROM objectTables, in scanObject's order.
const (
	objectColumns = "o.version_id, o.blob_id, o.size, o.etag, o.mtime, o.storage_class, o.owner, o.headers, o.user_meta, o.checksum, o.upload_id, o.parts_count, d.data"
	objectTables  = "objects o LEFT JOIN inline_data d ON d.id = o.inline_id"
)

// GetObject implements meta.Store.
func (s *Store) GetObject(ctx context.Context, bucket, key, versionID string) (meta.Object, error) {
	// One statement on the hit path: the bucket is resolved inside it, and
	// only a miss asks whether the bucket or the key is missing.
	q := "SELECT " + objectColumns + " FROM " + objectTables +
		" WHERE o.bucket_id = (SELECT id FROM buckets WHERE name = ?) AND o.key = ? AND o.is_latest = 1"
	args := []any{bucket, key}
	if versionID != "" {
		q = "SELECT " + objectColumns + " FROM " + objectTables +
			" WHERE o.bucket_id = (SELECT id FROM buckets WHERE name = ?) AND o.key = ? AND o.version_id = ?"
		args = append(args, versionID)
	}
	o, err := scanObject(s.rd.QueryRowContext(ctx, q, args...))
	if errors.Is(err, meta.ErrObjectNotFound) {
		if _, berr := bucketID(ctx, s.rd, bucket); berr != nil {
			return meta.Object{}, berr
		}
	}
	o.Bucket, o.Key = bucket, key
	return o, err
}

func scanObject(row interface{ Scan(...any) error }) (meta.Object, error) {
	var (
		o                           meta.Object
		blobID, uploadID            sql.NullString
		mtime                       int64
		headers, userMeta, checksum sql.NullString
	)
	err := row.Scan(&o.VersionID, &blobID, &o.Size, &o.ETag, &mtime, &o.StorageClass, &o.Owner,
		&headers, &userMeta, &checksum, &uploadID, &o.PartsCount, &o.Inline)
	if errors.Is(err, sql.ErrNoRows) {
		return meta.Object{}, meta.ErrObjectNotFound
	}
	if err != nil {
		return meta.Object{}, err
	}
	o.BlobID, o.UploadID = blobID.String, uploadID.String
	o.LastModified = time.UnixMilli(mtime).UTC()
	for _, f := range []struct {
		col sql.NullString
		dst any
	}{{headers, &o.Headers}, {userMeta, &o.UserMeta}, {checksum, &o.Checksum}} {
		if f.col.Valid && f.col.String != "" {
			if err := json.Unmarshal([]byte(f.col.String), f.dst); err != nil {
				return meta.Object{}, err
			}
		}
	}
	return o, nil
}

// current is the latest version of a key as a write transaction sees it.
type current struct {
	exists    bool
	versionID string
	etag      string
	size      int64
	mtime     int64 // Unix milliseconds
}

func latest(ctx context.Context, tx querier, bucketID int64, key string) (current, error) {
	var c current
	err := tx.QueryRowContext(ctx,
		"SELECT version_id, etag, size, mtime FROM objects WHERE bucket_id = ? AND key = ? AND is_latest = 1",
		bucketID, key).Scan(&c.versionID, &c.etag, &c.size, &c.mtime)
	if errors.Is(err, sql.ErrNoRows) {
		return c, nil
	}
	c.exists = err == nil
	return c, err
}

func (c current) check(cond meta.Condition) error {
	if cond.IfNoneMatchAny && c.exists {
		return meta.ErrPreconditionFailed
	}
	if cond.IfMatchAny && !c.exists {
		return meta.ErrPreconditionFailed
	}
	if cond.IfMatch != "" && (!c.exists || strings.Trim(cond.IfMatch, `"`) != c.etag) {
		if !c.exists {
			return meta.ErrObjectNotFound
		}
		return meta.ErrPreconditionFailed
	}
	if c.exists && (cond.IfMatchSize != nil && *cond.IfMatchSize != c.size ||
		!cond.IfMatchLastModified.IsZero() && time.UnixMilli(c.mtime).Unix() != cond.IfMatchLastModified.Unix()) {
		return meta.ErrPreconditionFailed
	}
	return nil
}

// PutObject implements meta.Store.
func (s *Store) PutObject(ctx context.Context, o meta.Object, cond meta.Condition) ([]string, error) {
	var freed []string
	err := s.write(ctx, func(tx querier) error {
		id, err := bucketID(ctx, tx, o.Bucket)
		if err != nil {
			return err
		}
		freed, err = installObject(ctx, tx, id, o, cond)
		return err
	})
	if err != nil {
		return nil, err
	}
	return freed, nil
}

// installObject makes o the latest version of its key inside tx if cond
// holds, removing the version it replaces, and returns the blobs that are no
// longer referenced.
func installObject(ctx context.Context, tx querier, bucketID int64, o meta.Object, cond meta.Condition) ([]string, error) {
	if o.VersionID == "" {
		o.VersionID = meta.NullVersion
	}
	cols, err := encodeObject(o)
	if err != nil {
		return nil, err
	}
	cur, err := latest(ctx, tx, bucketID, o.Key)
	if err != nil {
		return nil, err
	}
	if err := cur.check(cond); err != nil {
		return nil, err
	}
	var freed []string
	if cur.exists {
		if cur.versionID == o.VersionID {
			if freed, err = removeVersion(ctx, tx, bucketID, o.Key, cur.versionID); err != nil {
				return nil, err
			}
		} else {
			if _, err := tx.ExecContext(ctx, "UPDATE objects SET is_latest = 0 WHERE bucket_id = ? AND key = ? AND version_id = ?",
				bucketID, o.Key, cur.versionID); err != nil {
				return nil, err
			}
			// An older version with o's ID (the null version, under
			// suspended versioning) is replaced, not kept beside it.
			older, err := removeVersion(ctx, tx, bucketID, o.Key, o.VersionID)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return nil, err
			}
			freed = older
		}
	}
	var inlineID any
	if len(o.Inline) > 0 {
		var id int64
		if err := tx.QueryRowContext(ctx, "INSERT INTO inline_data (data) VALUES (?) RETURNING id", o.Inline).Scan(&id); err != nil {
			return nil, err
		}
		inlineID = id
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO objects
		(bucket_id, key, version_id, is_latest, blob_id, size, etag, mtime, storage_class, owner,
		 headers, user_meta, checksum, upload_id, parts_count, inline_id, parent)
		VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		bucketID, o.Key, o.VersionID, nullString(o.BlobID), o.Size, o.ETag, o.LastModified.UnixMilli(),
		o.StorageClass, o.Owner, cols.headers, cols.userMeta, cols.checksum, nullString(o.UploadID), o.PartsCount, inlineID,
		parentOf(o.Key))
	if err != nil {
		return nil, err
	}
	if !cur.exists {
		if err := addKey(ctx, tx, bucketID, o.Key); err != nil {
			return nil, err
		}
	}
	// The replaced version's blob may be the one just inserted again (a
	// caller re-putting the same blob); only now can that be seen.
	return unreferenced(ctx, tx, freed)
}

type encodedColumns struct{ headers, userMeta, checksum any }

func encodeObject(o meta.Object) (encodedColumns, error) {
	var c encodedColumns
	h, err := json.Marshal(o.Headers)
	if err != nil {
		return c, err
	}
	c.headers = string(h)
	if len(o.UserMeta) > 0 {
		b, err := json.Marshal(o.UserMeta)
		if err != nil {
			return c, err
		}
		c.userMeta = string(b)
	}
	if o.Checksum != (meta.Checksum{}) {
		b, err := json.Marshal(o.Checksum)
		if err != nil {
			return c, err
		}
		c.checksum = string(b)
	}
	return c, nil
}

// removeVersion deletes one version row (with its inline data or, for a
// multipart object, its part rows) and returns the blobs it referred to,
// referenced or not.
func removeVersion(ctx context.Context, tx querier, bucketID int64, key, versionID string) ([]string, error) {
	var blobID, uploadID sql.NullString
	var inlineID sql.NullInt64
	err := tx.QueryRowContext(ctx,
		"DELETE FROM objects WHERE bucket_id = ? AND key = ? AND version_id = ? RETURNING blob_id, upload_id, inline_id",
		bucketID, key, versionID).Scan(&blobID, &uploadID, &inlineID)
	if err != nil {
		return nil, err
	}
	if inlineID.Valid {
		if _, err := tx.ExecContext(ctx, "DELETE FROM inline_data WHERE id = ?", inlineID.Int64); err != nil {
			return nil, err
		}
	}
	var blobs []string
	if blobID.Valid {
		blobs = append(blobs, blobID.String)
	}
	if uploadID.Valid {
		parts, err := deleteParts(ctx, tx, "DELETE FROM parts WHERE upload_id = ? RETURNING blob_id", uploadID.String)
		if err != nil {
			return nil, err
		}
		blobs = append(blobs, parts...)
	}
	return blobs, nil
}

// deleteParts runs a DELETE … RETURNING blob_id and collects the blob IDs.
func deleteParts(ctx context.Context, tx querier, q string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var blobs []string
	for rows.Next() {
		var b sql.NullString
		if err := rows.Scan(&b); err != nil {
			return nil, err
		}
		if b.Valid {
			blobs = append(blobs, b.String)
		}
	}
	return blobs, rows.Err()
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
		blobs, err := removeVersion(ctx, tx, id, key, versionID)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if cur.exists && versionID == cur.versionID { // promote the newest remaining version, if any
			res, err := tx.ExecContext(ctx, `UPDATE objects SET is_latest = 1
				WHERE bucket_id = ? AND key = ? AND version_id = (
					SELECT version_id FROM objects WHERE bucket_id = ? AND key = ? ORDER BY mtime DESC LIMIT 1)`,
				id, key, id, key)
			if err != nil {
				return err
			}
			if promoted, err := res.RowsAffected(); err != nil {
				return err
			} else if promoted == 0 {
				if err := dropKey(ctx, tx, id, key); err != nil {
					return err
				}
			}
		}
		freed, err = unreferenced(ctx, tx, blobs)
		return err
	})
	if err != nil {
		return nil, err
	}
	return freed, nil
}

// unreferenced keeps those of blobs that no object or part refers to (a
// blob may be shared).
func unreferenced(ctx context.Context, q querier, blobs []string) ([]string, error) {
	var out []string
	for _, b := range blobs {
		if b == "" {
			continue
		}
		var one int
		err := q.QueryRowContext(ctx, `SELECT 1 WHERE EXISTS (SELECT 1 FROM objects WHERE blob_id = ?1)
			OR EXISTS (SELECT 1 FROM parts WHERE blob_id = ?1)`, b).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			out = append(out, b)
			continue
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// UnreferencedBlobs implements meta.Store.
func (s *Store) UnreferencedBlobs(ctx context.Context, ids []string) ([]string, error) {
	return unreferenced(ctx, s.rd, ids)
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}
