package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// versionsQuery reads, in (key, seq DESC) order, the versions of both
// tables from position (?2, ?3) on: key ?2's versions below seq ?3, then
// every later key below ?4 ("" for no bound). ?3 = meta.LiveSeq+1 starts
// at ?2's live row; 0 starts after ?2. The live row's seq is meta.LiveSeq.
// The compound's own ORDER BY lets SQLite merge the two primary-key scans,
// reading no more rows than the page needs; wrapped in a subquery it
// sorted every row from ?2 on (350 ms for a page over 1,200,000 versions,
// against ~1 ms).
const versionsQuery = "SELECT key, 4611686018427387904 AS seq, version_id, 1 AS is_latest, 0 AS delete_marker, size, etag, mtime, storage_class, owner, replication" +
	" FROM objects WHERE bucket_id = ?1 AND key >= ?2 AND (key > ?2 OR ?3 > 4611686018427387904) AND (?4 = '' OR key < ?4)" +
	" UNION ALL SELECT key, seq, version_id, is_latest, delete_marker, size, etag, mtime, storage_class, owner, replication" +
	" FROM object_versions WHERE bucket_id = ?1 AND key >= ?2 AND (key > ?2 OR seq < ?3) AND (?4 = '' OR key < ?4)" +
	" ORDER BY 1, 2 DESC LIMIT ?5"

// ListObjectVersions implements meta.Store: meta.ListVersions over a merge
// of both tables in (key, newest first) order.
func (s *Store) ListObjectVersions(ctx context.Context, bucket string, opts meta.ListVersionsOptions) (meta.VersionsPage, error) {
	b, err := bucketRow(ctx, s.rd, bucket)
	if err != nil {
		return meta.VersionsPage{}, err
	}
	return meta.ListVersions(ctx, opts,
		func(ctx context.Context, key, versionID string) (int64, error) {
			return versionSeq(ctx, s.rd, b.id, key, versionID)
		},
		func(ctx context.Context, key string, seq int64, end string, limit int) ([]meta.VersionEntry, error) {
			return s.versionRows(ctx, b.id, key, seq, end, limit)
		}, false)
}

// versionSeq returns the position of version versionID of key:
// meta.LiveSeq for its live row, else its seq; meta.ErrVersionMarker when
// there is no such version.
func versionSeq(ctx context.Context, q querier, bucketID int64, key, versionID string) (int64, error) {
	var seq int64
	err := q.QueryRowContext(ctx, "SELECT 4611686018427387904 FROM objects WHERE bucket_id = ?1 AND key = ?2 AND version_id = ?3"+
		" UNION ALL SELECT seq FROM object_versions WHERE bucket_id = ?1 AND key = ?2 AND version_id = ?3", bucketID, key, versionID).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, meta.ErrVersionMarker
	}
	return seq, err
}

func (s *Store) versionRows(ctx context.Context, bucketID int64, key string, seq int64, end string, limit int) ([]meta.VersionEntry, error) {
	out := make([]meta.VersionEntry, 0, limit)
	err := queryEach(ctx, s.rd, versionsQuery, []any{bucketID, key, seq, end, limit}, func(rows *sql.Rows) error {
		var r meta.VersionEntry
		var mtime int64
		var replication sql.NullString
		if err := rows.Scan(&r.Key, &r.Seq, &r.VersionID, &r.IsLatest, &r.DeleteMarker, &r.Size, &r.ETag, &mtime,
			&r.StorageClass, &r.Owner, &replication); err != nil {
			return err
		}
		r.LastModified, r.Replication = time.UnixMilli(mtime).UTC(), replication.String
		out = append(out, r)
		return nil
	})
	return out, err
}
