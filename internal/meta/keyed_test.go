package meta_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

// keyedEntry is an entry of a keyed listing: n-th of its key.
type keyedEntry struct {
	key string
	n   int
}

// TestListKeyed walks a listing of several entries per key, with and
// without a delimiter, page by page at every limit, and checks the pages
// join up to the whole listing exactly once, ending.
func TestListKeyed(t *testing.T) {
	keys := []string{"a", "a/1", "a/2", "a/b/c", "b", "c/d", "c/e", "d"}
	var all []keyedEntry
	for _, k := range keys {
		for n := range 3 {
			all = append(all, keyedEntry{k, n})
		}
	}
	// pos is an index into all; a key's first entry is At.
	scan := func(_ context.Context, pos int, end string, limit int) ([]keyedEntry, error) {
		var out []keyedEntry
		for i := pos; i < len(all) && len(out) < limit; i++ {
			if end != "" && all[i].key >= end {
				break
			}
			out = append(out, all[i])
		}
		return out, nil
	}
	index := func(e keyedEntry) int { return slices.Index(all, e) }
	at := func(key string) int { return sort.Search(len(all), func(i int) bool { return all[i].key >= key }) }
	// rolledUp is scan rolling the entries of a common prefix up to its
	// first, as a skip scan does.
	rolledUp := func(delim string) meta.KeyedScan[keyedEntry, int] {
		return func(_ context.Context, pos int, end string, limit int) ([]keyedEntry, error) {
			var out []keyedEntry
			for i := pos; i < len(all) && len(out) < limit; i++ {
				if end != "" && all[i].key >= end {
					break
				}
				out = append(out, all[i])
				if cp, ok := meta.CommonPrefixOf(all[i].key, "", delim); ok {
					i = at(meta.PrefixEnd(cp)) - 1
				}
			}
			return out, nil
		}
	}
	for _, c := range []struct {
		delim  string
		rolled bool
	}{{"", false}, {"/", false}, {"/", true}} {
		delim := c.delim
		var want []string
		seen := map[string]bool{}
		for _, e := range all {
			if cp, ok := meta.CommonPrefixOf(e.key, "", delim); ok {
				if !seen[cp] {
					want = append(want, cp)
				}
				seen[cp] = true
				continue
			}
			want = append(want, fmt.Sprintf("%s#%d", e.key, e.n))
		}
		for limit := 1; limit <= len(all)+1; limit++ {
			l := meta.KeyedList[keyedEntry, int]{Delimiter: delim, Limit: limit, Scan: scan,
				Key: func(e keyedEntry) string { return e.key }, After: func(e keyedEntry) int { return index(e) + 1 }, At: at}
			if c.rolled {
				l.Scan, l.RolledUp = rolledUp(delim), true
			}
			var got []string
			from := 0
			for pages := 0; ; pages++ {
				if pages > len(all) {
					t.Fatalf("delimiter %q (rolled up %v) limit %d: the walk does not end", delim, c.rolled, limit)
				}
				p, err := meta.ListKeyed(context.Background(), l, from)
				if err != nil {
					t.Fatal(err)
				}
				if n := len(p.Entries) + len(p.CommonPrefixes); n > limit || p.Truncated && n != limit {
					t.Fatalf("delimiter %q (rolled up %v) limit %d: a page of %d items (truncated %v)", delim, c.rolled, limit, n, p.Truncated)
				}
				// Entries and prefixes merge in key order.
				var items []string
				for _, e := range p.Entries {
					items = append(items, fmt.Sprintf("%s#%d", e.key, e.n))
				}
				items = append(items, p.CommonPrefixes...)
				slices.Sort(items)
				got = append(got, items...)
				if !p.Truncated {
					break
				}
				if p.LastPrefix != "" {
					from = at(meta.PrefixEnd(p.LastPrefix))
				} else {
					from = index(p.Entries[len(p.Entries)-1]) + 1
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("delimiter %q (rolled up %v) limit %d: walk %q\nwant %q", delim, c.rolled, limit, got, want)
			}
		}
	}
}
