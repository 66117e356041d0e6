package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

// TestCheckUsage: CheckIndexes (jog fsck) finds a recorded usage that
// differs from the sum over the bucket's versions, and the repair
// recomputes it.
func TestCheckUsage(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	ctx := t.Context()
	for _, b := range []string{"u1", "u2"} {
		if err := s.CreateBucket(ctx, meta.Bucket{Name: b, CreatedAt: meta.Now()}); err != nil {
			t.Fatal(err)
		}
		for i, size := range []int64{10, 200, 3000} {
			o := meta.Object{Bucket: b, Key: fmt.Sprint("k", i), BlobID: fmt.Sprint(b, i), Size: size, ETag: "e", LastModified: meta.Now()}
			if _, err := s.PutObject(ctx, o, meta.Condition{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(repair bool) []string {
		t.Helper()
		var out []string
		if err := s.CheckIndexes(ctx, repair, func(p meta.IndexProblem) {
			out = append(out, fmt.Sprintf("%s %s: %s (repaired %v)", p.Bucket, p.Name, p.Detail, p.Repaired))
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := check(false); len(got) != 0 {
		t.Fatalf("a clean store: %q", got)
	}
	if _, err := s.w.ExecContext(ctx, "UPDATE buckets SET used_bytes = 5 WHERE name = 'u2'"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(ctx, "UPDATE buckets SET object_count = 4 WHERE name = 'u1'"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"u1 usage: recorded usage 3210 bytes in 4 objects, its rows hold 3210 bytes in 3 objects (repaired false)",
		"u2 usage: recorded usage 5 bytes in 3 objects, its rows hold 3210 bytes in 3 objects (repaired false)",
	}
	if got := check(false); !slices.Equal(got, want) {
		t.Fatalf("found %q, want %q", got, want)
	}
	if got := check(true); len(got) != 2 {
		t.Fatalf("repair found %q", got)
	}
	if got := check(false); len(got) != 0 {
		t.Fatalf("after the repair: %q", got)
	}
	for _, b := range []string{"u1", "u2"} {
		if u, err := s.BucketUsage(ctx, b); err != nil || u != (meta.Usage{Bytes: 3210, Objects: 3}) {
			t.Errorf("usage of %s after the repair: %+v, %v", b, u, err)
		}
	}
}

// TestMigrateUsage opens a database of schema version 14 (before quotas)
// holding live and noncurrent versions, and checks that migrations 0015
// and 0016 fill each bucket's usage with their sum and its object count
// with its live keys, and that the triggers keep both from then on.
func TestMigrateUsage(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "meta.db")
	db, err := sql.Open("sqlite", dsn(path, false, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := migrateTo(ctx, db, 14, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"INSERT INTO buckets (id, name, region, owner, created_at) VALUES (1, 'm1', '', '', 0), (2, 'm2', '', '', 0), (3, 'm3', '', '', 0)",
		"UPDATE buckets SET versioning = 'Enabled', has_versions = 1 WHERE id = 2",
		`INSERT INTO objects (bucket_id, key, version_id, is_latest, size, etag, mtime) VALUES
			(1, 'a', 'null', 1, 100, 'e', 0), (1, 'b', 'null', 1, 23, 'e', 0), (2, 'a', 'v2', 1, 7, 'e', 0)`,
		`INSERT INTO object_versions (bucket_id, key, seq, version_id, is_latest, delete_marker, size, etag, mtime, owner) VALUES
			(2, 'a', 1, 'v1', 0, 0, 1000, 'e', 0, ''), (2, 'b', 2, 'm1', 1, 1, 0, '', 0, '')`,
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
	for b, want := range map[string]meta.Usage{"m1": {Bytes: 123, Objects: 2}, "m2": {Bytes: 1007, Objects: 1}, "m3": {}} {
		if got, err := s.BucketUsage(ctx, b); err != nil || got != want {
			t.Errorf("BucketUsage(%s) after the migration = %+v, %v; want %+v", b, got, err, want)
		}
	}
	if _, err := s.DeleteObject(ctx, "m2", "a", "v1", meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.BucketUsage(ctx, "m2"); got != (meta.Usage{Bytes: 7, Objects: 1}) {
		t.Errorf("after deleting the noncurrent version: %+v, want 7 bytes in 1 object", got)
	}
}
