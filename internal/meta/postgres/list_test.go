package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/meta/metatest"
)

// rawBucket creates a bucket by SQL and returns its ID: the listing tests
// fill tables directly, without the write path.
func rawBucket(t *testing.T, s *Store, name string) int64 {
	t.Helper()
	var id int64
	if err := s.pool.QueryRow(t.Context(), "INSERT INTO buckets (name, region, owner, created_at) VALUES ($1, 'r', 'o', 0) RETURNING id",
		name).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// rawKeys inserts a live object per key into bucket id, in one statement.
func rawKeys(t *testing.T, s *Store, id int64, keys []string) {
	t.Helper()
	if _, err := s.pool.Exec(t.Context(), `INSERT INTO objects (bucket_id, key, version_id, size, etag, mtime)
		SELECT $1, k, 'null', length(k), 'etag-' || k, 0 FROM unnest($2::text[]) AS k`, id, keys); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(t.Context(), "ANALYZE objects"); err != nil {
		t.Fatal(err)
	}
}

// prefixKeys is 10,000 keys in 1,000 common prefixes under "/" (ten keys
// each, one of them a level deeper), and a key beside every tenth prefix.
func prefixKeys() []string {
	var keys []string
	for p := range 1000 {
		for k := range 9 {
			keys = append(keys, fmt.Sprintf("d%03d/f%d", p, k))
		}
		keys = append(keys, fmt.Sprintf("d%03d/sub/x", p))
		if p%10 == 0 {
			keys = append(keys, fmt.Sprintf("d%03d", p))
		}
	}
	return keys
}

// TestListDelimiterPages walks a delimited listing of 10,000 keys in 1,000
// common prefixes page by page, checking every page against the reference
// model, from the start and from markers inside and beside the groups.
func TestListDelimiterPages(t *testing.T) {
	s := openFresh(t)
	defer s.Close()
	keys := prefixKeys()
	rawKeys(t, s, rawBucket(t, s, "b"), keys)
	for _, opts := range []meta.ListOptions{
		{Delimiter: "/", Limit: 1000},
		{Delimiter: "/", Limit: 100},
		{Delimiter: "/", Limit: 7},
		{Delimiter: "/", Limit: 100, After: "d499/f4"},
		{Delimiter: "/", Limit: 100, After: "d499/"},
		{Delimiter: "/", Limit: 100, Prefix: "d5"},
		{Delimiter: "/", Limit: 3, Prefix: "d512/"},
		{Delimiter: "/f", Limit: 50, Prefix: "d01"},
		{Delimiter: "1", Limit: 100},
	} {
		want := metatest.ReferenceItems(keys, opts.Prefix, opts.Delimiter, opts.After)
		var got []metatest.Item
		for pages := 0; ; pages++ {
			if pages > len(want)/opts.Limit+1 {
				t.Fatalf("%+v: more than %d pages", opts, pages)
			}
			page, err := s.ListObjects(t.Context(), "b", opts)
			if err != nil {
				t.Fatal(err)
			}
			if ref := metatest.Reference(keys, opts); !samePage(page, ref) {
				t.Fatalf("%+v: page %d\n got %d objects %q…, prefixes %q…, truncated %v\nwant %d objects, prefixes %q…, truncated %v",
					opts, pages, len(page.Objects), head(summaryKeys(page.Objects)), head(page.CommonPrefixes), page.Truncated,
					len(ref.Objects), head(ref.CommonPrefixes), ref.Truncated)
			}
			got = append(got, metatest.PageItems(page)...)
			if !page.Truncated {
				break
			}
			opts.After = page.NextAfter
		}
		if !slices.Equal(got, want) {
			t.Errorf("%+v: walked %d items, want %d", opts, len(got), len(want))
		}
	}
	page, err := s.ListObjects(t.Context(), "b", meta.ListOptions{Delimiter: "/", Limit: 1000})
	if err != nil || len(page.CommonPrefixes) != 909 || len(page.Objects) != 91 || !page.Truncated {
		t.Errorf("first page of 1,000: %d prefixes, %d objects, truncated %v, %v; want 909, 91, true",
			len(page.CommonPrefixes), len(page.Objects), page.Truncated, err)
	}
}

// TestListOddBounds: prefixes, delimiters and markers that are no text
// (invalid UTF-8, NUL, a delimiter ending in U+10FFFF) list what the
// reference model lists.
func TestListOddBounds(t *testing.T) {
	s := openFresh(t)
	defer s.Close()
	keys := []string{"a", "a/1", "a/2", "aé", "aé/x", "a\U0010FFFF", "a\U0010FFFF/y", "a\U0010FFFFb", "b\u00ff", "\U0010FFFF/z", "\x7f/q"}
	rawKeys(t, s, rawBucket(t, s, "b"), keys)
	for _, prefix := range []string{"", "a", "a\xc3", "\xff", "a\x00", "\xf4\x8f\xbf", "\x7f"} {
		for _, delim := range []string{"", "/", "\xa9", "\x00", "\U0010FFFF", "\xbf/", "é"} {
			for _, after := range []string{"", "a\xc3", "a/1", "a\U0010FFFF\xff", "\xff", "a\x00"} {
				for _, limit := range []int{1, 2, 100} {
					opts := meta.ListOptions{Prefix: prefix, Delimiter: delim, After: after, Limit: limit}
					for pages := 0; pages < 20; pages++ {
						page, err := s.ListObjects(t.Context(), "b", opts)
						if err != nil {
							t.Fatalf("%+q: %v", fmt.Sprintf("%+v", opts), err)
						}
						if ref := metatest.Reference(keys, opts); !samePage(page, ref) {
							t.Fatalf("ListObjects(%+q)\n got %+q %+q %v\nwant %+q %+q %v", fmt.Sprintf("%+v", opts),
								summaryKeys(page.Objects), page.CommonPrefixes, page.Truncated,
								summaryKeys(ref.Objects), ref.CommonPrefixes, ref.Truncated)
						}
						if !page.Truncated {
							break
						}
						opts.After = page.NextAfter
					}
				}
			}
		}
	}
}

// TestListGroupedPlan: every step of the delimited walk is one seek of the
// primary key (an index condition on the key, no filter, no sequential
// scan), and a page of 100 items takes about 100 of them, however many
// keys its common prefixes hold.
func TestListGroupedPlan(t *testing.T) {
	s := openFresh(t)
	defer s.Close()
	id := rawBucket(t, s, "b")
	rawKeys(t, s, id, prefixKeys())
	const limit = 101
	args := groupedArgs(id, "", limit, "", "/", "0")
	scans := explainScans(t, s, groupedQuery(false), args...)
	if len(scans) != 2 {
		t.Fatalf("%d scans of objects, want 2 (the first key, the steps)", len(scans))
	}
	loops := 0.0
	for _, n := range scans {
		typ, _ := n["Node Type"].(string)
		cond, _ := n["Index Cond"].(string)
		if n["Index Name"] != "objects_pkey" || !strings.HasPrefix(typ, "Index") || !strings.Contains(cond, "key >=") || n["Filter"] != nil {
			t.Errorf("a scan of objects is %s on %v, index condition %q, filter %v; want a seek of objects_pkey",
				typ, n["Index Name"], cond, n["Filter"])
		}
		loops += n["Actual Loops"].(float64)
	}
	if loops != limit {
		t.Errorf("%v seeks for a page of %d items", loops, limit)
	}
}

// TestListVersionsPlan: a page of versions (a listing's, ScanObjects')
// reads about a page of rows of each table, in key order from an index,
// whatever follows it.
func TestListVersionsPlan(t *testing.T) {
	s := openFresh(t)
	defer s.Close()
	id := rawBucket(t, s, "b")
	keys := prefixKeys()
	rawKeys(t, s, id, keys)
	if _, err := s.pool.Exec(t.Context(), `INSERT INTO object_versions (bucket_id, key, seq, version_id, size, etag, mtime)
		SELECT $1, k, g, 'v' || g, 1, 'e', 0 FROM unnest($2::text[]) AS k, generate_series(1, 5) AS g`, id, keys); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(t.Context(), "ANALYZE object_versions"); err != nil {
		t.Fatal(err)
	}
	const limit = 1001
	for _, c := range []struct {
		what string
		q    string
		args []any
	}{
		{"versions", versionsQuery(false), []any{id, "d100/f1", int64(3), limit}},
		{"versions below a bound", versionsQuery(true), []any{id, "d100/f1", int64(3), limit, "e"}},
		{"ScanObjects", scanQuery, []any{id, "d100/f1", "v3", limit}},
	} {
		for _, n := range explainScans(t, s, c.q, c.args...) {
			typ, _ := n["Node Type"].(string)
			if !strings.HasPrefix(typ, "Index") || n["Actual Rows"].(float64) > 2*limit {
				t.Errorf("%s: %s of %v read %v rows for a page of %d", c.what, typ, n["Relation Name"], n["Actual Rows"], limit)
			}
		}
	}
}

// explainScans runs EXPLAIN ANALYZE of q and returns its plan's scans of
// objects and object_versions.
func explainScans(t *testing.T, s *Store, q string, args ...any) []map[string]any {
	t.Helper()
	var raw []byte
	if err := s.pool.QueryRow(t.Context(), "EXPLAIN (ANALYZE, FORMAT JSON) "+q, args...).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	var plan []map[string]any
	if err := json.Unmarshal(raw, &plan); err != nil {
		t.Fatal(err)
	}
	var scans []map[string]any
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		if r := n["Relation Name"]; r == "objects" || r == "object_versions" {
			scans = append(scans, n)
		}
		children, _ := n["Plans"].([]any)
		for _, c := range children {
			walk(c.(map[string]any))
		}
	}
	walk(plan[0]["Plan"].(map[string]any))
	if len(scans) == 0 {
		t.Fatalf("no scan in the plan %s", raw)
	}
	return scans
}

