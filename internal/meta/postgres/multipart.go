package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/jogstore/jog/internal/meta"
)

// An upload's row is its lock: PutPart holds it FOR SHARE (parts of one
// upload are stored side by side), AbortUpload deletes it, so an abort
// waits for the parts in flight and a part that comes after finds no
// upload. Two PutParts of one part number are serial on the part's row.

// CreateUpload implements meta.Store.
func (s *Store) CreateUpload(ctx context.Context, u meta.Upload) error {
	if !representable(u.Key) {
		return fmt.Errorf("postgres: key %q: %w", u.Key, meta.ErrUnstorableKey)
	}
	docs, err := meta.EncodeObjectDocs(meta.Object{Headers: u.Headers, UserMeta: u.UserMeta})
	if err != nil {
		return err
	}
	var lock any
	if u.Lock != nil {
		b, err := json.Marshal(u.Lock)
		if err != nil {
			return err
		}
		lock = string(b)
	}
	return s.inTx(ctx, func(tx pgx.Tx) error {
		id, err := lockBucket(ctx, tx, u.Bucket, false)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO uploads
			(upload_id, bucket_id, key, initiated, owner, storage_class, headers, user_meta, checksum_algo, checksum_type, tags, object_lock, acl, encryption)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
			u.UploadID, id, u.Key, millis(u.Initiated), u.Owner, u.StorageClass, docs.Headers, nullText(docs.UserMeta),
			u.ChecksumAlgorithm, u.ChecksumType, nullText(u.Tags), lock, nullText(u.ACL), meta.EncodeEncryption(u.Encryption))
		return err
	})
}

const uploadColumns = "upload_id, key, initiated, owner, storage_class, headers, user_meta, checksum_algo, checksum_type, tags, object_lock, acl, encryption"

func scanUpload(row pgx.Row, bucket string) (meta.Upload, error) {
	u := meta.Upload{Bucket: bucket}
	var initiated int64
	var headers, userMeta, tags, lock, acl *string
	var encryption []byte
	if err := row.Scan(&u.UploadID, &u.Key, &initiated, &u.Owner, &u.StorageClass, &headers, &userMeta,
		&u.ChecksumAlgorithm, &u.ChecksumType, &tags, &lock, &acl, &encryption); err != nil {
		return u, err
	}
	var err error
	if u.Encryption, err = meta.DecodeEncryption(encryption); err != nil {
		return u, err
	}
	u.Initiated, u.Tags, u.ACL = fromMillis(initiated), deref(tags), deref(acl)
	var o meta.Object
	if err := (meta.ObjectDocs{Headers: deref(headers), UserMeta: deref(userMeta)}).Decode(&o); err != nil {
		return u, err
	}
	u.Headers, u.UserMeta = o.Headers, o.UserMeta
	if lock != nil {
		u.Lock = new(meta.ObjectLock)
		if err := json.Unmarshal([]byte(*lock), u.Lock); err != nil {
			return u, err
		}
	}
	return u, nil
}

// getUpload reads an upload of bucket id's key in progress, with lock
// ("", " FOR SHARE", " FOR UPDATE") appended to the query.
func getUpload(ctx context.Context, q querier, id int64, bucket, key, uploadID, lock string) (meta.Upload, error) {
	if !representable(key) || !representable(uploadID) {
		return meta.Upload{}, meta.ErrUploadNotFound
	}
	u, err := scanUpload(q.QueryRow(ctx, "SELECT "+uploadColumns+
		" FROM uploads WHERE upload_id = $1 AND bucket_id = $2 AND key = $3"+lock, uploadID, id, key), bucket)
	if errors.Is(err, pgx.ErrNoRows) {
		return meta.Upload{}, meta.ErrUploadNotFound
	}
	return u, err
}

// GetUpload implements meta.Store.
func (s *Store) GetUpload(ctx context.Context, bucket, key, uploadID string) (meta.Upload, error) {
	id, err := bucketID(ctx, s.pool, bucket)
	if err != nil {
		return meta.Upload{}, err
	}
	return getUpload(ctx, s.pool, id, bucket, key, uploadID, "")
}

