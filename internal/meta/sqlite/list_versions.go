package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// liveSeq is the place of a live row (objects) among its key's versions:
// above every seq of object_versions, since it is the newest.
const liveSeq = 1 << 62

// versionsQuery reads, in (key, seq DESC) order, the versions of both
// tables from position (?2, ?3) on: key ?2's versions below seq ?3, then
// every later key below ?4 ("" for no bound). ?3 = liveSeq+1 starts at
// ?2's live row; 0 starts after ?2. The compound's own ORDER BY lets
// SQLite merge the two primary-key scans, reading no more rows than the
// page needs; wrapped in a subquery it sorted every row from ?2 on (350 ms
// for a page over 1,200,000 versions, against ~1 ms).
const versionsQuery = "SELECT key, 4611686018427387904 AS seq, version_id, 1 AS is_latest, 0 AS delete_marker, size, etag, mtime, storage_class, owner" +
	" FROM objects WHERE bucket_id = ?1 AND key >= ?2 AND (key > ?2 OR ?3 > 4611686018427387904) AND (?4 = '' OR key < ?4)" +
	" UNION ALL SELECT key, seq, version_id, is_latest, delete_marker, size, etag, mtime, storage_class, owner" +
	" FROM object_versions WHERE bucket_id = ?1 AND key >= ?2 AND (key > ?2 OR seq < ?3) AND (?4 = '' OR key < ?4)" +
	" ORDER BY 1, 2 DESC LIMIT ?5"

type versionRow struct {
	meta.VersionSummary
	seq int64
}

// ListObjectVersions implements meta.Store: meta.ListKeyed over a merge of
// both tables in (key, newest first) order.
func (s *Store) ListObjectVersions(ctx context.Context, bucket string, opts meta.ListVersionsOptions) (meta.VersionsPage, error) {
	var page meta.VersionsPage
	b, err := bucketRow(ctx, s.rd, bucket)
	if err != nil || opts.Limit <= 0 {
		return page, err
	}
	key, seq := opts.Prefix, int64(liveSeq+1)
	if opts.KeyMarker != "" && opts.KeyMarker >= opts.Prefix {
		key, seq = opts.KeyMarker, 0
		if cp, ok := meta.CommonPrefixOf(opts.KeyMarker, opts.Prefix, opts.Delimiter); ok && cp == opts.KeyMarker {
			if key, seq = meta.PrefixEnd(cp), liveSeq+1; key == "" {
				return page, nil
			}
		} else if opts.VersionIDMarker != "" {
			if seq, err = versionSeq(ctx, s.rd, b.id, opts.KeyMarker, opts.VersionIDMarker); err != nil {
				return page, err
			}
		}
	}
	if end := meta.PrefixEnd(opts.Prefix); end != "" && key >= end {
		return page, nil
	}
	kp, err := meta.ListKeyed(ctx, meta.KeyedList[versionRow, versionPos]{
		Prefix: opts.Prefix, Delimiter: opts.Delimiter, Limit: opts.Limit,
		Scan: func(ctx context.Context, p versionPos, end string, limit int) ([]versionRow, error) {
			return s.versionRows(ctx, b.id, p.key, p.seq, end, limit)
		},
		Key:   func(r versionRow) string { return r.Key },
		After: func(r versionRow) versionPos { return versionPos{r.Key, r.seq} },
		At:    func(key string) versionPos { return versionPos{key, liveSeq + 1} },
	}, versionPos{key, seq})
	if err != nil {
		return meta.VersionsPage{}, err
	}
	page = meta.VersionsPage{CommonPrefixes: kp.CommonPrefixes, Truncated: kp.Truncated, NextKeyMarker: kp.LastPrefix}
	for _, r := range kp.Entries {
		page.Versions = append(page.Versions, r.VersionSummary)
	}
	if n := len(page.Versions); kp.LastPrefix == "" && n > 0 {
		page.NextKeyMarker, page.NextVersionIDMarker = page.Versions[n-1].Key, page.Versions[n-1].VersionID
	}
	return page, nil
}

// versionPos is a position in a version listing: key's versions below
// seq, then the later keys.
type versionPos struct {
	key string
	seq int64
}

// versionSeq returns the position of version versionID of key: liveSeq for
// its live row, else its seq; meta.ErrVersionMarker when there is no such
// version.
func versionSeq(ctx context.Context, q querier, bucketID int64, key, versionID string) (int64, error) {
	var seq int64
	err := q.QueryRowContext(ctx, "SELECT 4611686018427387904 FROM objects WHERE bucket_id = ?1 AND key = ?2 AND version_id = ?3"+
		" UNION ALL SELECT seq FROM object_versions WHERE bucket_id = ?1 AND key = ?2 AND version_id = ?3", bucketID, key, versionID).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, meta.ErrVersionMarker
	}
	return seq, err
}

func (s *Store) versionRows(ctx context.Context, bucketID int64, key string, seq int64, end string, limit int) ([]versionRow, error) {
	out := make([]versionRow, 0, limit)
	err := queryEach(ctx, s.rd, versionsQuery, []any{bucketID, key, seq, end, limit}, func(rows *sql.Rows) error {
		var r versionRow
		var mtime int64
		if err := rows.Scan(&r.Key, &r.seq, &r.VersionID, &r.IsLatest, &r.DeleteMarker, &r.Size, &r.ETag, &mtime,
			&r.StorageClass, &r.Owner); err != nil {
			return err
		}
		r.LastModified = time.UnixMilli(mtime).UTC()
		out = append(out, r)
		return nil
	})
	return out, err
}
