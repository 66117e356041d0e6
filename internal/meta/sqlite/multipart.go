package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// CreateUpload implements meta.Store.
func (s *Store) CreateUpload(ctx context.Context, u meta.Upload) error {
	cols, err := encodeObject(meta.Object{Headers: u.Headers, UserMeta: u.UserMeta})
	if err != nil {
		return err
	}
	var lock sql.NullString
	if u.Lock != nil {
		b, err := json.Marshal(u.Lock)
		if err != nil {
			return err
		}
		lock = sql.NullString{String: string(b), Valid: true}
	}
	return s.write(ctx, func(tx querier) error {
		id, err := bucketID(ctx, tx, u.Bucket)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO uploads
			(upload_id, bucket_id, key, initiated, owner, storage_class, headers, user_meta, checksum_algo, checksum_type, tags, object_lock, acl, encryption)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			u.UploadID, id, u.Key, u.Initiated.UnixMilli(), u.Owner, u.StorageClass, cols.headers, cols.userMeta,
			u.ChecksumAlgorithm, u.ChecksumType, nullString(u.Tags), lock, nullString(u.ACL), encryptionColumn(u.Encryption))
		return err
	})
}

const uploadColumns = "upload_id, key, initiated, owner, storage_class, headers, user_meta, checksum_algo, checksum_type, tags, object_lock, acl, encryption"

func scanUpload(sc interface{ Scan(...any) error }, bucket string) (meta.Upload, error) {
	u := meta.Upload{Bucket: bucket}
	var initiated int64
	var headers, userMeta, tags, lock, acl sql.NullString
	var encryption []byte
	if err := sc.Scan(&u.UploadID, &u.Key, &initiated, &u.Owner, &u.StorageClass, &headers, &userMeta,
		&u.ChecksumAlgorithm, &u.ChecksumType, &tags, &lock, &acl, &encryption); err != nil {
		return u, err
	}
	var err error
	if u.Encryption, err = meta.DecodeEncryption(encryption); err != nil {
		return u, err
	}
	if lock.Valid {
		u.Lock = new(meta.ObjectLock)
		if err := json.Unmarshal([]byte(lock.String), u.Lock); err != nil {
			return u, err
		}
	}
	u.Tags, u.ACL = tags.String, acl.String
	u.Initiated = time.UnixMilli(initiated).UTC()
	if headers.Valid && headers.String != "" {
		if err := json.Unmarshal([]byte(headers.String), &u.Headers); err != nil {
			return u, err
		}
	}
	if userMeta.Valid && userMeta.String != "" {
		if err := json.Unmarshal([]byte(userMeta.String), &u.UserMeta); err != nil {
			return u, err
		}
	}
	return u, nil
}

// getUpload finds an upload of bucket/key in progress.
func getUpload(ctx context.Context, q querier, bucket, key, uploadID string) (meta.Upload, int64, error) {
	id, err := bucketID(ctx, q, bucket)
	if err != nil {
		return meta.Upload{}, 0, err
	}
	u, err := scanUpload(q.QueryRowContext(ctx, "SELECT "+uploadColumns+
		" FROM uploads WHERE upload_id = ? AND bucket_id = ? AND key = ?", uploadID, id, key), bucket)
	if errors.Is(err, sql.ErrNoRows) {
		return u, id, meta.ErrUploadNotFound
	}
	return u, id, err
}

// GetUpload implements meta.Store.
func (s *Store) GetUpload(ctx context.Context, bucket, key, uploadID string) (meta.Upload, error) {
	u, _, err := getUpload(ctx, s.rd, bucket, key, uploadID)
	return u, err
}

// PutPart implements meta.Store.
func (s *Store) PutPart(ctx context.Context, bucket, key, uploadID string, p meta.Part) ([]string, error) {
	var freed []string
	err := s.write(ctx, func(tx querier) error {
		if _, _, err := getUpload(ctx, tx, bucket, key, uploadID); err != nil {
			return err
		}
		old, err := deleteParts(ctx, tx, "DELETE FROM parts WHERE upload_id = ? AND part_number = ? RETURNING blob_id",
			uploadID, p.Number)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO parts
			(upload_id, part_number, blob_id, size, etag, mtime, checksum_algo, checksum)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			uploadID, p.Number, nullString(p.BlobID), p.Size, p.ETag, p.LastModified.UnixMilli(), p.ChecksumAlgorithm, p.Checksum)
		if err != nil {
			return err
		}
		if err := checkPartQuota(ctx, tx, bucket, uploadID, p.Size); err != nil {
			return err
		}
		freed, err = unreferenced(ctx, tx, old)
		return err
	})
	if err != nil {
		return nil, err
	}
	return freed, nil
}

const partColumns = "part_number, blob_id, size, etag, mtime, checksum_algo, checksum"

func queryParts(ctx context.Context, q querier, query string, args ...any) ([]meta.Part, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var parts []meta.Part
	for rows.Next() {
		var p meta.Part
		var blobID sql.NullString
		var mtime int64
		if err := rows.Scan(&p.Number, &blobID, &p.Size, &p.ETag, &mtime, &p.ChecksumAlgorithm, &p.Checksum); err != nil {
			return nil, err
		}
		p.BlobID, p.LastModified = blobID.String, time.UnixMilli(mtime).UTC()
		parts = append(parts, p)
	}
	return parts, rows.Err()
}

