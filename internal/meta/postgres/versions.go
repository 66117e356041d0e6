package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/jogstore/jog/internal/meta"
)

// Versions (ADR 0012) as in the SQLite store: objects holds the live
// view, one row per key whose latest version is not a delete marker (its
// primary key is the key: there is no is_latest column); object_versions
// holds the rest, noncurrent versions and delete markers, in creation
// order (seq, per key), a latest delete marker flagged is_latest.
//
// Every write of a key (PutObject, DeleteObject, CompleteUpload, the tag,
// ACL and lock changes) starts with startWrite: the bucket's row FOR KEY
// SHARE, then the key's advisory lock (doc.go). Only then does it read
// the key's versions, so what it reads no other writer changes before it
// commits.

// bucketRef is a bucket as a write sees it, read under its row's lock:
// versioning, object lock and quota change only under FOR UPDATE, so they
// hold until the write commits.
type bucketRef struct {
	id         int64
	versioning string // "", Enabled or Suspended
	locked     bool   // created with object lock: object_locks may hold rows of it
	quota      int64  // 0 when the bucket has none
}

// lockForWrite starts a write of key in bucket (a change of its tags,
// ACL or lock): lockAndRead without the read.
func (s *Store) lockForWrite(ctx context.Context, tx pgx.Tx, bucket, key string) (bucketRef, error) {
	b, _, err := startWrite(ctx, tx, bucket, key, nil, s.quotaHint(bucket))
	return b, err
}

// lockAndRead starts a write of key in bucket that replaces or removes
// its version versionID or its latest: it locks as lockForWrite does,
// then reads the key's state (keyState).
func (s *Store) lockAndRead(ctx context.Context, tx pgx.Tx, bucket, key, versionID string) (bucketRef, keyState, error) {
	return startWrite(ctx, tx, bucket, key, &versionID, s.quotaHint(bucket))
}

// startWrite takes, in one round trip (a pipeline: the statements run in
// order, each in a snapshot of its own), lockBucket's shared lock on the
// bucket's row, reading what a write needs of it in the same statement;
// then the key's lock (keyLockSQL); then, with versionID, the key's state
// (readKeySQL): read under the key's lock, it is what the previous writer
// of the key committed, and no other writer changes it before this one
// commits. A key or version ID that is no text (representable) has no
// version to read.
//
// With quota set (the bucket is thought to have a quota: quotaHint), the
// bucket's row is locked FOR NO KEY UPDATE instead: the write's usage
// trigger updates the row, and taking the stronger lock first, rather
// than upgrading a shared one, spares PostgreSQL the multixact of several
// lockers turning into updaters (which has failed with "new multixact has
// more than one updating member"); writes to such a bucket serialise on
// its usage row anyway.
func startWrite(ctx context.Context, tx pgx.Tx, bucket, key string, versionID *string, quota bool) (bucketRef, keyState, error) {
	var b bucketRef
	var k keyState
	batch := &pgx.Batch{}
	lock := "SELECT id, versioning, object_lock, quota_bytes FROM buckets WHERE name = $1 FOR KEY SHARE"
	if quota {
		lock = "SELECT id, versioning, object_lock, quota_bytes FROM buckets WHERE name = $1 FOR NO KEY UPDATE"
	}
	batch.Queue(lock, bucket).
		QueryRow(func(row pgx.Row) error {
			err := row.Scan(&b.id, &b.versioning, &b.locked, &b.quota)
			if errors.Is(err, pgx.ErrNoRows) {
				return meta.ErrBucketNotFound
			}
			return err
		})
	batch.Queue(keyLockSQL, bucket, keyHash(key)).Exec(func(pgconn.CommandTag) error { return nil })
	if versionID != nil && representable(key) {
		vid := *versionID
		if !representable(vid) {
			vid = "" // no stored version has it
		}
		batch.Queue(readKeySQL, bucket, key, vid).QueryRow(k.scan)
	}
	err := tx.SendBatch(ctx, batch).Close()
	return b, k, err
}

// versionOf is the version ID a write of o makes.
func versionOf(o meta.Object) string {
	if o.VersionID == "" {
		return meta.NullVersion
	}
	return o.VersionID
}

