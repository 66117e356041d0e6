package sqlite

import (
	"context"
	"database/sql"

	"github.com/jogstore/jog/internal/meta"
)

// ScanObjects implements meta.Store: one primary-key range scan per page.
func (s *Store) ScanObjects(ctx context.Context, bucket, afterKey, afterVersion string, limit int) ([]meta.Object, error) {
	id, err := bucketID(ctx, s.rd, bucket)
	if err != nil || limit <= 0 {
		return nil, err
	}
	rows, err := s.rd.QueryContext(ctx, "SELECT o.key, "+objectColumns+" FROM "+objectTables+
		" WHERE o.bucket_id = ? AND (o.key, o.version_id) > (?, ?) ORDER BY o.key, o.version_id LIMIT ?",
		id, afterKey, afterVersion, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []meta.Object
	for rows.Next() {
		var key string
		o, err := scanObject(keyedRow{rows, &key})
		if err != nil {
			return nil, err
		}
		o.Bucket, o.Key = bucket, key
		out = append(out, o)
	}
	return out, rows.Err()
}

// keyedRow scans a row whose first column is the key, then objectColumns.
type keyedRow struct {
	rows *sql.Rows
	key  *string
}

func (r keyedRow) Scan(dest ...any) error {
	return r.rows.Scan(append([]any{r.key}, dest...)...)
}
