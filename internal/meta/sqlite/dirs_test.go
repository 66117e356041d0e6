package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/meta/metatest"
)

func TestParentOf(t *testing.T) {
	for key, want := range map[string]string{
		"": "", "a": "", "a/": "a/", "/": "/", "a/b": "a/", "a/b/c": "a/b/", "a//b": "a//", "é/x": "é/",
	} {
		if got := parentOf(key); got != want {
			t.Errorf("parentOf(%q) = %q, want %q", key, got, want)
		}
	}
}

// dirRows returns the dirs table as "bucket parent name" lines.
func dirRows(t *testing.T, db *sql.DB) []string {
	t.Helper()
	var out []string
	err := queryEach(t.Context(), db, "SELECT bucket_id, parent, name FROM dirs ORDER BY 1, 2, 3", nil, func(rows *sql.Rows) error {
		var b int64
		var parent, name string
		if err := rows.Scan(&b, &parent, &name); err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%d %q %q", b, parent, name))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rebuild is what the dirs table must hold: every directory above a latest
// key (and every row's parent column must match its key).
func rebuild(t *testing.T, db *sql.DB) []string {
	t.Helper()
	dirs := map[string]bool{}
	err := queryEach(t.Context(), db, "SELECT bucket_id, key, parent, is_latest FROM objects", nil, func(rows *sql.Rows) error {
		var b int64
		var key, parent string
		var latest bool
		if err := rows.Scan(&b, &key, &parent, &latest); err != nil {
			return err
		}
		if parent != parentOf(key) {
			t.Errorf("key %q has parent %q, want %q", key, parent, parentOf(key))
		}
		if latest {
			_ = eachDir(key, func(parent, name string) error {
				dirs[fmt.Sprintf("%d %q %q", b, parent, name)] = true
				return nil
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return slices.Sorted(maps.Keys(dirs))
}

func wantDirs(t *testing.T, db *sql.DB) {
	t.Helper()
	got, want := dirRows(t, db), rebuild(t, db)
	if !slices.Equal(got, want) {
		t.Fatalf("dirs table\n got %q\nwant %q", got, want)
	}
}

// TestDirsTable drives puts, overwrites, versions and deletes over nested
// keys in two buckets and compares the dirs table with one rebuilt from
// the objects.
func TestDirsTable(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	ctx := t.Context()
	for _, b := range []string{"b1", "b2"} {
		if err := s.CreateBucket(ctx, meta.Bucket{Name: b, CreatedAt: meta.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	keys := []string{"a", "a/", "a/b", "a/b/", "a/b/c", "a//x", "/", "/y", "d/e/f/g", "d/e/h", "é/ü/x"}
	now := meta.Now()
	for i := range 600 {
		b, k := fmt.Sprintf("b%d", 1+rng.IntN(2)), keys[rng.IntN(len(keys))]
		var err error
		switch rng.IntN(3) {
		case 0, 1:
			v := meta.NullVersion
			if rng.IntN(3) == 0 {
				v = fmt.Sprintf("v%d", rng.IntN(4))
			}
			now = now.Add(1)
			_, err = s.PutObject(ctx, meta.Object{Bucket: b, Key: k, VersionID: v, ETag: "e", LastModified: now}, meta.Condition{})
		default:
			v := ""
			if rng.IntN(3) == 0 {
				v = fmt.Sprintf("v%d", rng.IntN(4))
			}
			_, err = s.DeleteObject(ctx, b, k, v, meta.Condition{})
		}
		if err != nil {
			t.Fatalf("operation %d on %s/%q: %v", i, b, k, err)
		}
		if i%50 == 0 {
			wantDirs(t, s.w)
		}
	}
	wantDirs(t, s.w)
}

// TestMigrateDirs opens a database of schema version 3 (before the
// directory index) holding objects, and checks that the migration fills
// parent and dirs so that listings by "/" are right.
func TestMigrateDirs(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "meta.db")
	db, err := sql.Open("sqlite", dsn(path, false, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := migrateTo(ctx, db, 3, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for i := range 25_000 { // more than one of fillDirs' pages
		keys = append(keys, fmt.Sprintf("d%02d/e%d/k%05d", i%37, i%3, i))
	}
	keys = append(keys, "top", "x/", "x//y")
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec("INSERT INTO buckets (id, name, region, owner, created_at) VALUES (1, 'b', '', '', 0), (2, 'c', '', '', 0)")
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		// Each key in bucket 1; in bucket 2 a noncurrent version as well.
		for _, r := range []struct {
			bucket  int
			version string
			latest  int
		}{{1, "null", 1}, {2, "null", 1}, {2, "old", 0}} {
			if _, err := tx.ExecContext(ctx, `INSERT INTO objects (bucket_id, key, version_id, is_latest, size, etag, mtime)
				VALUES (?, ?, ?, ?, 0, 'e', 0)`, r.bucket, k, r.version, r.latest); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	db.Close()

	var log bytes.Buffer
	s, err := OpenWith(ctx, path, Options{Log: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, want := range []string{`msg="upgrading the metadata schema" from=3 to=`, `msg="metadata schema migrated" migration=0004_dirs.sql`} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	wantDirs(t, s.w)
	if n := len(dirRows(t, s.w)); n != 2*(37+37*3+2) { // d*/, d*/e*/, x/, x//
		t.Errorf("%d directories, want %d", n, 2*(37+37*3+2))
	}
	slices.Sort(keys)
	for _, opts := range []meta.ListOptions{
		{Delimiter: "/", Limit: 1000},
		{Prefix: "d05/", Delimiter: "/", Limit: 1000},
		{Prefix: "d05/e1/", Delimiter: "/", Limit: 100, After: "d05/e1/k00500"},
		{Prefix: "x/", Delimiter: "/", Limit: 10},
	} {
		page, err := s.ListObjects(ctx, "c", opts)
		if err != nil {
			t.Fatal(err)
		}
		want := metatest.Reference(keys, opts)
		if !slices.Equal(page.CommonPrefixes, want.CommonPrefixes) || len(page.Objects) != len(want.Objects) ||
			page.Truncated != want.Truncated {
			t.Errorf("%+v: got %d objects, prefixes %q; want %d, %q", opts, len(page.Objects), page.CommonPrefixes,
				len(want.Objects), want.CommonPrefixes)
		}
	}
}

// TestCheckIndexes damages the directory index every way it can disagree
// with the objects, and checks that CheckIndexes names each damage and
// that a repair leaves nothing to find.
func TestCheckIndexes(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	ctx := t.Context()
	keys := []string{"a/b/c", "a/b/d", "a/e", "f", "g/h/i/j", "k/"}
	for _, b := range []string{"b1", "b2"} {
		if err := s.CreateBucket(ctx, meta.Bucket{Name: b, CreatedAt: meta.Now()}); err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if _, err := s.PutObject(ctx, meta.Object{Bucket: b, Key: k, ETag: "e", LastModified: meta.Now()}, meta.Condition{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(repair bool) []string {
		t.Helper()
		var out []string
		err := s.CheckIndexes(ctx, repair, func(p meta.IndexProblem) {
			out = append(out, fmt.Sprintf("%s %s: %s (repaired %v)", p.Bucket, p.Name, p.Detail, p.Repaired))
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(out)
		return out
	}
	if got := check(false); len(got) != 0 {
		t.Fatalf("a clean store: %q", got)
	}
	for _, q := range []string{
		"INSERT INTO dirs VALUES (2, '', 'zz/')",
		"INSERT INTO dirs VALUES (2, 'a/b/', 'a/b/x/')",
		"DELETE FROM dirs WHERE bucket_id = 2 AND name = 'g/h/'",
		"UPDATE dirs SET parent = 'q/' WHERE bucket_id = 2 AND name = 'a/b/'",
		"UPDATE objects SET parent = '' WHERE bucket_id = 2 AND key = 'a/e'",
	} {
		if _, err := s.w.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		`b2 a/b/: directory row has parent "q/", want "a/" (repaired false)`,
		`b2 a/b/x/: directory in the index has no key below it (repaired false)`,
		`b2 a/e: parent column is "", want "a/" (repaired false)`,
		`b2 g/h/: directory missing from the index (repaired false)`,
		`b2 zz/: directory in the index has no key below it (repaired false)`,
	}
	if got := check(false); !slices.Equal(got, want) {
		t.Fatalf("found\n %q\nwant\n %q", got, want)
	}
	if got := check(true); len(got) != len(want) || !strings.HasSuffix(got[0], "(repaired true)") {
		t.Fatalf("repair found %q", got)
	}
	if got := check(false); len(got) != 0 {
		t.Fatalf("after the repair: %q", got)
	}
	wantDirs(t, s.w)
	slices.Sort(keys)
	for _, opts := range []meta.ListOptions{{Delimiter: "/", Limit: 10}, {Prefix: "a/", Delimiter: "/", Limit: 10}, {Prefix: "g/", Delimiter: "/", Limit: 10}} {
		page, err := s.ListObjects(ctx, "b2", opts)
		if err != nil {
			t.Fatal(err)
		}
		if want := metatest.Reference(keys, opts); !slices.Equal(page.CommonPrefixes, want.CommonPrefixes) ||
			len(page.Objects) != len(want.Objects) {
			t.Errorf("%+v after the repair: %d objects, prefixes %q; want %d, %q", opts, len(page.Objects), page.CommonPrefixes,
				len(want.Objects), want.CommonPrefixes)
		}
	}
}

// TestQueryPlans pins the plans that listings and writes rely on. With
// objects_latest gone, a planner that ordered the key walk by
// objects_latest_by_dir would sort the whole bucket for every page (a
// prototype of the directory index hit that: 185 ms for 100 keys).
func TestQueryPlans(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	for q, want := range map[string]string{
		// scan (list.go), a page of the walk
		"SELECT " + summaryColumns + " FROM objects WHERE bucket_id = 1 AND is_latest = 1 AND key >= 'a' AND key < 'b' ORDER BY key LIMIT 10": "SEARCH objects USING PRIMARY KEY (bucket_id=? AND key>? AND key<?)",
		// a step of the skip scan (groupedScan)
		"SELECT key FROM objects WHERE bucket_id = 1 AND is_latest = 1 AND key > 'a' ORDER BY key LIMIT 1": "SEARCH objects USING PRIMARY KEY (bucket_id=? AND key>?)",
		// latest (objects.go) and dropKey's check
		"SELECT version_id, etag FROM objects WHERE bucket_id = 1 AND key = 'k' AND is_latest = 1":           "SEARCH objects USING PRIMARY KEY (bucket_id=? AND key=?)",
		"SELECT 1 FROM objects WHERE bucket_id = 1 AND key >= 'a/' AND key < 'a0' AND is_latest = 1 LIMIT 1": "SEARCH objects USING PRIMARY KEY (bucket_id=? AND key>? AND key<?)",
	} {
		plan := queryPlan(t, s, q)
		if len(plan) != 1 || plan[0] != want {
			t.Errorf("%s\n plan %q\n want %q", q, plan, want)
		}
	}
}