// install makes o the latest version of its key inside tx if cond holds
// (ADR 0012): the version of o's ID goes wherever it is, the live row (if
// any) moves to object_versions as noncurrent, a latest delete marker
// stops being latest, and o goes into objects or, as a delete marker,
// into object_versions. It returns the blobs no longer referenced.
func install(ctx context.Context, tx pgx.Tx, b bucketRef, k keyState, o meta.Object, cond meta.Condition) ([]string, error) {
	o.VersionID = versionOf(o)
	if !representable(o.Key) || !representable(o.VersionID) {
		return nil, fmt.Errorf("postgres: key %q, version %q: %w", o.Key, o.VersionID, meta.ErrUnstorableKey)
	}
	docs, err := meta.EncodeObjectDocs(o)
	if err != nil {
		return nil, err
	}
	if err := k.check(b, cond); err != nil {
		return nil, err
	}
	if err := guardVersion(ctx, tx, b, o.Key, o.VersionID, cond.BypassGovernance); err != nil {
		return nil, err
	}
	var freed []string
	switch {
	case k.exists && k.versionID == o.VersionID:
		freed, err = removeVersion(ctx, tx, "objects", b.id, o.Key, o.VersionID)
		k.exists = false
	case k.stored:
		// A noncurrent version with o's ID (the null version, under
		// suspended versioning) is replaced, not kept beside it.
		freed, err = removeVersion(ctx, tx, "object_versions", b.id, o.Key, o.VersionID)
		if o.VersionID == k.marker {
			k.marker = ""
		}
	}
	if err != nil {
		return nil, err
	}
	if k.exists {
		if err := moveLive(ctx, tx, b.id, o.Key); err != nil {
			return nil, err
		}
	}
	if k.marker != "" {
		if _, err := tx.Exec(ctx, "UPDATE object_versions SET is_latest = false WHERE bucket_id = $1 AND key = $2 AND is_latest",
			b.id, o.Key); err != nil {
			return nil, err
		}
	}
	if o.DeleteMarker {
		if _, err := tx.Exec(ctx, "INSERT INTO object_versions (bucket_id, key, seq, version_id, is_latest, delete_marker, size, etag, mtime, owner, replication)"+
			" VALUES ($1, $2, "+nextSeq+", $3, true, true, 0, '', $4, $5, $6)",
			b.id, o.Key, o.VersionID, millis(o.LastModified), o.Owner, nullText(o.Replication)); err != nil {
			return nil, err
		}
		return unreferenced(ctx, tx, freed)
	}
	var inline []byte
	if len(o.Inline) > 0 {
		inline = o.Inline
	}
	_, err = tx.Exec(ctx, `WITH d AS (INSERT INTO inline_data (data) SELECT $16::bytea WHERE $16::bytea IS NOT NULL RETURNING id)
		INSERT INTO objects (bucket_id, key, version_id, blob_id, size, etag, mtime, storage_class, owner,
			headers, user_meta, checksum, upload_id, parts_count, tags, acl, encryption, replication, inline_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $17, $18, $19, (SELECT id FROM d))`,
		b.id, o.Key, o.VersionID, nullText(o.BlobID), o.Size, o.ETag, millis(o.LastModified),
		o.StorageClass, o.Owner, docs.Headers, nullText(docs.UserMeta), nullText(docs.Checksum), nullText(o.UploadID), o.PartsCount,
		nullText(o.Tags), inline, nullText(o.ACL), meta.EncodeEncryption(o.Encryption), nullText(o.Replication))
	if err != nil {
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
	if err := checkQuota(ctx, tx, b, o.Size); err != nil {
		return nil, err
	}
	// The replaced version's blob may be the one just inserted again (a
	// caller re-putting the same blob); only now can that be seen.
	return unreferenced(ctx, tx, freed)
}

// nextSeq is the seq of a version of key $2 created now: above every
// other (the key's lock keeps two writers from choosing the same).
const nextSeq = "(SELECT coalesce(max(seq), 0) + 1 FROM object_versions WHERE bucket_id = $1 AND key = $2)"

// versionColumns are the columns objects and object_versions share.
const versionColumns = "version_id, blob_id, size, etag, mtime, storage_class, owner, headers, user_meta, checksum, upload_id, parts_count, inline_id, tags, acl, encryption, replication"

// moveLive moves key's live row to object_versions as its newest
// noncurrent version.
func moveLive(ctx context.Context, tx pgx.Tx, bucketID int64, key string) error {
	_, err := tx.Exec(ctx, "WITH live AS (DELETE FROM objects WHERE bucket_id = $1 AND key = $2 RETURNING *)"+
		" INSERT INTO object_versions (bucket_id, key, seq, "+versionColumns+") SELECT bucket_id, key, "+nextSeq+", "+versionColumns+
		" FROM live", bucketID, key)
	return err
}

// promote makes the newest version left in object_versions key's latest
// after the latest was removed: a delete marker is flagged, any other
// version moves back into objects.
func promote(ctx context.Context, tx pgx.Tx, bucketID int64, key string) error {
	var seq int64
	var marker bool
	err := tx.QueryRow(ctx, "SELECT seq, delete_marker FROM object_versions WHERE bucket_id = $1 AND key = $2 ORDER BY seq DESC LIMIT 1",
		bucketID, key).Scan(&seq, &marker)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if marker {
		_, err = tx.Exec(ctx, "UPDATE object_versions SET is_latest = true WHERE bucket_id = $1 AND key = $2 AND seq = $3", bucketID, key, seq)
		return err
	}
	_, err = tx.Exec(ctx, "WITH v AS (DELETE FROM object_versions WHERE bucket_id = $1 AND key = $2 AND seq = $3 RETURNING *)"+
		" INSERT INTO objects (bucket_id, key, "+versionColumns+") SELECT bucket_id, key, "+versionColumns+" FROM v",
		bucketID, key, seq)
	return err
}

// PutObjectTags implements meta.ObjectStore.
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
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		b, err := s.lockForWrite(ctx, tx, bucket, key)
		if err != nil {
			return err
		}
		vid, err := lockTarget(ctx, tx, b, key, versionID)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, "UPDATE objects SET "+column+" = $4 WHERE bucket_id = $1 AND key = $2 AND version_id = $3",
			b.id, key, vid, nullText(value))
		if err == nil && tag.RowsAffected() == 0 {
			_, err = tx.Exec(ctx, "UPDATE object_versions SET "+column+" = $4 WHERE bucket_id = $1 AND key = $2 AND version_id = $3",
				b.id, key, vid, nullText(value))
		}
		updated = vid
		return err
	})
	if err != nil {
		return "", err
	}
	return updated, nil
}

