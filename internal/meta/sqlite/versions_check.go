package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jogstore/jog/internal/meta"
)

var _ meta.VersionChecker = (*Store)(nil) // jog fsck finds it by type assertion

// versionChecks are the rules of ADR 0012's two tables, each a query of
// the (key, version ID) pairs of one bucket (?1) that break it.
var versionChecks = []struct{ query, detail string }{
	{"SELECT key, version_id FROM objects WHERE bucket_id = ?1 AND is_latest != 1",
		"a live version not flagged latest"},
	{"SELECT key, version_id FROM object_versions WHERE bucket_id = ?1 AND is_latest = 1 AND delete_marker = 0",
		"a noncurrent version flagged latest"},
	{"SELECT v.key, v.version_id FROM object_versions v WHERE v.bucket_id = ?1 AND v.is_latest = 1" +
		" AND EXISTS (SELECT 1 FROM objects o WHERE o.bucket_id = ?1 AND o.key = v.key)",
		"a latest delete marker beside a live version"},
	{"SELECT v.key, v.version_id FROM object_versions v WHERE v.bucket_id = ?1 AND v.is_latest = 1" +
		" AND EXISTS (SELECT 1 FROM object_versions w WHERE w.bucket_id = ?1 AND w.key = v.key AND w.seq > v.seq)",
		"the latest delete marker is not the newest version"},
	{"SELECT key, '' FROM object_versions WHERE bucket_id = ?1 GROUP BY key HAVING sum(is_latest) > 1",
		"more than one latest delete marker"},
	{"SELECT v.key, '' FROM object_versions v WHERE v.bucket_id = ?1 GROUP BY v.key HAVING max(v.is_latest) = 0" +
		" AND NOT EXISTS (SELECT 1 FROM objects o WHERE o.bucket_id = ?1 AND o.key = v.key)",
		"noncurrent versions without a latest one (no live version, no latest delete marker)"},
	{"SELECT v.key, v.version_id FROM object_versions v JOIN objects o" +
		" ON o.bucket_id = v.bucket_id AND o.key = v.key AND o.version_id = v.version_id WHERE v.bucket_id = ?1",
		"a version ID both live and noncurrent"},
	{"SELECT l.key, l.version_id FROM object_locks l WHERE l.bucket_id = ?1" +
		" AND NOT EXISTS (SELECT 1 FROM objects o WHERE o.bucket_id = ?1 AND o.key = l.key AND o.version_id = l.version_id)" +
		" AND NOT EXISTS (SELECT 1 FROM object_versions v WHERE v.bucket_id = ?1 AND v.key = l.key AND v.version_id = l.version_id AND v.delete_marker = 0)",
		"a lock on no version"},
}

// CheckVersions implements meta.VersionChecker: the live view and
// object_versions of each bucket, in one read transaction, against the
// rules of ADR 0012 (versionChecks).
func (s *Store) CheckVersions(ctx context.Context, report func(meta.VersionProblem)) error {
	return s.eachBucket(ctx, func(name string, id int64) error {
		if err := s.checkVersions(ctx, id, func(key, version, detail string) {
			report(meta.VersionProblem{Bucket: name, Key: key, VersionID: version, Detail: detail})
		}); err != nil {
			return fmt.Errorf("check the versions of %s: %w", name, err)
		}
		return nil
	})
}

func (s *Store) checkVersions(ctx context.Context, id int64, problem func(key, version, detail string)) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, c := range versionChecks {
		rows, err := tx.QueryContext(ctx, c.query, id)
		if err != nil {
			return err
		}
		for rows.Next() {
			var key, version string
			if err := rows.Scan(&key, &version); err != nil {
				rows.Close() //nolint:sqlclosecheck // closed on each way out of the loop body
				return err
			}
			problem(key, version, c.detail)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
