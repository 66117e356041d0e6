package sqlite

import (
	"fmt"
	"slices"
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

// TestCheckVersions breaks each rule of the two version tables (ADR 0012)
// in a bucket that follows them and checks that CheckVersions names each
// break, and nothing in a sound store.
func TestCheckVersions(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	ctx := t.Context()
	if err := s.CreateBucket(ctx, meta.Bucket{Name: "b", CreatedAt: meta.Now(), ObjectLock: true}); err != nil {
		t.Fatal(err)
	}
	put := func(key, id string, marker bool, lock *meta.ObjectLock) {
		t.Helper()
		o := meta.Object{Bucket: "b", Key: key, VersionID: id, DeleteMarker: marker, LastModified: meta.Now(), Lock: lock}
		if !marker {
			o.ETag = "e"
		}
		if _, err := s.PutObject(ctx, o, meta.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	// live: two versions; gone: a version under a latest marker; locked:
	// a held version, overwritten.
	put("live", "1", false, nil)
	put("live", "2", false, nil)
	put("gone", "1", false, nil)
	put("gone", "2", true, nil)
	put("locked", "1", false, &meta.ObjectLock{LegalHold: true})
	put("locked", "2", false, nil)
	put("twice", "1", true, nil)
	put("twice", "2", true, nil)
	check := func() []string {
		t.Helper()
		var out []string
		err := s.CheckVersions(ctx, func(p meta.VersionProblem) {
			out = append(out, fmt.Sprintf("%s %s@%s: %s", p.Bucket, p.Key, p.VersionID, p.Detail))
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(out)
		return out
	}
	if got := check(); len(got) != 0 {
		t.Fatalf("a sound store: %q", got)
	}
	for _, q := range []string{
		"UPDATE objects SET is_latest = 0 WHERE key = 'live'",
		"UPDATE object_versions SET is_latest = 1 WHERE key = 'live'",
		"INSERT INTO object_versions (bucket_id, key, seq, version_id, is_latest, delete_marker, size, etag, mtime)" +
			" VALUES (1, 'locked', 0, '0', 1, 1, 0, '', 0)",
		"UPDATE object_versions SET is_latest = 1 WHERE key = 'twice'",
		"UPDATE object_versions SET is_latest = 0 WHERE key = 'gone'",
		"INSERT INTO object_locks (bucket_id, key, version_id, legal_hold) VALUES (1, 'gone', '2', 1)",
	} {
		if _, err := s.w.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	want := []string{
		"b gone@2: a lock on no version",
		"b gone@: noncurrent versions without a latest one (no live version, no latest delete marker)",
		"b live@1: a latest delete marker beside a live version",
		"b live@1: a noncurrent version flagged latest",
		"b live@2: a live version not flagged latest",
		"b locked@0: a latest delete marker beside a live version",
		"b locked@0: the latest delete marker is not the newest version",
		"b twice@1: the latest delete marker is not the newest version",
		"b twice@: more than one latest delete marker",
	}
	if got := check(); !slices.Equal(got, want) {
		t.Fatalf("found\n %q\nwant\n %q", got, want)
	}
	if _, err := s.w.ExecContext(ctx, "INSERT INTO object_versions (bucket_id, key, seq, version_id, size, etag, mtime)"+
		" VALUES (1, 'live', 9, '2', 0, 'e', 0)"); err != nil {
		t.Fatal(err)
	}
	if got := check(); !slices.Contains(got, "b live@2: a version ID both live and noncurrent") {
		t.Fatalf("a version both live and noncurrent: found %q", got)
	}
}
