package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/jogstore/jog/internal/meta"
)

// ListUploads implements meta.Store: meta.ListUploads over uploads in
// (key, upload ID) order, upload IDs compared byte-wise; with a
// delimiter, rolled up by a skip scan (groupedUploadsQuery).
func (s *Store) ListUploads(ctx context.Context, bucket string, opts meta.ListUploadsOptions) (meta.UploadsPage, error) {
	id, err := bucketID(ctx, s.pool, bucket)
	if err != nil {
		return meta.UploadsPage{}, err
	}
	var skip []any
	succ, rolledUp := skipSuccessor(opts.Prefix, opts.Delimiter)
	if rolledUp {
		skip = skipArgs(opts.Prefix, opts.Delimiter, succ)
	}
	return meta.ListUploads(ctx, opts, func(ctx context.Context, p meta.UploadPos, end string, limit int) ([]meta.Upload, error) {
		return s.uploadRows(ctx, id, bucket, p, end, limit, skip)
	}, rolledUp)
}

// uploadsQuery reads uploads in (key, upload ID) order: those of key $2
// whose ID is at or above $3 ("" for all), then those of later keys (below
// $5 when bounded).
func uploadsQuery(bounded bool) string {
	end := ""
	if bounded {
		end = " AND key < $5"
	}
	return "SELECT " + uploadColumns + " FROM uploads WHERE bucket_id = $1 AND key >= $2 AND (key > $2 OR upload_id COLLATE \"C\" >= $3)" +
		end + " ORDER BY key, upload_id COLLATE \"C\" LIMIT $4"
}

// groupedUploadsQuery is uploadsQuery rolled up as groupedVersionsQuery
// is: a walk of the keys from $2 on, one seek of the uploads_key index per
// key or common prefix, that stops once the keys it passed give $4
// uploads (a common prefix gives one); then the uploads of those keys,
// only the first of a key that rolls up. $5 to $8 are groupedQuery's $4
// to $7; with bounded, $9 is an upper bound on the keys.
func groupedUploadsQuery(bounded bool) string {
	end := ""
	if bounded {
		end = " AND key < $9"
	}
	const from = " AND (key > $2 OR upload_id COLLATE \"C\" >= $3)"
	grouped := func(k string) string { return "strpos(substr(" + k + ", $5), $6) > 0" }
	next := func(b, cond string) string {
		return "(SELECT key FROM uploads WHERE bucket_id = $1 AND key >= " + b + cond + end + " ORDER BY key LIMIT 1)"
	}
	entries := func(k string) string {
		return "CASE WHEN " + grouped(k) + " THEN 1::bigint ELSE (SELECT count(*) FROM (" +
			"SELECT 1 FROM uploads WHERE bucket_id = $1 AND key = " + k + from + " LIMIT $4) z) END"
	}
	bound := "(CASE WHEN " + grouped("w.k") + " THEN left(w.k, $7 + strpos(substr(w.k, $5), $6)) || $8" +
		" ELSE w.k || chr(1) END) COLLATE \"C\""
	return "WITH RECURSIVE walk AS (" +
		"SELECT f.k, 1 AS n, " + entries("f.k") + " AS c FROM (SELECT " + next("$2", from) + " AS k OFFSET 0) f WHERE f.k IS NOT NULL" +
		" UNION ALL" +
		" SELECT x.k, w.n + 1, w.c + " + entries("x.k") + " FROM walk w CROSS JOIN LATERAL (SELECT " + next(bound, "") + " AS k OFFSET 0) x" +
		" WHERE x.k IS NOT NULL AND w.c < $4)" +
		" SELECT u.* FROM walk w CROSS JOIN LATERAL (SELECT " + uploadColumns + " FROM uploads" +
		" WHERE bucket_id = $1 AND key = w.k" + from + " ORDER BY upload_id COLLATE \"C\"" +
		" LIMIT (CASE WHEN " + grouped("w.k") + " THEN 1 ELSE $4 END)) u" +
		" ORDER BY w.n, u.upload_id COLLATE \"C\" LIMIT $4"
}

// uploadRows is a meta.UploadScan of bucket id; with skip (the parameters
// $5 to $8 of groupedUploadsQuery), rolled up.
func (s *Store) uploadRows(ctx context.Context, id int64, bucket string, p meta.UploadPos, end string, limit int, skip []any) ([]meta.Upload, error) {
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
	q, args := uploadsQuery(bounded), []any{id, lo, from, limit}
	if skip != nil {
		q, args = groupedUploadsQuery(bounded), append(args, skip...)
	}
	if bounded {
		args = append(args, hi)
	}
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (meta.Upload, error) { return scanUpload(row, bucket) })
}
