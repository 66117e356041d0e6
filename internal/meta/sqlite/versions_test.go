package sqlite

import (
	"context"
	"database/sql"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

// TestMigrateVersions: migration 0006 moves the noncurrent rows older
// stores kept in objects into object_versions, oldest first, and marks
// their bucket.
func TestMigrateVersions(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "meta.db")
	db, err := sql.Open("sqlite", dsn(path, false, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := migrateTo(ctx, db, 5, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"INSERT INTO buckets (id, name, region, owner, created_at) VALUES (1, 'b', '', '', 0), (2, 'plain', '', '', 0)",
		`INSERT INTO objects (bucket_id, key, version_id, is_latest, blob_id, size, etag, mtime, parent) VALUES
			(1, 'd/k', 'v3', 1, 'b3', 3, 'e3', 3000, 'd/'),
			(1, 'd/k', 'v1', 0, 'b1', 1, 'e1', 1000, 'd/'),
			(1, 'd/k', 'v2', 0, 'b2', 2, 'e2', 2000, 'd/'),
			(2, 'x', 'null', 1, 'bx', 1, 'ex', 1000, '')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	page, err := s.ListObjectVersions(ctx, "b", meta.ListVersionsOptions{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range page.Versions {
		got = append(got, v.Key+"@"+v.VersionID)
	}
	if want := []string{"d/k@v3", "d/k@v2", "d/k@v1"}; !slices.Equal(got, want) || !page.Versions[0].IsLatest || page.Versions[1].IsLatest {
		t.Errorf("versions after the migration = %q (%+v), want %q", got, page.Versions, want)
	}
	if o, err := s.GetObject(ctx, "b", "d/k", "v1"); err != nil || o.BlobID != "b1" {
		t.Errorf("GetObject(v1) = %+v, %v", o, err)
	}
	for name, want := range map[string]bool{"b": true, "plain": false} {
		b, err := bucketRow(ctx, s.rd, name)
		if err != nil || b.versions != want {
			t.Errorf("bucket %s: has_versions %v, %v; want %v", name, b.versions, err, want)
		}
	}
	// The live view is what it was.
	lp, err := s.ListObjects(ctx, "b", meta.ListOptions{Limit: 10})
	if err != nil || len(lp.Objects) != 1 || lp.Objects[0].Key != "d/k" || lp.Objects[0].Size != 3 {
		t.Errorf("ListObjects = %+v, %v", lp, err)
	}
	unref, err := s.UnreferencedBlobs(ctx, []string{"b1", "b2", "b3", "gone"})
	if err != nil || !slices.Equal(unref, []string{"gone"}) {
		t.Errorf("UnreferencedBlobs = %q, %v", unref, err)
	}
}

// TestVersionsQueryPlan pins the shape of the version listing: a merge of
// the two primary-key scans, not a sort of every row after the marker.
func TestVersionsQueryPlan(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	wantMerge(t, queryPlan(t, s, versionsQuery, 1, "a", 5, "", 10), "SEARCH objects USING PRIMARY KEY (bucket_id=? AND key>?)",
		"SEARCH object_versions USING PRIMARY KEY (bucket_id=? AND key>?)")
}

// queryPlan is the details of SQLite's query plan of q.
func queryPlan(t *testing.T, s *Store, q string, args ...any) []string {
	t.Helper()
	var plan []string
	err := queryEach(t.Context(), s.rd, "EXPLAIN QUERY PLAN "+q, args, func(rows *sql.Rows) error {
		var id, parent, unused any
		var detail string
		err := rows.Scan(&id, &parent, &unused, &detail)
		plan = append(plan, detail)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// wantMerge checks that plan merges two ordered scans, the searches
// given, and does not sort their result.
func wantMerge(t *testing.T, plan []string, searches ...string) {
	t.Helper()
	for _, want := range append([]string{"MERGE (UNION ALL)"}, searches...) {
		if !slices.Contains(plan, want) {
			t.Errorf("plan %q lacks %q", plan, want)
		}
	}
	if slices.Contains(plan, "USE TEMP B-TREE FOR ORDER BY") {
		t.Errorf("plan %q sorts the whole result", plan)
	}
}
