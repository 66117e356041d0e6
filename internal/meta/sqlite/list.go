package sqlite

import (
	"context"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// ListObjects implements meta.Store with one indexed range scan per batch.
func (s *Store) ListObjects(ctx context.Context, bucket string, opts meta.ListOptions) (meta.ListPage, error) {
	id, err := bucketID(ctx, s.rd, bucket)
	if err != nil {
		return meta.ListPage{}, err
	}
	scan := func(ctx context.Context, start string, inclusive bool, end string, limit int) ([]meta.ObjectSummary, error) {
		q := "SELECT key, size, etag, mtime, storage_class, owner FROM objects WHERE bucket_id = ? AND is_latest = 1"
		args := []any{id}
		if inclusive {
			q += " AND key >= ?"
		} else {
			q += " AND key > ?"
		}
		args = append(args, start)
		if end != "" {
			q += " AND key < ?"
			args = append(args, end)
		}
		q += " ORDER BY key LIMIT ?"
		args = append(args, limit)
		rows, err := s.rd.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := make([]meta.ObjectSummary, 0, limit)
		for rows.Next() {
			var o meta.ObjectSummary
			var mtime int64
			if err := rows.Scan(&o.Key, &o.Size, &o.ETag, &mtime, &o.StorageClass, &o.Owner); err != nil {
				return nil, err
			}
			o.LastModified = time.UnixMilli(mtime).UTC()
			out = append(out, o)
		}
		return out, rows.Err()
	}
	return meta.List(ctx, scan, opts)
}
