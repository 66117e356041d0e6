package postgres

import (
	"context"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/jogstore/jog/internal/meta"
)

// ListObjects implements meta.Store. Without a delimiter a page is one
// range scan of the primary key (objects holds only live versions). With
// one, a single statement skips from each common prefix to the next, one
// index seek each (groupedQuery): there is no directory index (ADR 0018).
func (s *Store) ListObjects(ctx context.Context, bucket string, opts meta.ListOptions) (meta.ListPage, error) {
	id, err := bucketID(ctx, s.pool, bucket)
	if err != nil {
		return meta.ListPage{}, err
	}
	if succ, ok := skipSuccessor(opts.Prefix, opts.Delimiter); ok {
		return meta.ListGrouped(ctx, s.groupedScan(id, succ), opts)
	}
	return meta.List(ctx, s.scan(id), opts)
}

// skipSuccessor returns the successor of the delimiter's last character,
// which a skip scan (groupedQuery) appends to the part of a common prefix
// before that character to seek past the prefix; ok is false when a
// listing cannot skip so: without a delimiter, with a prefix or delimiter
// that is no text (a delimiter no key holds groups nothing), or with a
// delimiter that ends in U+10FFFF, which has no successor (meta.List
// then groups, one statement per common prefix).
func skipSuccessor(prefix, delimiter string) (string, bool) {
	if delimiter == "" || !representable(prefix) || !representable(delimiter) {
		return "", false
	}
	last, _ := utf8.DecodeLastRuneInString(delimiter)
	if last == utf8.MaxRune {
		return "", false
	}
	return string(nextRune(last)), true
}

const summaryColumns = "key, size, etag, mtime, storage_class, owner"

// scan reads live versions of bucket id in key order.
func (s *Store) scan(id int64) meta.ScanFunc {
	return func(ctx context.Context, start string, inclusive bool, end string, limit int) ([]meta.ObjectSummary, error) {
		lo, ok := lowerBound(start, inclusive)
		hi, bounded := upperBound(end)
		if !ok || bounded && lo >= hi {
			return nil, nil
		}
		q := "SELECT " + summaryColumns + " FROM objects WHERE bucket_id = $1 AND key >= $2"
		args := []any{id, lo, limit}
		if bounded {
			q += " AND key < $4"
			args = append(args, hi)
		}
		return summaries(ctx, s.pool, limit, q+" ORDER BY key LIMIT $3", args...)
	}
}

// groupedQuery is the loose index scan of a delimited listing: a recursive
// query whose every step is one seek of the primary key, to the first key
// at or above a bound. After a key that rolls up to a common prefix (the
// delimiter $5 occurs in it past the prefix, whose length in characters
// is $4 - 1), the bound is the smallest string above every key of that
// prefix: the prefix up to the delimiter's last character, followed by
// that character's successor ($7; $6 is the prefix length plus the
// delimiter's, less two, all in characters). After any other key k it is
// k || U+0001, the smallest string above k. $3 bounds the steps: the
// listing asks for one row per item. With bounded, $8 is an upper bound
// on the keys.
func groupedQuery(bounded bool) string {
	end := ""
	if bounded {
		end = " AND key < $8"
	}
	return "WITH RECURSIVE walk AS (" +
		"(SELECT " + summaryColumns + ", 1 AS n FROM objects WHERE bucket_id = $1 AND key >= $2" + end + " ORDER BY key LIMIT 1)" +
		" UNION ALL" +
		" SELECT o.key, o.size, o.etag, o.mtime, o.storage_class, o.owner, w.n + 1 FROM walk w CROSS JOIN LATERAL (" +
		"SELECT " + summaryColumns + " FROM objects WHERE bucket_id = $1 AND key >= (CASE" +
		" WHEN strpos(substr(w.key, $4), $5) > 0 THEN left(w.key, $6 + strpos(substr(w.key, $4), $5)) || $7" +
		" ELSE w.key || chr(1) END) COLLATE \"C\"" + end + " ORDER BY key LIMIT 1) o" +
		" WHERE w.n < $3)" +
		" SELECT " + summaryColumns + " FROM walk ORDER BY n"
}

// groupedScan is a meta.GroupedScanFunc over groupedQuery for a
// representable prefix and delimiter; succ is the successor of the
// delimiter's last character.
func (s *Store) groupedScan(id int64, succ string) meta.GroupedScanFunc {
	return func(ctx context.Context, start string, inclusive bool, end, prefix, delimiter string, limit int) ([]meta.ObjectSummary, error) {
		lo, ok := lowerBound(start, inclusive)
		hi, bounded := upperBound(end)
		if !ok || bounded && lo >= hi {
			return nil, nil
		}
		args := groupedArgs(id, lo, limit, prefix, delimiter, succ)
		if bounded {
			args = append(args, hi)
		}
		return summaries(ctx, s.pool, limit, groupedQuery(bounded), args...)
	}
}

// groupedArgs are groupedQuery's parameters $1 to $7.
func groupedArgs(id int64, lo string, limit int, prefix, delimiter, succ string) []any {
	return append([]any{id, lo, limit}, skipArgs(prefix, delimiter, succ)...)
}

// skipArgs are the parameters of a skip scan's step (groupedQuery's $4 to
// $7): the prefix's length in characters plus one, the delimiter, the
// prefix's and the delimiter's lengths less two, the successor of the
// delimiter's last character.
func skipArgs(prefix, delimiter, succ string) []any {
	p, d := utf8.RuneCountInString(prefix), utf8.RuneCountInString(delimiter)
	return []any{p + 1, delimiter, p + d - 2, succ}
}

// querier runs queries: the pool, a connection or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// summaries runs a listing query whose columns are summaryColumns.
func summaries(ctx context.Context, q querier, limit int, sql string, args ...any) ([]meta.ObjectSummary, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	out := make([]meta.ObjectSummary, 0, limit)
	var o meta.ObjectSummary
	var mtime int64
	_, err = pgx.ForEachRow(rows, []any{&o.Key, &o.Size, &o.ETag, &mtime, &o.StorageClass, &o.Owner}, func() error {
		o.LastModified = fromMillis(mtime)
		out = append(out, o)
		return nil
	})
	return out, err
}
