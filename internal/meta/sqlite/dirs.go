package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/jogstore/jog/internal/meta"
)

// The directory index (ADR 0010, migration 0004) serves every listing with
// the delimiter "/", the shape of nearly every "directory" listing. Under a
// prefix P whose part up to its last "/" is Q (P itself when P is "" or ends
// in "/"), such a listing returns as Contents the latest keys in
// [P, PrefixEnd(P)) whose parent is Q, and as CommonPrefixes the
// directories in that range whose parent is Q: P holds no "/" past Q, so
// the first "/" past P in a key is its first past Q. Two ordered ranges,
// merged by one query, where the skip scan (list.go) seeks once per common
// prefix and per key.
//
// A directory row exists while some latest key lies below it. Rows come and
// go only when a key gains or loses its latest version, in the same
// transaction, so the index is exactly as current as the objects.

// dirDelimiter is the one delimiter the index serves.
const dirDelimiter = "/"

// parentOf returns key up to and including its last "/", or "".
func parentOf(key string) string {
	return key[:strings.LastIndexByte(key, '/')+1]
}

// eachDir calls fn with every directory above key (each prefix ending in
// "/") and that directory's parent.
func eachDir(key string, fn func(parent, name string) error) error {
	parent := ""
	for i := 0; i < len(key); i++ {
		if key[i] != '/' {
			continue
		}
		name := key[:i+1]
		if err := fn(parent, name); err != nil {
			return err
		}
		parent = name
	}
	return nil
}

// dirParent returns the parent of directory name (which ends in "/").
func dirParent(name string) string {
	return parentOf(name[:len(name)-1])
}

// addKey records that key gained its latest version: every directory above
// it exists. It inserts the deepest first and stops at the first that is
// there already: a directory row has a latest key below it, so its
// ancestors have rows too. A PUT into an existing directory costs one
// lookup and writes no page.
func addKey(ctx context.Context, tx querier, bucketID int64, key string) error {
	memo := writerMemoOf(tx)
	for name := parentOf(key); name != ""; name = dirParent(name) {
		if memo != nil && memo.hasDir(bucketID, name) {
			return nil
		}
		res, err := tx.ExecContext(ctx, "INSERT INTO dirs (bucket_id, parent, name) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
			bucketID, dirParent(name), name)
		if err != nil {
			return err
		}
		if memo != nil {
			memo.putDir(bucketID, name)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
	}
	return nil
}

// dropKey records that key lost its latest version: the directories above
// it that no other latest key lies below go, from the deepest up, stopping
// at the first that keeps a key (those above it keep it too).
func dropKey(ctx context.Context, tx querier, bucketID int64, key string) error {
	for name := parentOf(key); name != ""; name = dirParent(name) {
		var one int
		err := tx.QueryRowContext(ctx, "SELECT 1 FROM objects WHERE bucket_id = ? AND key >= ? AND key < ? AND is_latest = 1 LIMIT 1",
			bucketID, name, meta.PrefixEnd(name)).Scan(&one)
		if err == nil {
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM dirs WHERE bucket_id = ? AND parent = ? AND name = ?",
			bucketID, dirParent(name), name); err != nil {
			return err
		}
	}
	return nil
}

// fillDirs is migration 0004's step: it sets parent on every existing row
// and records the directories of the latest keys, bucket by bucket.
func fillDirs(ctx context.Context, tx *sql.Tx) error {
	var ids []int64
	err := queryEach(ctx, tx, "SELECT id FROM buckets", nil, func(rows *sql.Rows) error {
		var id int64
		err := rows.Scan(&id)
		ids = append(ids, id)
		return err
	})
	for _, id := range ids {
		if err != nil {
			break
		}
		err = rebuildDirs(ctx, tx, id)
	}
	return err
}

// dirScan is a meta.GroupedScanFunc for the delimiter "/": it reads, in
// key order from start to end, the latest keys and the directories whose
// parent is parentOf(prefix). A directory row carries its name as Key and
// nothing else; the listing rolls it up to itself.
func (s *Store) dirScan(id int64) meta.GroupedScanFunc {
	return func(ctx context.Context, start string, inclusive bool, end, prefix, _ string, limit int) ([]meta.ObjectSummary, error) {
		tx, err := s.r.BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		rtx := &readTx{Tx: tx, c: s.rd.c}
		defer rtx.end(ctx)
		var out []meta.ObjectSummary
		// A start inside a directory (a StartAfter naming a key below it):
		// the directory is listed if a key below it follows start, as the
		// skip scan would find that key and roll it up.
		if cp, ok := meta.CommonPrefixOf(start, prefix, dirDelimiter); ok && start != cp {
			cmp := ">"
			if inclusive {
				cmp = ">="
			}
			var one int
			err := rtx.QueryRowContext(ctx, "SELECT 1 FROM objects WHERE bucket_id = ? AND is_latest = 1 AND key "+cmp+
				" ? AND key < ? LIMIT 1", id, start, meta.PrefixEnd(cp)).Scan(&one)
			switch {
			case err == nil:
				out = append(out, meta.ObjectSummary{Key: cp})
				if limit--; limit == 0 {
					return out, nil
				}
			case !errors.Is(err, sql.ErrNoRows):
				return nil, err
			}
			if start, inclusive = meta.PrefixEnd(cp), true; start == "" {
				return out, nil
			}
		}
		cmp := "> ?3"
		if inclusive {
			cmp = ">= ?3"
		}
		bound := ""
		if end != "" {
			bound = " AND %s < ?4"
		}
		q := "SELECT " + summaryColumns + " FROM objects INDEXED BY objects_latest_by_dir" +
			" WHERE bucket_id = ?1 AND parent = ?2 AND is_latest = 1 AND key " + cmp + strings.Replace(bound, "%s", "key", 1) +
			" UNION ALL SELECT name, 0, '', 0, '', '' FROM dirs" +
			" WHERE bucket_id = ?1 AND parent = ?2 AND name " + cmp + strings.Replace(bound, "%s", "name", 1) +
			" ORDER BY 1 LIMIT ?5"
		rows, err := s.summariesFrom(ctx, rtx, limit, q, id, parentOf(prefix), start, end, limit)
		if err != nil {
			return nil, err
		}
		return append(out, rows...), nil
	}
}
