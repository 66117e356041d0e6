package sqlite

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/meta/metatest"
)

func openTemp(t testing.TB) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "meta.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s, path
}

// TestConformance runs the shared suite. Durability is not what it tests
// (TestPragmas checks synchronous=FULL), so the writer skips fsync here: that
// takes the 100,000 sequential commits of List/Large from ~30 s or more
// (depending on the disk) to ~10 s.
func TestConformance(t *testing.T) {
	metatest.Run(t, func(t *testing.T) meta.Store {
		s, _ := openTemp(t)
		if _, err := s.w.ExecContext(t.Context(), "PRAGMA synchronous = OFF"); err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestJournalModeWAL(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	mode, err := s.JournalMode(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Errorf("JournalMode = %q, want wal", mode)
	}
}

func TestPragmas(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	ctx := t.Context()
	for _, c := range []struct {
		name       string
		db         querier
		mmap, size string
	}{
		{"writer", s.w, "0", strconv.Itoa(-writerCacheKiB)}, // ADR 0017
		{"reader", s.r, "1073741824", "-2000"},              // ADR 0005; SQLite's default cache
	} {
		for pragma, want := range map[string]string{
			"foreign_keys": "1",
			"journal_mode": "wal",
			"synchronous":  "2", // FULL
			"mmap_size":    c.mmap,
			"cache_size":   c.size,
		} {
			var got string
			if err := c.db.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
				t.Fatalf("%s PRAGMA %s: %v", c.name, pragma, err)
			}
			if got != want {
				t.Errorf("%s: PRAGMA %s = %s, want %s", c.name, pragma, got, want)
			}
		}
	}
	var ckpt int
	if err := s.w.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&ckpt); err != nil || ckpt != walCheckpointPages {
		t.Errorf("writer wal_autocheckpoint = %d, %v; want %d (ADR 0015)", ckpt, err, walCheckpointPages)
	}
	var qo string
	if err := s.r.QueryRowContext(ctx, "PRAGMA query_only").Scan(&qo); err != nil || qo != "1" {
		t.Errorf("reader query_only = %q, %v; want 1", qo, err)
	}
	if _, err := s.r.ExecContext(ctx, "INSERT INTO buckets (name, region, owner, created_at) VALUES ('x', '', '', 0)"); err == nil {
		t.Error("the read pool accepted a write")
	}
}

func TestForeignKeysEnforced(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	_, err := s.w.ExecContext(t.Context(), `INSERT INTO objects
		(bucket_id, key, version_id, is_latest, size, etag, mtime) VALUES (4242, 'k', 'null', 1, 0, '', 0)`)
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "foreign key") {
		t.Errorf("insert of an object in no bucket: err = %v, want a FOREIGN KEY constraint failure", err)
	}
}

func TestReopenKeepsDataAndSchema(t *testing.T) {
	ctx := t.Context()
	s, path := openTemp(t)
	b := meta.Bucket{Name: "keep", Region: "r", Owner: "o", CreatedAt: meta.Now()}
	if err := s.CreateBucket(ctx, b); err != nil {
		t.Fatal(err)
	}
	o := meta.Object{Bucket: "keep", Key: "k", BlobID: "blob-1", Size: 3, ETag: "e", LastModified: meta.Now(),
		UserMeta: map[string]string{"a": "b"}}
	if _, err := s.PutObject(ctx, o, meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	version := func(s *Store) int {
		var v int
		if err := s.w.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil || len(names) == 0 {
		t.Fatalf("no migrations: %v", err)
	}
	if v := version(s); v != len(names) {
		t.Errorf("user_version = %d after the first open, want %d", v, len(names))
	}
	// Tag the schema: a re-run of the first migration would fail on it
	// (CREATE TABLE buckets exists), and a rewrite would lose the tag.
	if _, err := s.w.ExecContext(ctx, "CREATE TABLE reopen_marker (x)"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	for range 2 {
		s, err = Open(ctx, path)
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		if v := version(s); v != len(names) {
			t.Errorf("user_version = %d after reopen, want %d", v, len(names))
		}
		var n int
		if err := s.r.QueryRowContext(ctx, "SELECT count(*) FROM reopen_marker").Scan(&n); err != nil {
			t.Errorf("marker table gone after reopen: %v", err)
		}
		got, err := s.GetBucket(ctx, "keep")
		if err != nil || got.Owner != "o" || !got.CreatedAt.Equal(b.CreatedAt) {
			t.Errorf("bucket after reopen = %+v, %v", got, err)
		}
		obj, err := s.GetObject(ctx, "keep", "k", "")
		if err != nil || obj.BlobID != "blob-1" || obj.UserMeta["a"] != "b" || !obj.LastModified.Equal(o.LastModified) {
			t.Errorf("object after reopen = %+v, %v", obj, err)
		}
		if mode, err := s.JournalMode(ctx); err != nil || mode != "wal" {
			t.Errorf("JournalMode after reopen = %q, %v", mode, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOpenRejectsNewerSchema(t *testing.T) {
	ctx := t.Context()
	s, path := openTemp(t)
	if _, err := s.w.ExecContext(ctx, "PRAGMA user_version = 999"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err := Open(ctx, path)
	if err == nil {
		s.Close()
		t.Fatal("Open accepted a database from a newer jog")
	}
	if !strings.Contains(err.Error(), "newer") {
		t.Errorf("Open: %v", err)
	}
}

func TestClosedStore(t *testing.T) {
	s, _ := openTemp(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := s.GetBucket(t.Context(), "x")
	if err == nil || errors.Is(err, meta.ErrBucketNotFound) {
		t.Errorf("GetBucket on a closed store: err = %v, want a real error", err)
	}
}

// TestInlineRowsFreed: overwriting or deleting an inline object removes its
// inline_data row in the same transaction, so the table never leaks.
func TestInlineRowsFreed(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	ctx := t.Context()
	if err := s.CreateBucket(ctx, meta.Bucket{Name: "b", Region: "r", CreatedAt: meta.Now()}); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		var n int
		if err := s.r.QueryRowContext(ctx, "SELECT count(*) FROM inline_data").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	o := meta.Object{Bucket: "b", Key: "k", Inline: []byte("abc"), Size: 3, ETag: "e", LastModified: meta.Now()}
	for range 3 {
		if _, err := s.PutObject(ctx, o, meta.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(); n != 1 {
		t.Errorf("after 3 overwrites: %d inline rows, want 1", n)
	}
	if _, err := s.PutObject(ctx, o, meta.Condition{IfNoneMatchAny: true}); !errors.Is(err, meta.ErrPreconditionFailed) {
		t.Fatalf("conditional put: %v", err)
	}
	if n := count(); n != 1 {
		t.Errorf("after a refused write: %d inline rows, want 1", n)
	}
	if _, err := s.DeleteObject(ctx, "b", "k", "", meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Errorf("after delete: %d inline rows, want 0", n)
	}
}
