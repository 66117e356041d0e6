package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/jogstore/jog/internal/meta"
)

// versionsQuery reads, in (key, seq DESC) order, the versions of both
// tables from position ($2, $3) on: key $2's versions below seq $3, then
// every later key (below $5 when bounded). The live row's seq is
// meta.LiveSeq (4611686018427387904), so $3 = meta.LiveSeq+1 starts at
// $2's live row. Each table gives its first $4 rows in that order (a
// range scan of its primary key; object_versions' rows of one key put
// newest first by an incremental sort), and the two short lists are
// merged: PostgreSQL 15 does not merge the two scans of a plain UNION
// ALL, and sorted every version from $2 on instead (35 ms for a page
// over 50,000 versions, growing with the bucket).
func versionsQuery(bounded bool) string {
	end := ""
	if bounded {
		end = " AND key < $5"
	}
	return "SELECT key, seq, version_id, is_latest, delete_marker, size, etag, mtime, storage_class, owner, replication FROM (" +
		"(SELECT key, 4611686018427387904::bigint AS seq, version_id, true AS is_latest, false AS delete_marker," +
		" size, etag, mtime, storage_class, owner, replication" +
		" FROM objects WHERE bucket_id = $1 AND key >= $2 AND (key > $2 OR $3 > 4611686018427387904::bigint)" + end +
		" ORDER BY key LIMIT $4)" +
		" UNION ALL (SELECT key, seq, version_id, is_latest, delete_marker, size, etag, mtime, storage_class, owner, replication" +
		" FROM object_versions WHERE bucket_id = $1 AND key >= $2 AND (key > $2 OR seq < $3)" + end +
		" ORDER BY key, seq DESC LIMIT $4)" +
		") v ORDER BY key, seq DESC LIMIT $4"
}

// ListObjectVersions implements meta.Store: meta.ListVersions over a merge
// of both tables in (key, newest first) order.
func (s *Store) ListObjectVersions(ctx context.Context, bucket string, opts meta.ListVersionsOptions) (meta.VersionsPage, error) {
	id, err := bucketID(ctx, s.pool, bucket)
	if err != nil {
		return meta.VersionsPage{}, err
	}
	seqOf := func(ctx context.Context, key, versionID string) (int64, error) {
		return versionSeq(ctx, s.pool, id, key, versionID)
	}
	if succ, ok := skipSuccessor(opts.Prefix, opts.Delimiter); ok {
		return meta.ListVersions(ctx, opts, seqOf,
			func(ctx context.Context, key string, seq int64, end string, limit int) ([]meta.VersionEntry, error) {
				return s.versionRows(ctx, id, key, seq, end, limit, skipArgs(opts.Prefix, opts.Delimiter, succ))
			}, true)
	}
	return meta.ListVersions(ctx, opts, seqOf,
		func(ctx context.Context, key string, seq int64, end string, limit int) ([]meta.VersionEntry, error) {
			return s.versionRows(ctx, id, key, seq, end, limit, nil)
		}, false)
}

