package sqlite

import (
	"context"
	"database/sql"

	"github.com/jogstore/jog/internal/meta"
)

// ScanObjects implements meta.Store: one range scan of each of objects and
// object_versions per page, merged.
func (s *Store) ScanObjects(ctx context.Context, bucket, afterKey, afterVersion string, limit int) ([]meta.Object, error) {
	id, err := bucketID(ctx, s.rd, bucket)
	if err != nil || limit <= 0 {
		return nil, err
	}
	rows, err := s.rd.QueryContext(ctx, "SELECT o.key, "+objectColumns+", 1, 0 FROM "+objectTables+
		" WHERE o.bucket_id = ?1 AND (o.key, o.version_id) > (?2, ?3)"+
		" UNION ALL SELECT o.key, "+objectColumns+", o.is_latest, o.delete_marker"+
		" FROM object_versions o LEFT JOIN inline_data d ON d.id = o.inline_id"+
		" WHERE o.bucket_id = ?1 AND (o.key, o.version_id) > (?2, ?3) ORDER BY 1, 2 LIMIT ?4",
		id, afterKey, afterVersion, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []meta.Object
	for rows.Next() {
		var key string
		var latest, marker bool
		o, err := scanObject(keyedRow{rows, &key, []any{&latest, &marker}})
		if err != nil {
			return nil, err
		}
		o.Bucket, o.Key, o.IsLatest, o.DeleteMarker = bucket, key, latest, marker
		out = append(out, o)
	}
	return out, rows.Err()
}

// keyedRow scans a row whose first column is the key, then objectColumns,
// then the columns of extra.
type keyedRow struct {
	rows  *sql.Rows
	key   *string
	extra []any
}

func (r keyedRow) Scan(dest ...any) error {
	return r.rows.Scan(append(append([]any{r.key}, dest...), r.extra...)...)
}
