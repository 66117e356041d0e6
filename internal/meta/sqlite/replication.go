package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// SetReplication implements meta.ObjectStore: one UPDATE by the version's
// key (objects' primary key, object_versions' version index), through the
// group commit as every write; a version not live costs a second.
func (s *Store) SetReplication(ctx context.Context, bucket, key, versionID, from, status string) (bool, error) {
	var ok bool
	err := s.write(ctx, func(tx querier) error {
		b, err := bucketRow(ctx, tx, bucket)
		if err != nil {
			return err
		}
		const set = " SET replication = ?1 WHERE bucket_id = ?2 AND key = ?3 AND version_id = ?4 AND coalesce(replication, '') = ?5"
		args := []any{nullString(status), b.id, key, versionID, from}
		res, err := tx.ExecContext(ctx, "UPDATE objects"+set, args...)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil || n > 0 || !b.versions {
			ok = n > 0
			return err
		}
		if res, err = tx.ExecContext(ctx, "UPDATE object_versions"+set, args...); err != nil {
			return err
		}
		n, err = res.RowsAffected()
		ok = n > 0
		return err
	})
	return ok && err == nil, err
}

// pendingQuery reads, in (key, seq) order, the PENDING versions of both
// tables from position (?2, ?3) on: key ?2's versions above seq ?3, then
// every later key; the live row's seq is meta.LiveSeq. It reads the
// partial indexes of migration 0019, which hold only those rows (the
// literal 'PENDING' is what lets SQLite use them; INDEXED BY, because
// without statistics the planner took objects' primary key, a walk of
// every live row of the bucket).
const pendingQuery = "SELECT key, 4611686018427387904 AS seq, version_id, 1 AS is_latest, 0 AS delete_marker, size, etag, mtime, storage_class, owner, replication" +
	" FROM objects INDEXED BY objects_replication_pending WHERE bucket_id = ?1 AND replication = 'PENDING' AND key >= ?2 AND (key > ?2 OR ?3 < 4611686018427387904)" +
	" UNION ALL SELECT key, seq, version_id, is_latest, delete_marker, size, etag, mtime, storage_class, owner, replication" +
	" FROM object_versions INDEXED BY object_versions_replication_pending WHERE bucket_id = ?1 AND replication = 'PENDING' AND key >= ?2 AND (key > ?2 OR seq > ?3)" +
	" ORDER BY 1, 2 LIMIT ?4"

// PendingReplication implements meta.ObjectStore: meta.PendingPage over
// the partial indexes of the PENDING rows.
func (s *Store) PendingReplication(ctx context.Context, bucket, afterKey string, limit int) ([]meta.Object, string, error) {
	id, err := bucketID(ctx, s.rd, bucket)
	if err != nil {
		return nil, "", err
	}
	return meta.PendingPage(ctx, afterKey, limit, func(ctx context.Context, key string, seq int64, limit int) ([]meta.PendingEntry, error) {
		var out []meta.PendingEntry
		err := queryEach(ctx, s.rd, pendingQuery, []any{id, key, seq, limit}, func(rows *sql.Rows) error {
			e := meta.PendingEntry{Object: meta.Object{Bucket: bucket}}
			var mtime int64
			if err := rows.Scan(&e.Key, &e.Seq, &e.VersionID, &e.IsLatest, &e.DeleteMarker, &e.Size, &e.ETag, &mtime,
				&e.StorageClass, &e.Owner, &e.Replication); err != nil {
				return err
			}
			e.LastModified = time.UnixMilli(mtime).UTC()
			out = append(out, e)
			return nil
		})
		return out, err
	})
}