// groupedVersionsQuery is versionsQuery rolled up as groupedQuery is: a
// recursive walk of the keys of both tables from position ($2, $3) on,
// one seek of each primary key per key or common prefix, that stops once
// the keys it passed give $4 entries (a common prefix gives one, a key
// its versions); then the versions of those keys, newest first, only the
// newest of a key that rolls up. (OFFSET 0 keeps each next key a value:
// inlined, its seeks would run again at each use.) $5 to $8 are groupedQuery's $4 to $7;
// with bounded, $9 is an upper bound on the keys.
func groupedVersionsQuery(bounded bool) string {
	const live = "4611686018427387904::bigint"
	end := ""
	if bounded {
		end = " AND key < $9"
	}
	const from = " AND (key > $2 OR seq < $3)" // the position, in object_versions
	const fromLive = " AND (key > $2 OR $3 > " + live + ")"
	grouped := func(k string) string { return "strpos(substr(" + k + ", $5), $6) > 0" }
	// next is the first key of either table at or above bound b.
	next := func(b, objects, versions string) string {
		return "LEAST((SELECT key FROM objects WHERE bucket_id = $1 AND key >= " + b + objects + end + " ORDER BY key LIMIT 1)," +
			" (SELECT key FROM object_versions WHERE bucket_id = $1 AND key >= " + b + versions + end + " ORDER BY key LIMIT 1))"
	}
	// entries is how many entries key k gives (at most $4).
	entries := func(k string) string {
		return "CASE WHEN " + grouped(k) + " THEN 1::bigint ELSE (SELECT count(*) FROM (" +
			"SELECT 1 FROM objects WHERE bucket_id = $1 AND key = " + k + fromLive +
			" UNION ALL SELECT 1 FROM object_versions WHERE bucket_id = $1 AND key = " + k + from + " LIMIT $4) z) END"
	}
	bound := "(CASE WHEN " + grouped("w.k") + " THEN left(w.k, $7 + strpos(substr(w.k, $5), $6)) || $8" +
		" ELSE w.k || chr(1) END) COLLATE \"C\""
	return "WITH RECURSIVE walk AS (" +
		"SELECT f.k, 1 AS n, " + entries("f.k") + " AS c FROM (SELECT " + next("$2", fromLive, from) + " AS k OFFSET 0) f WHERE f.k IS NOT NULL" +
		" UNION ALL" +
		" SELECT x.k, w.n + 1, w.c + " + entries("x.k") + " FROM walk w CROSS JOIN LATERAL (SELECT " + next(bound, "", "") + " AS k OFFSET 0) x" +
		" WHERE x.k IS NOT NULL AND w.c < $4)" +
		" SELECT e.key, e.seq, e.version_id, e.is_latest, e.delete_marker, e.size, e.etag, e.mtime, e.storage_class, e.owner, e.replication" +
		" FROM walk w CROSS JOIN LATERAL (SELECT * FROM (" +
		"(SELECT key, " + live + " AS seq, version_id, true AS is_latest, false AS delete_marker, size, etag, mtime, storage_class, owner, replication" +
		" FROM objects WHERE bucket_id = $1 AND key = w.k" + fromLive + ")" +
		" UNION ALL (SELECT key, seq, version_id, is_latest, delete_marker, size, etag, mtime, storage_class, owner, replication" +
		" FROM object_versions WHERE bucket_id = $1 AND key = w.k" + from + " ORDER BY seq DESC LIMIT $4)" +
		") v ORDER BY seq DESC LIMIT (CASE WHEN " + grouped("w.k") + " THEN 1 ELSE $4 END)) e" +
		" ORDER BY w.n, e.seq DESC LIMIT $4"
}

// versionSeq returns the position of version versionID of key:
// meta.LiveSeq for its live row, else its seq; meta.ErrVersionMarker when
// there is no such version.
func versionSeq(ctx context.Context, q querier, bucketID int64, key, versionID string) (int64, error) {
	if !representable(key) || !representable(versionID) {
		return 0, meta.ErrVersionMarker
	}
	var seq int64
	err := q.QueryRow(ctx, "SELECT 4611686018427387904::bigint FROM objects WHERE bucket_id = $1 AND key = $2 AND version_id = $3"+
		" UNION ALL SELECT seq FROM object_versions WHERE bucket_id = $1 AND key = $2 AND version_id = $3", bucketID, key, versionID).Scan(&seq)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, meta.ErrVersionMarker
	}
	return seq, err
}

// versionRows is a meta.VersionScan of bucket bucketID; with skip (the
// parameters $5 to $8 of groupedVersionsQuery), rolled up.
func (s *Store) versionRows(ctx context.Context, bucketID int64, key string, seq int64, end string, limit int, skip []any) ([]meta.VersionEntry, error) {
	if !representable(key) {
		// No version has key: start at the first key above it.
		var ok bool
		if key, ok = ceilText(key); !ok {
			return nil, nil
		}
		seq = meta.LiveSeq + 1
	}
	hi, bounded := upperBound(end)
	if bounded && key >= hi {
		return nil, nil
	}
	q, args := versionsQuery(bounded), []any{bucketID, key, seq, limit}
	if skip != nil {
		q, args = groupedVersionsQuery(bounded), append(args, skip...)
	}
	if bounded {
		args = append(args, hi)
	}
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	out := make([]meta.VersionEntry, 0, limit)
	var r meta.VersionEntry
	var mtime int64
	var replication *string
	_, err = pgx.ForEachRow(rows, []any{&r.Key, &r.Seq, &r.VersionID, &r.IsLatest, &r.DeleteMarker, &r.Size, &r.ETag, &mtime,
		&r.StorageClass, &r.Owner, &replication}, func() error {
		r.LastModified, r.Replication = fromMillis(mtime), deref(replication)
		out = append(out, r)
		return nil
	})
	return out, err
}
