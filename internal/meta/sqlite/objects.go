package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// objectColumns are read FROM objectTables, in scanObject's order.
const (
	objectColumns = "o.version_id, o.blob_id, o.size, o.etag, o.mtime, o.storage_class, o.owner, o.headers, o.user_meta, o.checksum, o.upload_id, o.parts_count, o.tags, o.acl, o.encryption, o.replication, d.data"
	objectTables  = "objects o LEFT JOIN inline_data d ON d.id = o.inline_id"
)

// GetObject implements meta.Store.
func (s *Store) GetObject(ctx context.Context, bucket, key, versionID string) (meta.Object, error) {
	// One statement on the hit path: the bucket is resolved inside it, and
	// only a miss asks whether the bucket is missing or the version is
	// elsewhere (object_versions, ADR 0012).
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
		b, berr := bucketRow(ctx, s.rd, bucket)
		if berr != nil {
			return meta.Object{}, berr
		}
		if b.versions {
			o, err = s.getAnyVersion(ctx, b.id, key, versionID)
		}
	}
	o.Bucket, o.Key = bucket, key
	return o, err
}

// getAnyVersion looks key's version up in both tables from one snapshot:
// a write may move it from one to the other between two statements.
func (s *Store) getAnyVersion(ctx context.Context, bucketID int64, key, versionID string) (meta.Object, error) {
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		return meta.Object{}, err
	}
	rtx := &readTx{Tx: tx, c: s.rd.c}
	defer rtx.end(ctx)
	q, args := "SELECT "+objectColumns+" FROM "+objectTables+" WHERE o.bucket_id = ? AND o.key = ? AND o.is_latest = 1", []any{bucketID, key}
	if versionID != "" {
		q = "SELECT " + objectColumns + " FROM " + objectTables + " WHERE o.bucket_id = ? AND o.key = ? AND o.version_id = ?"
		args = append(args, versionID)
	}
	o, err := scanObject(rtx.QueryRowContext(ctx, q, args...))
	if !errors.Is(err, meta.ErrObjectNotFound) {
		return o, err
	}
	return getVersion(ctx, rtx, bucketID, key, versionID)
}

