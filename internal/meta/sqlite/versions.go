package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// Versions (ADR 0012, migration 0006): objects holds the live view, one row
// per key whose latest version is not a delete marker; object_versions
// holds the rest, noncurrent versions and delete markers, in creation
// order (seq, per key). A key's live row, when it has one, is its newest
// version, so it sorts before every row of object_versions.

// bucketRef is a bucket as a write sees it: its id, and whether
// object_versions may hold rows of it (buckets.has_versions). A bucket
// that never had a noncurrent version or a delete marker costs no lookup
// of object_versions.
type bucketRef struct {
	id         int64
	versioning string // buckets.versioning: "", Enabled or Suspended
	versions   bool
	locked     bool  // created with object lock: object_locks may hold rows of it
	quota      int64 // buckets.quota_bytes: 0 when the bucket has none
}

// state is b as Condition.Check reads it.
func (b bucketRef) state() meta.BucketState {
	return meta.BucketState{Known: true, Versioning: b.versioning, ObjectLock: b.locked}
}

// bucketRow resolves a bucket name inside a transaction or pool; a write
// transaction answers from its writerMemo where it can.
func bucketRow(ctx context.Context, q querier, name string) (bucketRef, error) {
	memo := writerMemoOf(q)
	if memo == nil {
		return readBucketRow(ctx, q, name)
	}
	if b, ok := memo.bucket(name); ok {
		return b, nil
	}
	b, err := readBucketRow(ctx, q, name)
	if err == nil {
		memo.putBucket(name, b)
	}
	return b, err
}

func readBucketRow(ctx context.Context, q querier, name string) (bucketRef, error) {
	var b bucketRef
	err := q.QueryRowContext(ctx, "SELECT id, versioning, has_versions, object_lock, quota_bytes FROM buckets WHERE name = ?", name).
		Scan(&b.id, &b.versioning, &b.versions, &b.locked, &b.quota)
	if errors.Is(err, sql.ErrNoRows) {
		return b, meta.ErrBucketNotFound
	}
	return b, err
}

// markVersions records that object_versions holds a row of bucket b.
func markVersions(ctx context.Context, tx querier, b bucketRef) error {
	if b.versions {
		return nil
	}
	_, err := tx.ExecContext(ctx, "UPDATE buckets SET has_versions = 1 WHERE id = ?", b.id)
	return err
}

// latestMarker returns the version ID of key's latest delete marker, or ""
// when its latest version is not one (or it has none).
func latestMarker(ctx context.Context, tx querier, bucketID int64, key string) (string, error) {
	var v string
	err := tx.QueryRowContext(ctx, "SELECT version_id FROM object_versions WHERE bucket_id = ? AND key = ? AND is_latest = 1",
		bucketID, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// nextSeq is the seq of a version created now: above every other of key.
const nextSeq = "(SELECT coalesce(max(seq), 0) + 1 FROM object_versions WHERE bucket_id = ?1 AND key = ?2)"

// versionColumns are the columns objects and object_versions share.
const versionColumns = "version_id, blob_id, size, etag, mtime, storage_class, owner, headers, user_meta, checksum, upload_id, parts_count, inline_id, tags, acl, encryption, replication"

// moveLive moves key's live row to object_versions as its newest
// noncurrent version.
func moveLive(ctx context.Context, tx querier, b bucketRef, key string) error {
	if err := markVersions(ctx, tx, b); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO object_versions (bucket_id, key, seq, is_latest, delete_marker, "+versionColumns+
		") SELECT bucket_id, key, "+nextSeq+", 0, 0, "+versionColumns+" FROM objects WHERE bucket_id = ?1 AND key = ?2",
		b.id, key); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "DELETE FROM objects WHERE bucket_id = ? AND key = ?", b.id, key)
	return err
}

// insertMarker writes o as key's latest version, a delete marker.
func insertMarker(ctx context.Context, tx querier, b bucketRef, o meta.Object) error {
	if err := markVersions(ctx, tx, b); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "INSERT INTO object_versions (bucket_id, key, seq, version_id, is_latest, delete_marker, size, etag, mtime, owner, replication)"+
		" VALUES (?1, ?2, "+nextSeq+", ?3, 1, 1, 0, '', ?4, ?5, ?6)",
		b.id, o.Key, o.VersionID, o.LastModified.UnixMilli(), o.Owner, nullString(o.Replication))
	return err
}

// promote makes the newest version left in object_versions key's latest
// after the latest was removed: a delete marker is flagged, any other
// version moves back into objects (live reports that). It does not touch
// the directory index.
func promote(ctx context.Context, tx querier, bucketID int64, key string) (live bool, err error) {
	var seq int64
	var marker bool
	err = tx.QueryRowContext(ctx, "SELECT seq, delete_marker FROM object_versions WHERE bucket_id = ? AND key = ? ORDER BY seq DESC LIMIT 1",
		bucketID, key).Scan(&seq, &marker)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if marker {
		_, err = tx.ExecContext(ctx, "UPDATE object_versions SET is_latest = 1 WHERE bucket_id = ? AND key = ? AND seq = ?", bucketID, key, seq)
		return false, err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO objects (bucket_id, key, is_latest, parent, "+versionColumns+
		") SELECT bucket_id, key, 1, ?, "+versionColumns+" FROM object_versions WHERE bucket_id = ? AND key = ? AND seq = ?",
		parentOf(key), bucketID, key, seq); err != nil {
		return false, err
	}
	_, err = tx.ExecContext(ctx, "DELETE FROM object_versions WHERE bucket_id = ? AND key = ? AND seq = ?", bucketID, key, seq)
	return err == nil, err
}

// getVersion reads a version of key from object_versions: the given one,
// or (versionID "") the latest delete marker. A delete marker is a
// *meta.DeleteMarkerError.
func getVersion(ctx context.Context, q querier, bucketID int64, key, versionID string) (meta.Object, error) {
	cond, args := "v.is_latest = 1", []any{bucketID, key}
	if versionID != "" {
		cond, args = "v.version_id = ?", append(args, versionID)
	}
	var marker bool
	var mtime int64
	var vid string
	err := q.QueryRowContext(ctx, "SELECT v.delete_marker, v.mtime, v.version_id FROM object_versions v WHERE v.bucket_id = ? AND v.key = ? AND "+cond,
		args...).Scan(&marker, &mtime, &vid)
	if errors.Is(err, sql.ErrNoRows) {
		return meta.Object{}, meta.ErrObjectNotFound
	}
	if err != nil {
		return meta.Object{}, err
	}
	if marker {
		return meta.Object{}, &meta.DeleteMarkerError{VersionID: vid, LastModified: time.UnixMilli(mtime).UTC()}
	}
	return scanObject(q.QueryRowContext(ctx, "SELECT "+objectColumns+
		" FROM object_versions o LEFT JOIN inline_data d ON d.id = o.inline_id WHERE o.bucket_id = ? AND o.key = ? AND o.version_id = ?",
		bucketID, key, vid))
}