// CompleteUpload implements meta.Store: the upload's row is locked (FOR
// UPDATE, after the bucket and the key; PutPart holds it FOR SHARE) so
// that no part of it changes while it completes; the version is written
// as PutObject writes one.
func (s *Store) CompleteUpload(ctx context.Context, o meta.Object, cond meta.Condition) ([]string, error) {
	var freed []string
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		b, k, err := s.lockAndRead(ctx, tx, o.Bucket, o.Key, versionOf(o))
		if err != nil {
			return err
		}
		if _, err := getUpload(ctx, tx, b.id, o.Bucket, o.Key, o.UploadID, " FOR UPDATE"); err != nil {
			return err
		}
		chosen := make([]int32, len(o.Parts))
		etags := make([]string, len(o.Parts))
		for i, p := range o.Parts {
			chosen[i], etags[i] = int32(p.Number), p.ETag
		}
		// Every chosen part must be there with the ETag validated.
		var found int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM parts p JOIN unnest($2::int[], $3::text[]) AS c (n, etag)
			ON p.part_number = c.n AND p.etag = c.etag WHERE p.upload_id = $1`, o.UploadID, chosen, etags).Scan(&found); err != nil {
			return err
		}
		if found != len(o.Parts) {
			return meta.ErrPartChanged
		}
		drop, err := collectBlobs(ctx, tx, "DELETE FROM parts WHERE upload_id = $1 AND part_number <> ALL ($2::int[]) RETURNING blob_id",
			o.UploadID, chosen)
		if err != nil {
			return err
		}
		o.PartsCount = len(o.Parts)
		replaced, err := install(ctx, tx, b, k, o, cond)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "DELETE FROM uploads WHERE upload_id = $1", o.UploadID); err != nil {
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
