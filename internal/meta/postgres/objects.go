package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/jogstore/jog/internal/meta"
)

// objectColumns are read FROM a version table aliased o LEFT JOIN
// inline_data d, in scanObject's order; NULLs read as empty.
const objectColumns = "o.version_id, coalesce(o.blob_id, ''), o.size, o.etag, o.mtime, o.storage_class, o.owner, " +
	"coalesce(o.headers, ''), coalesce(o.user_meta, ''), coalesce(o.checksum, ''), coalesce(o.upload_id, ''), " +
	"o.parts_count, coalesce(o.tags, ''), coalesce(o.acl, ''), o.encryption, coalesce(o.replication, ''), d.data"

// versionSQL selects, in one statement (one snapshot: a write may move a
// version from one table to the other between two), whether it is a
// delete marker, the bucket's versioning and object lock, then
// objectColumns, of key $2's latest version (byID false) or of its
// version $3, from objects or object_versions. bucket is an SQL row
// source of the bucket's id, versioning and object_lock (one row).
func versionSQL(bucket string, byID bool) string {
	live, other := "", "o.is_latest"
	if byID {
		live, other = " AND o.version_id = $3", "o.version_id = $3"
	}
	return "SELECT false, b.versioning, b.object_lock, " + objectColumns + " FROM " + bucket + " b JOIN objects o ON o.bucket_id = b.id" +
		" LEFT JOIN inline_data d ON d.id = o.inline_id WHERE o.key = $2" + live +
		" UNION ALL SELECT o.delete_marker, b.versioning, b.object_lock, " + objectColumns + " FROM " + bucket + " b JOIN object_versions o ON o.bucket_id = b.id" +
		" LEFT JOIN inline_data d ON d.id = o.inline_id WHERE o.key = $2 AND " + other + " LIMIT 1"
}

// Row sources of a bucket for versionSQL: by name, by ID.
const (
	bucketByName = "(SELECT id, versioning, object_lock FROM buckets WHERE name = $1)"
	bucketByID   = "(SELECT id, versioning, object_lock FROM buckets WHERE id = $1)"
)

// readVersion reads key's latest version (versionID "") or the given one,
// with its bucket's state (Object.InBucket): meta.ErrObjectNotFound when
// there is none, a *meta.DeleteMarkerError when it is a delete marker.
// bucket is a row source of versionSQL, $1 bucketArg. A key or version ID
// that is no text (representable) names nothing.
func readVersion(ctx context.Context, q querier, bucket string, bucketArg any, key, versionID string) (meta.Object, error) {
	if !representable(key) || !representable(versionID) {
		return meta.Object{}, meta.ErrObjectNotFound
	}
	args := []any{bucketArg, key}
	if versionID != "" {
		args = append(args, versionID)
	}
	var marker bool
	var in meta.BucketState
	o, err := scanObject(q.QueryRow(ctx, versionSQL(bucket, versionID != ""), args...), &marker, &in.Versioning, &in.ObjectLock)
	if err == nil && marker {
		return meta.Object{}, &meta.DeleteMarkerError{VersionID: o.VersionID, LastModified: o.LastModified}
	}
	in.Known = true
	o.InBucket = in
	return o, err
}

// GetObject implements meta.Store: one statement on the hit path, which
// reads the bucket's state too (Object.InBucket); only a miss asks
// whether the bucket is there.
func (s *Store) GetObject(ctx context.Context, bucket, key, versionID string) (meta.Object, error) {
	o, err := readVersion(ctx, s.pool, bucketByName, bucket, key, versionID)
	if errors.Is(err, meta.ErrObjectNotFound) {
		if _, berr := bucketID(ctx, s.pool, bucket); berr != nil {
			return meta.Object{}, berr
		}
	}
	if err != nil {
		return meta.Object{}, err
	}
	o.Bucket, o.Key = bucket, key
	return o, nil
}

// scanObject scans the columns lead then objectColumns;
// meta.ErrObjectNotFound when there is no row.
func scanObject(row pgx.Row, lead ...any) (meta.Object, error) {
	var (
		o                           meta.Object
		mtime                       int64
		headers, userMeta, checksum string
		encryption                  []byte
	)
	err := row.Scan(append(lead, &o.VersionID, &o.BlobID, &o.Size, &o.ETag, &mtime, &o.StorageClass, &o.Owner,
		&headers, &userMeta, &checksum, &o.UploadID, &o.PartsCount, &o.Tags, &o.ACL, &encryption, &o.Replication, &o.Inline)...)
	if errors.Is(err, pgx.ErrNoRows) {
		return meta.Object{}, meta.ErrObjectNotFound
	}
	if err != nil {
		return meta.Object{}, err
	}
	o.LastModified = fromMillis(mtime)
	if o.Encryption, err = meta.DecodeEncryption(encryption); err != nil {
		return meta.Object{}, err
	}
	if err := (meta.ObjectDocs{Headers: headers, UserMeta: userMeta, Checksum: checksum}).Decode(&o); err != nil {
		return meta.Object{}, err
	}
	return o, nil
}