// ListParts implements meta.Store.
func (s *Store) ListParts(ctx context.Context, bucket, key, uploadID string, after, limit int) ([]meta.Part, bool, error) {
	if _, _, err := getUpload(ctx, s.rd, bucket, key, uploadID); err != nil {
		return nil, false, err
	}
	parts, err := queryParts(ctx, s.rd, "SELECT "+partColumns+
		" FROM parts WHERE upload_id = ? AND part_number > ? ORDER BY part_number LIMIT ?", uploadID, after, limit+1)
	if err != nil {
		return nil, false, err
	}
	if len(parts) > limit {
		return parts[:limit], true, nil
	}
	return parts, false, nil
}

// ObjectParts implements meta.Store.
func (s *Store) ObjectParts(ctx context.Context, uploadID string) ([]meta.Part, error) {
	return queryParts(ctx, s.rd, "SELECT "+partColumns+" FROM parts WHERE upload_id = ? ORDER BY part_number", uploadID)
}

// AbortUpload implements meta.Store.
func (s *Store) AbortUpload(ctx context.Context, bucket, key, uploadID string) ([]string, error) {
	var freed []string
	err := s.write(ctx, func(tx querier) error {
		if _, _, err := getUpload(ctx, tx, bucket, key, uploadID); err != nil {
			return err
		}
		blobs, err := deleteParts(ctx, tx, "DELETE FROM parts WHERE upload_id = ? RETURNING blob_id", uploadID)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM uploads WHERE upload_id = ?", uploadID); err != nil {
			return err
		}
		freed, err = unreferenced(ctx, tx, blobs)
		return err
	})
	if err != nil {
		return nil, err
	}
	return freed, nil
}

// CompleteUpload implements meta.Store.
func (s *Store) CompleteUpload(ctx context.Context, o meta.Object, cond meta.Condition) ([]string, error) {
	var freed []string
	err := s.write(ctx, func(tx querier) error {
		if _, _, err := getUpload(ctx, tx, o.Bucket, o.Key, o.UploadID); err != nil {
			return err
		}
		b, err := bucketRow(ctx, tx, o.Bucket)
		if err != nil {
			return err
		}
		have, err := queryParts(ctx, tx, "SELECT "+partColumns+" FROM parts WHERE upload_id = ? ORDER BY part_number", o.UploadID)
		if err != nil {
			return err
		}
		chosen := make(map[int]string, len(o.Parts))
		for _, p := range o.Parts {
			chosen[p.Number] = p.ETag
		}
		var drop []string
		found := 0
		for _, p := range have {
			etag, ok := chosen[p.Number]
			switch {
			case !ok:
				if _, err := tx.ExecContext(ctx, "DELETE FROM parts WHERE upload_id = ? AND part_number = ?", o.UploadID, p.Number); err != nil {
					return err
				}
				drop = append(drop, p.BlobID)
			case etag != p.ETag:
				return meta.ErrPartChanged
			default:
				found++
			}
		}
		if found != len(o.Parts) {
			return meta.ErrPartChanged
		}
		o.PartsCount = len(o.Parts)
		replaced, err := installObject(ctx, tx, b, o, cond)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM uploads WHERE upload_id = ?", o.UploadID); err != nil {
			return err
		}
		dropped, err := unreferenced(ctx, tx, drop)
		freed = append(replaced, dropped...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return freed, nil
}

// ListUploads implements meta.Store: meta.ListUploads over uploads in
// (key, upload ID) order.
func (s *Store) ListUploads(ctx context.Context, bucket string, opts meta.ListUploadsOptions) (meta.UploadsPage, error) {
	id, err := bucketID(ctx, s.rd, bucket)
	if err != nil {
		return meta.UploadsPage{}, err
	}
	return meta.ListUploads(ctx, opts, func(ctx context.Context, p meta.UploadPos, end string, limit int) ([]meta.Upload, error) {
		return s.uploadRows(ctx, id, bucket, p, end, limit)
	}, false)
}

// uploadRows reads up to limit uploads in (key, upload ID) order from p,
// below end ("" for no bound).
func (s *Store) uploadRows(ctx context.Context, id int64, bucket string, p meta.UploadPos, end string, limit int) ([]meta.Upload, error) {
	q := "SELECT " + uploadColumns + " FROM uploads WHERE bucket_id = ? AND "
	args := []any{id}
	switch {
	case p.Inclusive:
		q += "key >= ?"
		args = append(args, p.Key)
	case p.UploadID == "":
		q += "key > ?"
		args = append(args, p.Key)
	default:
		q += "(key > ? OR (key = ? AND upload_id > ?))"
		args = append(args, p.Key, p.Key, p.UploadID)
	}
	if end != "" {
		q += " AND key < ?"
		args = append(args, end)
	}
	q += " ORDER BY key, upload_id LIMIT ?"
	args = append(args, limit)
	var got []meta.Upload
	err := queryEach(ctx, s.rd, q, args, func(rows *sql.Rows) error {
		u, err := scanUpload(rows, bucket)
		got = append(got, u)
		return err
	})
	return got, err
}
