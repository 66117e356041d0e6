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
	return "SELECT key, seq, version_id, is_latest, delete_marker, size, etag, mtime, storage_class, owner FROM (" +
		"(SELECT key, 4611686018427387904::bigint AS seq, version_id, true AS is_latest, false AS delete_marker," +
		" size, etag, mtime, storage_class, owner" +
		" FROM objects WHERE bucket_id = $1 AND key >= $2 AND (key > $2 OR $3 > 4611686018427387904::bigint)" + end +
		" ORDER BY key LIMIT $4)" +
		" UNION ALL (SELECT key, seq, version_id, is_latest, delete_marker, size, etag, mtime, storage_class, owner" +
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
	return meta.ListVersions(ctx, opts,
		func(ctx context.Context, key, versionID string) (int64, error) {
			return versionSeq(ctx, s.pool, id, key, versionID)
		},
		func(ctx context.Context, key string, seq int64, end string, limit int) ([]meta.VersionEntry, error) {
			return s.versionRows(ctx, id, key, seq, end, limit)
		})
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

// versionRows is a meta.VersionScan of bucket bucketID.
func (s *Store) versionRows(ctx context.Context, bucketID int64, key string, seq int64, end string, limit int) ([]meta.VersionEntry, error) {
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
	args := []any{bucketID, key, seq, limit}
	if bounded {
		args = append(args, hi)
	}
	rows, err := s.pool.Query(ctx, versionsQuery(bounded), args...)
	if err != nil {
		return nil, err
	}
	out := make([]meta.VersionEntry, 0, limit)
	var r meta.VersionEntry
	var mtime int64
	_, err = pgx.ForEachRow(rows, []any{&r.Key, &r.Seq, &r.VersionID, &r.IsLatest, &r.DeleteMarker, &r.Size, &r.ETag, &mtime,
		&r.StorageClass, &r.Owner}, func() error {
		r.LastModified = fromMillis(mtime)
		out = append(out, r)
		return nil
	})
	return out, err
}

// ListUploads implements meta.Store: meta.ListUploads over uploads in
// (key, upload ID) order, upload IDs compared byte-wise.
func (s *Store) ListUploads(ctx context.Context, bucket string, opts meta.ListUploadsOptions) (meta.UploadsPage, error) {
	id, err := bucketID(ctx, s.pool, bucket)
	if err != nil {
		return meta.UploadsPage{}, err
	}
	return meta.ListUploads(ctx, opts, func(ctx context.Context, p meta.UploadPos, end string, limit int) ([]meta.Upload, error) {
		return s.uploadRows(ctx, id, bucket, p, end, limit)
	})
}

// uploadRows is a meta.UploadScan of bucket id: the uploads of key $2
// whose ID is at or above $3, then those of later keys.
func (s *Store) uploadRows(ctx context.Context, id int64, bucket string, p meta.UploadPos, end string, limit int) ([]meta.Upload, error) {
	lo, from, ok := p.Key, "", true // from "": every upload of lo
	switch {
	case p.Inclusive:
		lo, ok = lowerBound(p.Key, true)
	case p.UploadID == "" || !representable(p.Key):
		lo, ok = lowerBound(p.Key, false)
	default:
		var more bool
		if from, more = lowerBound(p.UploadID, false); !more {
			lo, from = p.Key+"\x01", "" // no upload ID of the key can follow
		}
	}
	hi, bounded := upperBound(end)
	if !ok || bounded && lo >= hi {
		return nil, nil
	}
	q := "SELECT " + uploadColumns + " FROM uploads WHERE bucket_id = $1 AND key >= $2 AND (key > $2 OR upload_id COLLATE \"C\" >= $3)"
	args := []any{id, lo, from, limit}
	if bounded {
		q += " AND key < $5"
		args = append(args, hi)
	}
	rows, err := s.pool.Query(ctx, q+" ORDER BY key, upload_id COLLATE \"C\" LIMIT $4", args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (meta.Upload, error) { return scanUpload(row, bucket) })
}