// keyState is what a write reads of its key, under the key's lock, before
// it changes anything.
type keyState struct {
	exists    bool // the key has a live row (objects)
	versionID string
	etag      string
	size      int64
	mtime     int64  // Unix milliseconds
	marker    string // the version ID of a latest delete marker; "" for none
	// stored: object_versions holds the version the write names (a
	// noncurrent version or a delete marker of that ID).
	stored bool
}

// readKeySQL reads, for bucket $1 (by name), key $2's live row, its
// latest delete marker and whether object_versions holds version $3, in
// one statement, in keyState.scan's order. The bucket's ID is a scalar
// subquery, not a join: each table is then searched by its key's full
// equality, whatever the planner thinks of the tables' sizes.
const readKeySQL = `SELECT o.version_id IS NOT NULL, coalesce(o.version_id, ''), coalesce(o.etag, ''),
		coalesce(o.size, 0), coalesce(o.mtime, 0),
		coalesce((SELECT v.version_id FROM object_versions v WHERE v.bucket_id = b.id AND v.key = $2 AND v.is_latest), ''),
		EXISTS (SELECT 1 FROM object_versions v WHERE v.bucket_id = b.id AND v.key = $2 AND v.version_id = $3)
	FROM (SELECT (SELECT id FROM buckets WHERE name = $1) AS id) AS b
	LEFT JOIN objects o ON o.bucket_id = b.id AND o.key = $2`

func (k *keyState) scan(row pgx.Row) error {
	return row.Scan(&k.exists, &k.versionID, &k.etag, &k.size, &k.mtime, &k.marker, &k.stored)
}

// state is b as Condition.Check reads it.
func (b bucketRef) state() meta.BucketState {
	return meta.BucketState{Known: true, Versioning: b.versioning, ObjectLock: b.locked}
}

// check applies cond to the key's latest version and its bucket b.
func (k keyState) check(b bucketRef, cond meta.Condition) error {
	return cond.Check(meta.Latest{Live: k.exists, VersionID: k.versionID, ETag: k.etag, Size: k.size,
		LastModified: fromMillis(k.mtime), Marker: k.marker}, b.state())
}

// PutObject implements meta.Store.
func (s *Store) PutObject(ctx context.Context, o meta.Object, cond meta.Condition) ([]string, error) {
	var freed []string
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		b, k, err := s.lockAndRead(ctx, tx, o.Bucket, o.Key, versionOf(o))
		if err != nil {
			return err
		}
		freed, err = install(ctx, tx, b, k, o, cond)
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
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		freed = nil
		b, k, err := s.lockAndRead(ctx, tx, bucket, key, versionID)
		if err != nil {
			return err
		}
		if err := k.check(b, cond); err != nil {
			return err
		}
		vid := versionID
		switch {
		case vid != "":
		case k.exists:
			vid = k.versionID
		case k.marker != "":
			vid, k.stored = k.marker, true
		default:
			return nil
		}
		latest := k.exists && vid == k.versionID
		if !latest && !k.stored {
			return nil // no such version
		}
		if err := guardVersion(ctx, tx, b, key, vid, cond.BypassGovernance); err != nil {
			return err
		}
		table := "object_versions"
		if latest {
			table = "objects"
		}
		blobs, err := removeVersion(ctx, tx, table, b.id, key, vid)
		if err != nil {
			return err
		}
		if latest || vid == k.marker {
			// The latest went: the newest remaining version, if any, is
			// the latest now.
			if err := promote(ctx, tx, b.id, key); err != nil {
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

// removeVersion deletes the row of key's version versionID from table
// (objects or object_versions), with its inline data or, for a multipart
// object, its part rows, and returns the blobs it referred to, referenced
// elsewhere or not.
func removeVersion(ctx context.Context, tx pgx.Tx, table string, bucketID int64, key, versionID string) ([]string, error) {
	var blobID, uploadID *string
	var inlineID *int64
	err := tx.QueryRow(ctx,
		"DELETE FROM "+table+" WHERE bucket_id = $1 AND key = $2 AND version_id = $3 RETURNING blob_id, upload_id, inline_id",
		bucketID, key, versionID).Scan(&blobID, &uploadID, &inlineID)
	if err != nil {
		return nil, err
	}
	if inlineID != nil {
		if _, err := tx.Exec(ctx, "DELETE FROM inline_data WHERE id = $1", *inlineID); err != nil {
			return nil, err
		}
	}
	var blobs []string
	if blobID != nil {
		blobs = append(blobs, *blobID)
	}
	if uploadID != nil {
		parts, err := deleteParts(ctx, tx, *uploadID)
		if err != nil {
			return nil, err
		}
		blobs = append(blobs, parts...)
	}
	return blobs, nil
}

// collectBlobs runs a statement returning blob IDs (a DELETE … RETURNING
// blob_id) and collects those that are not NULL.
func collectBlobs(ctx context.Context, tx pgx.Tx, q string, args ...any) ([]string, error) {
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[*string])
	if err != nil {
		return nil, err
	}
	var blobs []string
	for _, id := range ids {
		if id != nil {
			blobs = append(blobs, *id)
		}
	}
	return blobs, nil
}