func scanObject(row interface{ Scan(...any) error }) (meta.Object, error) {
	var (
		o                           meta.Object
		blobID, uploadID            sql.NullString
		mtime                       int64
		headers, userMeta, checksum sql.NullString
		tags, acl, replication      sql.NullString
		encryption                  []byte
	)
	err := row.Scan(&o.VersionID, &blobID, &o.Size, &o.ETag, &mtime, &o.StorageClass, &o.Owner,
		&headers, &userMeta, &checksum, &uploadID, &o.PartsCount, &tags, &acl, &encryption, &replication, &o.Inline)
	if errors.Is(err, sql.ErrNoRows) {
		return meta.Object{}, meta.ErrObjectNotFound
	}
	if err != nil {
		return meta.Object{}, err
	}
	o.BlobID, o.UploadID, o.Tags, o.ACL, o.Replication = blobID.String, uploadID.String, tags.String, acl.String, replication.String
	o.LastModified = time.UnixMilli(mtime).UTC()
	if o.Encryption, err = meta.DecodeEncryption(encryption); err != nil {
		return meta.Object{}, err
	}
	if err := (meta.ObjectDocs{Headers: headers.String, UserMeta: userMeta.String, Checksum: checksum.String}).Decode(&o); err != nil {
		return meta.Object{}, err
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

// state is c, with the latest delete marker's version ID marker ("" for
// none), as a Condition is checked against.
func (c current) state(marker string) meta.Latest {
	return meta.Latest{Live: c.exists, VersionID: c.versionID, ETag: c.etag, Size: c.size,
		LastModified: time.UnixMilli(c.mtime), Marker: marker}
}

// PutObject implements meta.Store.
func (s *Store) PutObject(ctx context.Context, o meta.Object, cond meta.Condition) ([]string, error) {
	var freed []string
	err := s.write(ctx, func(tx querier) error {
		b, err := bucketRow(ctx, tx, o.Bucket)
		if err != nil {
			return err
		}
		freed, err = installObject(ctx, tx, b, o, cond)
		return err
	})
	if err != nil {
		return nil, err
	}
	return freed, nil
}

// installObject makes o the latest version of its key inside tx if cond
// holds (ADR 0012): the version of o's ID goes wherever it is, the live
// row (if any) moves to object_versions as noncurrent, a latest delete
// marker stops being latest, and o goes into objects or, as a delete
// marker, into object_versions. It returns the blobs no longer referenced.
func installObject(ctx context.Context, tx querier, b bucketRef, o meta.Object, cond meta.Condition) ([]string, error) {
	if o.VersionID == "" {
		o.VersionID = meta.NullVersion
	}
	cols, err := encodeObject(o)
	if err != nil {
		return nil, err
	}
	var inlineID any
	if len(o.Inline) > 0 && !o.DeleteMarker {
		// An Exec and its rowid, not RETURNING: rows read inside a
		// transaction cost database/sql a goroutine each (issue 41).
		res, err := tx.ExecContext(ctx, "INSERT INTO inline_data (data) VALUES (?)", o.Inline)
		if err != nil {
			return nil, err
		}
		if inlineID, err = res.LastInsertId(); err != nil {
			return nil, err
		}
	}
	row := []any{b.id, o.Key, o.VersionID, nullString(o.BlobID), o.Size, o.ETag, o.LastModified.UnixMilli(),
		o.StorageClass, o.Owner, cols.headers, cols.userMeta, cols.checksum, nullString(o.UploadID), o.PartsCount, inlineID,
		parentOf(o.Key), nullString(o.Tags), nullString(o.ACL), encryptionColumn(o.Encryption), nullString(o.Replication)}
	if onlyVersion(b, o) {
		if done, err := putNewKey(ctx, tx, b, o, cond, row); err != nil || done {
			return nil, err
		}
	}
	cur, err := latest(ctx, tx, b.id, o.Key)
	if err != nil {
		return nil, err
	}
	marker := "" // the version ID of a latest delete marker
	if !cur.exists && b.versions {
		if marker, err = latestMarker(ctx, tx, b.id, o.Key); err != nil {
			return nil, err
		}
	}
	if err := cond.Check(cur.state(marker), b.state()); err != nil {
		return nil, err
	}
	if b.locked && (cur.exists && cur.versionID == o.VersionID || b.versions) {
		if err := guardVersion(ctx, tx, b, o.Key, o.VersionID, cond.BypassGovernance); err != nil {
			return nil, err
		}
	}
	var freed []string
	live := cur.exists // the key has a row in objects
	switch {
	case cur.exists && cur.versionID == o.VersionID:
		if freed, err = removeVersion(ctx, tx, b.id, o.Key, cur.versionID); err != nil {
			return nil, err
		}
		cur.exists = false
	case b.versions:
		// A noncurrent version with o's ID (the null version, under
		// suspended versioning) is replaced, not kept beside it.
		freed, err = removeVersionFrom(ctx, tx, "object_versions", b.id, o.Key, o.VersionID)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		if o.VersionID == marker {
			marker = ""
		}
	}
	if cur.exists {
		if err := moveLive(ctx, tx, b, o.Key); err != nil {
			return nil, err
		}
		b.versions = true
	}
	if marker != "" {
		if _, err := tx.ExecContext(ctx, "UPDATE object_versions SET is_latest = 0 WHERE bucket_id = ? AND key = ? AND is_latest = 1",
			b.id, o.Key); err != nil {
			return nil, err
		}
	}
	if o.DeleteMarker {
		if err := insertMarker(ctx, tx, b, o); err != nil {
			return nil, err
		}
		if live {
			if err := dropKey(ctx, tx, b.id, o.Key); err != nil {
				return nil, err
			}
		}
		return unreferenced(ctx, tx, freed)
	}
	if _, err = tx.ExecContext(ctx, insertObject, row...); err != nil {
		return nil, err
	}
	if o.Lock != nil && !o.Lock.IsZero() {
		if !b.locked {
			return nil, meta.ErrNoObjectLock
		}
		if err := writeLock(ctx, tx, b.id, o.Key, o.VersionID, *o.Lock); err != nil {
			return nil, err
		}
	}
	if !live {
		if err := addKey(ctx, tx, b.id, o.Key); err != nil {
			return nil, err
		}
	}
	if err := checkQuota(ctx, tx, b, o.Size); err != nil {
		return nil, err
	}
	// The replaced version's blob may be the one just inserted again (a
	// caller re-putting the same blob); only now can that be seen.
	return unreferenced(ctx, tx, freed)
}

// insertObject inserts a latest version into objects, its columns in the
// order installObject lists them.
const insertObject = `INSERT INTO objects
	(bucket_id, key, version_id, is_latest, blob_id, size, etag, mtime, storage_class, owner,
	 headers, user_meta, checksum, upload_id, parts_count, inline_id, parent, tags, acl, encryption, replication)
	VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// onlyVersion reports whether o is a PUT of the null version into a bucket
// where a key has at most that one row: never versioned, no object lock, no
// row in object_versions, o no delete marker and no lock of its own.
func onlyVersion(b bucketRef, o meta.Object) bool {
	return b.versioning == "" && !b.versions && !b.locked && o.VersionID == meta.NullVersion &&
		!o.DeleteMarker && (o.Lock == nil || o.Lock.IsZero())
}

// putNewKey is installObject for a key that has no row yet, where
// onlyVersion holds: it inserts o's row unless the key has one (the
// insert's conflict says so, where a lookup first would cost every new
// key a query) and reports whether it did. A condition that fails on a
// key with no version fails here, and the caller's rollback undoes the
// insert.
func putNewKey(ctx context.Context, tx querier, b bucketRef, o meta.Object, cond meta.Condition, row []any) (bool, error) {
	res, err := tx.ExecContext(ctx, insertObject+" ON CONFLICT DO NOTHING", row...)
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err
	}
	if err := cond.Check(current{}.state(""), b.state()); err != nil {
		return true, err
	}
	if err := addKey(ctx, tx, b.id, o.Key); err != nil {
		return true, err
	}
	return true, checkQuota(ctx, tx, b, o.Size)
}

type encodedColumns struct{ headers, userMeta, checksum any }

func encodeObject(o meta.Object) (encodedColumns, error) {
	d, err := meta.EncodeObjectDocs(o)
	return encodedColumns{d.Headers, nullString(d.UserMeta), nullString(d.Checksum)}, err
}

// removeVersion deletes one version row of objects (with its inline data
// or, for a multipart object, its part rows) and returns the blobs it
// referred to, referenced or not; sql.ErrNoRows when there is none.
func removeVersion(ctx context.Context, tx querier, bucketID int64, key, versionID string) ([]string, error) {
	return removeVersionFrom(ctx, tx, "objects", bucketID, key, versionID)
}

// removeVersionFrom is removeVersion on table (objects or object_versions).
func removeVersionFrom(ctx context.Context, tx querier, table string, bucketID int64, key, versionID string) ([]string, error) {
	var blobID, uploadID sql.NullString
	var inlineID sql.NullInt64
	err := tx.QueryRowContext(ctx,
		"DELETE FROM "+table+" WHERE bucket_id = ? AND key = ? AND version_id = ? RETURNING blob_id, upload_id, inline_id",
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
		b, err := bucketRow(ctx, tx, bucket)
		if err != nil {
			return err
		}
		cur, err := latest(ctx, tx, b.id, key)
		if err != nil {
			return err
		}
		marker := ""
		if !cur.exists && b.versions {
			if marker, err = latestMarker(ctx, tx, b.id, key); err != nil {
				return err
			}
		}
		if err := cond.Check(cur.state(marker), b.state()); err != nil {
			return err
		}
		if versionID == "" {
			switch {
			case cur.exists:
				versionID = cur.versionID
			case marker != "":
				versionID = marker
			default:
				return nil
			}
		}
		if err := guardVersion(ctx, tx, b, key, versionID, cond.BypassGovernance); err != nil {
			return err
		}
		var blobs []string
		if cur.exists && versionID == cur.versionID {
			if blobs, err = removeVersion(ctx, tx, b.id, key, versionID); err != nil {
				return err
			}
		} else {
			if !b.versions {
				return nil
			}
			blobs, err = removeVersionFrom(ctx, tx, "object_versions", b.id, key, versionID)
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			if err != nil {
				return err
			}
		}
		if cur.exists && versionID == cur.versionID || versionID == marker {
			// The latest went: the newest remaining version, if any, is
			// the latest now.
			live := false
			if b.versions {
				if live, err = promote(ctx, tx, b.id, key); err != nil {
					return err
				}
			}
			switch {
			case cur.exists && !live:
				err = dropKey(ctx, tx, b.id, key)
			case !cur.exists && live:
				err = addKey(ctx, tx, b.id, key)
			}
			if err != nil {
				return err
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

// unreferenced keeps those of blobs that no object version (live or in
// object_versions) or part refers to (a blob may be shared).
func unreferenced(ctx context.Context, q querier, blobs []string) ([]string, error) {
	var out []string
	for _, b := range blobs {
		if b == "" {
			continue
		}
		var one int
		err := q.QueryRowContext(ctx, `SELECT 1 WHERE EXISTS (SELECT 1 FROM objects WHERE blob_id = ?1)
			OR EXISTS (SELECT 1 FROM parts WHERE blob_id = ?1)
			OR EXISTS (SELECT 1 FROM object_versions WHERE blob_id = ?1)`, b).Scan(&one)
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

// encryptionColumn is e as the encryption column holds it: NULL for none.
func encryptionColumn(e meta.Encryption) any {
	if b := meta.EncodeEncryption(e); b != nil {
		return b
	}
	return nil
}