func summaryKeys(objs []meta.ObjectSummary) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.Key
	}
	return out
}

func head(s []string) []string { return s[:min(len(s), 5)] }

func samePage(a, b meta.ListPage) bool {
	return slices.Equal(summaryKeys(a.Objects), summaryKeys(b.Objects)) && slices.Equal(a.CommonPrefixes, b.CommonPrefixes) &&
		a.Truncated == b.Truncated && (!a.Truncated || a.NextAfter == b.NextAfter)
}

// TestListVersionsRolledUp: a delimited version listing by the skip scan
// (groupedVersionsQuery) pages exactly as meta.ListVersions over the
// plain merge (versionsQuery), one statement per common prefix, does:
// keys live, with noncurrent versions, under a latest delete marker, at
// every depth, from assorted markers.
func TestListVersionsRolledUp(t *testing.T) {
	s := openFresh(t)
	defer s.Close()
	ctx := t.Context()
	id := rawBucket(t, s, "b")
	keys := []string{"a", "a/1", "a/2", "a/b/c", "a/b/d", "ab", "b/", "b//x", "c", "é/x", "é", "z/z/z"}
	for i, k := range keys {
		if i%3 != 2 { // a live version
			if _, err := s.pool.Exec(ctx, "INSERT INTO objects (bucket_id, key, version_id, size, etag, mtime) VALUES ($1, $2, 'live', 1, 'e', 0)", id, k); err != nil {
				t.Fatal(err)
			}
		}
		for v := 1; v <= i%4; v++ { // noncurrent versions; a latest marker over a key without a live one
			if _, err := s.pool.Exec(ctx, `INSERT INTO object_versions (bucket_id, key, seq, version_id, is_latest, delete_marker, size, etag, mtime)
				VALUES ($1, $2, $3, $4, $5, $5, 0, '', 0)`, id, k, v, fmt.Sprintf("v%d", v), i%3 == 2 && v == i%4); err != nil {
				t.Fatal(err)
			}
		}
	}
	plain := func(opts meta.ListVersionsOptions) (meta.VersionsPage, error) {
		return meta.ListVersions(ctx, opts,
			func(ctx context.Context, key, versionID string) (int64, error) {
				return versionSeq(ctx, s.pool, id, key, versionID)
			},
			func(ctx context.Context, key string, seq int64, end string, limit int) ([]meta.VersionEntry, error) {
				return s.versionRows(ctx, id, key, seq, end, limit, nil)
			}, false)
	}
	walks := 0
	for _, prefix := range []string{"", "a", "a/", "a/b/", "b", "é", "\xc3"} {
		for _, delim := range []string{"/", "b", "//", "é", "/c"} {
			for _, marker := range []meta.ListVersionsOptions{{}, {KeyMarker: "a/"}, {KeyMarker: "a/1"}, {KeyMarker: "a/b/c", VersionIDMarker: "v1"},
				{KeyMarker: "b//x", VersionIDMarker: "live"}, {KeyMarker: "\xff"}} {
				for _, limit := range []int{1, 2, 3, 100} {
					opts := marker
					opts.Prefix, opts.Delimiter, opts.Limit = prefix, delim, limit
					sameWalk(t, opts, func(o meta.ListVersionsOptions) (meta.VersionsPage, error) { return s.ListObjectVersions(ctx, "b", o) },
						plain, func(o *meta.ListVersionsOptions, p meta.VersionsPage) bool {
							o.KeyMarker, o.VersionIDMarker = p.NextKeyMarker, p.NextVersionIDMarker
							return p.Truncated
						})
					walks++
				}
			}
		}
	}
	t.Logf("%d walks", walks)
}

// sameWalk pages a listing from opts two ways, got and want, and fails at
// the first page on which they differ; next sets opts to the page after
// p and reports whether there is one.
func sameWalk[O, P any](t *testing.T, opts O, got, want func(O) (P, error), next func(*O, P) bool) {
	t.Helper()
	for pages := 0; ; pages++ {
		if pages > 30 {
			t.Fatalf("%+q: the walk does not end", fmt.Sprintf("%+v", opts))
		}
		g, err := got(opts)
		w, werr := want(opts)
		if err != nil || werr != nil {
			t.Fatalf("%+q: %v; the other way: %v", fmt.Sprintf("%+v", opts), err, werr)
		}
		if fmt.Sprint(g) != fmt.Sprint(w) {
			t.Fatalf("%+q:\n got %+v\nwant %+v", fmt.Sprintf("%+v", opts), g, w)
		}
		if !next(&opts, g) {
			return
		}
	}
}
