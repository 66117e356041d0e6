package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/jogstore/jog/internal/meta"
)

// setReplicationSQL sets the status of version $3 of key $2 to $5 where
// it is $4, in whichever table holds it, and counts the rows it changed.
const setReplicationSQL = "WITH l AS (UPDATE objects SET replication = $5" +
	" WHERE bucket_id = $1 AND key = $2 AND version_id = $3 AND coalesce(replication, '') = $4 RETURNING 1)," +
	" v AS (UPDATE object_versions SET replication = $5" +
	" WHERE bucket_id = $1 AND key = $2 AND version_id = $3 AND coalesce(replication, '') = $4 RETURNING 1)" +
	" SELECT (SELECT count(*) FROM l) + (SELECT count(*) FROM v)"

// SetReplication implements meta.ObjectStore: one UPDATE of both tables by
// the version's key, under the key's lock as every write of a key (a
// version moving from objects to object_versions meanwhile would be in
// neither table as the UPDATE's snapshot sees them).
func (s *Store) SetReplication(ctx context.Context, bucket, key, versionID, from, status string) (bool, error) {
	var n int64
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		b, err := s.lockForWrite(ctx, tx, bucket, key)
		if err != nil {
			return err
		}
		for _, v := range []string{key, versionID, from, status} {
			if !representable(v) {
				return nil // no stored version has it, or it is no status
			}
		}
		return tx.QueryRow(ctx, setReplicationSQL, b.id, key, versionID, from, nullText(status)).Scan(&n)
	})
	return n > 0 && err == nil, err
}

// pendingQuery reads, in (key, seq) order, the PENDING versions of both
// tables from position ($2, $3) on: key $2's versions above seq $3, then
// every later key; the live row's seq is meta.LiveSeq. Each table gives
// its first $4 rows from its partial index of the PENDING rows (migration
// 0003; the literal 'PENDING' lets a generic plan use it), merged as
// versionsQuery merges.
const pendingQuery = "SELECT key, seq, version_id, is_latest, delete_marker, size, etag, mtime, storage_class, owner, replication FROM (" +
	"(SELECT key, 4611686018427387904::bigint AS seq, version_id, true AS is_latest, false AS delete_marker," +
	" size, etag, mtime, storage_class, owner, replication FROM objects" +
	" WHERE bucket_id = $1 AND replication = 'PENDING' AND key >= $2 AND (key > $2 OR $3 < 4611686018427387904::bigint)" +
	" ORDER BY key LIMIT $4)" +
	" UNION ALL (SELECT key, seq, version_id, is_latest, delete_marker, size, etag, mtime, storage_class, owner, replication" +
	" FROM object_versions WHERE bucket_id = $1 AND replication = 'PENDING' AND key >= $2 AND (key > $2 OR seq > $3)" +
	" ORDER BY key, seq LIMIT $4)" +
	") v ORDER BY key, seq LIMIT $4"

// PendingReplication implements meta.ObjectStore: meta.PendingPage over
// the partial indexes of the PENDING rows.
func (s *Store) PendingReplication(ctx context.Context, bucket, afterKey string, limit int) ([]meta.Object, string, error) {
	id, err := bucketID(ctx, s.pool, bucket)
	if err != nil {
		return nil, "", err
	}
	return meta.PendingPage(ctx, afterKey, limit, func(ctx context.Context, key string, seq int64, limit int) ([]meta.PendingEntry, error) {
		if !representable(key) {
			// No version has key: start at the first key above it.
			var ok bool
			if key, ok = ceilText(key); !ok {
				return nil, nil
			}
			seq = 0
		}
		rows, err := s.pool.Query(ctx, pendingQuery, id, key, seq, limit)
		if err != nil {
			return nil, err
		}
		var out []meta.PendingEntry
		var e meta.PendingEntry
		var mtime int64
		_, err = pgx.ForEachRow(rows, []any{&e.Key, &e.Seq, &e.VersionID, &e.IsLatest, &e.DeleteMarker, &e.Size, &e.ETag, &mtime,
			&e.StorageClass, &e.Owner, &e.Replication}, func() error {
			e.Bucket, e.LastModified = bucket, fromMillis(mtime)
			out = append(out, e)
			return nil
		})
		return out, err
	})
}
