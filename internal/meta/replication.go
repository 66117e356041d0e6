package meta

import "context"

// The PENDING scan of bucket replication (ADR 0031) in every backend:
// ObjectStore.PendingReplication's paging, over a backend's ordered scan
// of its pending versions.

// PendingEntry is a pending version with its place among its key's
// versions (VersionEntry.Seq: creation order, LiveSeq for the live row).
type PendingEntry struct {
	Object
	Seq int64
}

// PendingScan reads up to limit versions whose status is
// ReplicationPending in (key, Seq ascending) order: the versions of key
// above seq, then every version of the later keys. seq LiveSeq starts
// after key's last version.
type PendingScan func(ctx context.Context, key string, seq int64, limit int) ([]PendingEntry, error)

// PendingPage builds a page of PendingReplication from a backend's scan:
// the versions after afterKey, at most limit of them unless the last
// key's run past limit, which is returned whole.
func PendingPage(ctx context.Context, afterKey string, limit int, scan PendingScan) ([]Object, string, error) {
	if limit <= 0 {
		limit = 1
	}
	rows, err := scan(ctx, afterKey, LiveSeq, limit+1)
	if err != nil || len(rows) <= limit {
		return entryObjects(rows), "", err
	}
	// Row limit+1 is there: something follows the page. When it is of the
	// page's last key, the rest of that key joins the page, and whatever
	// follows it decides next.
	page, last := rows[:limit], rows[limit-1]
	for more := rows[limit:]; ; {
		if more[0].Key != last.Key {
			return entryObjects(page), last.Key, nil
		}
		i := 0
		for i < len(more) && more[i].Key == last.Key {
			i++
		}
		page = append(page, more[:i]...)
		if i < len(more) {
			return entryObjects(page), last.Key, nil
		}
		if more, err = scan(ctx, last.Key, page[len(page)-1].Seq, limit+1); err != nil {
			return nil, "", err
		}
		if len(more) == 0 {
			return entryObjects(page), "", nil
		}
	}
}

func entryObjects(es []PendingEntry) []Object {
	out := make([]Object, len(es))
	for i, e := range es {
		out[i] = e.Object
	}
	return out
}
