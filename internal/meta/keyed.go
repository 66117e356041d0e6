package meta

import "context"

// KeyedScan reads up to limit entries in listing order (key, then the
// backend's order within a key) from position pos on, below end ("" means
// no bound).
type KeyedScan[T, P any] func(ctx context.Context, pos P, end string, limit int) ([]T, error)

// KeyedList describes a listing of entries of which several may share a
// key (versions, uploads), paged by a key marker and a position within the
// key, grouped into common prefixes by Prefix and Delimiter.
type KeyedList[T, P any] struct {
	Prefix, Delimiter string
	Limit             int // entries + common prefixes, >= 1
	Scan              KeyedScan[T, P]
	Key               func(T) string // an entry's key
	After             func(T) P      // the position just after an entry
	At                func(key string) P
	// At is the position of key's first entry (where a listing from a
	// prefix, or past a common prefix, starts).

	// RolledUp says Scan rolls entries up as it reads: of the entries
	// under one common prefix it returns only the first, and goes on past
	// the prefix (a skip scan inside one query), where ListKeyed otherwise
	// scans afresh from the end of each common prefix.
	RolledUp bool
}

// KeyedPage is one page of a KeyedList. When Truncated, the next page
// starts after the last item: LastPrefix when it was a common prefix, else
// Entries' last.
type KeyedPage[T any] struct {
	Entries        []T
	CommonPrefixes []string
	Truncated      bool
	LastPrefix     string
}

// keyedBatch bounds one scan; the first after a common prefix is smaller,
// as in list: the entries of the group after its first are thrown away.
const keyedBatch = 1000

// ListKeyed pages l from position from (see KeyedList): one scan per
// batch, and a fresh one from the end of each common prefix.
func ListKeyed[T, P any](ctx context.Context, l KeyedList[T, P], from P) (KeyedPage[T], error) {
	var page KeyedPage[T]
	end := PrefixEnd(l.Prefix)
	pos := from
	count, size := 0, keyedBatch
	if l.Delimiter != "" && !l.RolledUp {
		size = skipBatch
	}
	for {
		batch := min(l.Limit-count+1, size)
		rows, err := l.Scan(ctx, pos, end, batch)
		if err != nil {
			return KeyedPage[T]{}, err
		}
		next := "" // the key after a common prefix, once one was met
		skipped := false
		for _, e := range rows {
			if count == l.Limit {
				page.Truncated = true
				return page, nil
			}
			count++
			if cp, grouped := commonPrefix(l.Key(e), l.Prefix, l.Delimiter); grouped {
				page.CommonPrefixes = append(page.CommonPrefixes, cp)
				page.LastPrefix = cp
				next, skipped = PrefixEnd(cp), true
				if next == "" {
					return page, nil // nothing can follow the group
				}
				pos = l.At(next)
				if l.RolledUp {
					continue // the next row is past the group already
				}
				break
			}
			page.Entries = append(page.Entries, e)
			page.LastPrefix = ""
			pos = l.After(e)
		}
		if l.RolledUp {
			skipped = false // the batch was read to its end
		}
		if skipped && end != "" && next >= end {
			return page, nil // nothing can follow the group
		}
		if !skipped && len(rows) < batch {
			return page, nil
		}
		if skipped {
			size = skipBatch
		} else {
			size = min(2*size, keyedBatch)
		}
	}
}