// PutPart implements meta.Store.
func (s *Store) PutPart(ctx context.Context, bucket, key, uploadID string, p meta.Part) ([]string, error) {
	var freed []string
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		id, err := lockBucket(ctx, tx, bucket, false)
		if err != nil {
			return err
		}
		if _, err := getUpload(ctx, tx, id, bucket, key, uploadID, " FOR SHARE"); err != nil {
			return err
		}
		old, err := storePart(ctx, tx, uploadID, p)
		if err != nil {
			return err
		}
		if err := checkPartQuota(ctx, tx, id, uploadID, p.Size); err != nil {
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

// storePart inserts or replaces part p of an upload and returns the blob
// of the part it replaced.
func storePart(ctx context.Context, tx pgx.Tx, uploadID string, p meta.Part) ([]string, error) {
	args := []any{uploadID, p.Number, nullText(p.BlobID), p.Size, p.ETag, millis(p.LastModified), p.ChecksumAlgorithm, p.Checksum}
	for {
		var old *string
		err := tx.QueryRow(ctx, "SELECT blob_id FROM parts WHERE upload_id = $1 AND part_number = $2 FOR UPDATE",
			uploadID, p.Number).Scan(&old)
		if err == nil {
			_, err = tx.Exec(ctx, `UPDATE parts SET blob_id = $3, size = $4, etag = $5, mtime = $6, checksum_algo = $7, checksum = $8
				WHERE upload_id = $1 AND part_number = $2`, args...)
			if err != nil || old == nil {
				return nil, err
			}
			return []string{*old}, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return nil, err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO parts
			(upload_id, part_number, blob_id, size, etag, mtime, checksum_algo, checksum)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`, args...)
		if err != nil || tag.RowsAffected() == 1 {
			return nil, err
		}
		// A PutPart of the same number committed since the SELECT: lock
		// and replace its row.
	}
}

// checkPartQuota refuses, inside tx and after a part of size bytes was
// stored for upload, a bucket whose usage plus the upload's parts exceed
// its quota: the completion could not fit, so the part is refused early.
// Parts do not count towards the usage until the upload completes.
func checkPartQuota(ctx context.Context, tx pgx.Tx, bucketID int64, upload string, size int64) error {
	if size <= 0 {
		return nil
	}
	var quota, used, parts int64
	// The parts are summed only for a bucket with a quota (CASE is lazy).
	err := tx.QueryRow(ctx, `SELECT b.quota_bytes, b.used_bytes,
		CASE WHEN b.quota_bytes > 0 THEN (SELECT COALESCE(SUM(size), 0)::bigint FROM parts WHERE upload_id = $1) ELSE 0 END
		FROM buckets b WHERE b.id = $2`, upload, bucketID).Scan(&quota, &used, &parts)
	if err != nil {
		return err
	}
	if quota > 0 && used+parts > quota {
		return fmt.Errorf("%w: the bucket holds %d bytes and the upload's parts %d, its quota is %d", meta.ErrQuotaExceeded, used, parts, quota)
	}
	return nil
}

const partColumns = "part_number, blob_id, size, etag, mtime, checksum_algo, checksum"

func queryParts(ctx context.Context, q querier, sql string, args ...any) ([]meta.Part, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	var parts []meta.Part
	var p meta.Part
	var blobID *string
	var mtime int64
	_, err = pgx.ForEachRow(rows, []any{&p.Number, &blobID, &p.Size, &p.ETag, &mtime, &p.ChecksumAlgorithm, &p.Checksum}, func() error {
		p.BlobID, p.LastModified = deref(blobID), fromMillis(mtime)
		parts = append(parts, p)
		return nil
	})
	return parts, err
}

// ListParts implements meta.Store.
func (s *Store) ListParts(ctx context.Context, bucket, key, uploadID string, after, limit int) ([]meta.Part, bool, error) {
	id, err := bucketID(ctx, s.pool, bucket)
	if err != nil {
		return nil, false, err
	}
	if _, err := getUpload(ctx, s.pool, id, bucket, key, uploadID, ""); err != nil {
		return nil, false, err
	}
	parts, err := queryParts(ctx, s.pool, "SELECT "+partColumns+
		" FROM parts WHERE upload_id = $1 AND part_number > $2 ORDER BY part_number LIMIT $3", uploadID, after, limit+1)
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
	if !representable(uploadID) {
		return nil, nil
	}
	return queryParts(ctx, s.pool, "SELECT "+partColumns+" FROM parts WHERE upload_id = $1 ORDER BY part_number", uploadID)
}

// AbortUpload implements meta.Store.
func (s *Store) AbortUpload(ctx context.Context, bucket, key, uploadID string) ([]string, error) {
	var freed []string
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		id, err := lockBucket(ctx, tx, bucket, false)
		if err != nil {
			return err
		}
		if !representable(key) || !representable(uploadID) {
			return meta.ErrUploadNotFound
		}
		// Deleting the row waits for the PutParts that hold it.
		tag, err := tx.Exec(ctx, "DELETE FROM uploads WHERE upload_id = $1 AND bucket_id = $2 AND key = $3", uploadID, id, key)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return meta.ErrUploadNotFound
		}
		blobs, err := deleteParts(ctx, tx, uploadID)
		if err != nil {
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

// deleteParts deletes every part of an upload and returns their blobs.
func deleteParts(ctx context.Context, tx pgx.Tx, uploadID string) ([]string, error) {
	return collectBlobs(ctx, tx, "DELETE FROM parts WHERE upload_id = $1 RETURNING blob_id", uploadID)
}

// nullText is s, or NULL when it is empty.
func nullText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// deref is *p, or "" for NULL.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
