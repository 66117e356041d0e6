package postgres

import (
	"slices"
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

// TestCheckVersions: rows that break ADR 0012's rules, written by SQL
// behind the store's back, are each reported; a sound bucket is not.
func TestCheckVersions(t *testing.T) {
	s := openFresh(t)
	defer s.Close()
	ctx := t.Context()
	ok := rawBucket(t, s, "ok")
	bad := rawBucket(t, s, "bad")
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := s.pool.Exec(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	const obj = "INSERT INTO objects (bucket_id, key, version_id, size, etag, mtime) VALUES ($1, $2, $3, 1, 'e', 0)"
	const ver = "INSERT INTO object_versions (bucket_id, key, seq, version_id, is_latest, delete_marker, size, etag, mtime) VALUES ($1, $2, $3, $4, $5, $6, 0, '', 0)"
	// Sound: a live version over a noncurrent one, a latest marker over one.
	for _, id := range []int64{ok, bad} {
		exec(obj, id, "live", "v2")
		exec(ver, id, "live", 1, "v1", false, false)
		exec(ver, id, "gone", 1, "v1", false, false)
		exec(ver, id, "gone", 2, "m2", true, true)
	}
	exec(ver, bad, "a", 1, "v1", true, false)       // a noncurrent version flagged latest
	exec(ver, bad, "live", 2, "m3", true, true)     // a latest marker beside a live version
	exec(ver, bad, "gone", 3, "v3", false, false)   // the latest marker is not the newest
	exec(ver, bad, "orphan", 1, "v1", false, false) // no latest version
	exec(ver, bad, "live", 3, "v2", false, false)   // v2 both live and noncurrent
	exec("INSERT INTO object_locks (bucket_id, key, version_id, mode) VALUES ($1, 'nothing', 'v9', 'GOVERNANCE')", bad)
	var got []meta.VersionProblem
	if err := s.CheckVersions(ctx, func(p meta.VersionProblem) { got = append(got, p) }); err != nil {
		t.Fatal(err)
	}
	want := []meta.VersionProblem{
		{Bucket: "bad", Key: "a", VersionID: "v1", Detail: "a noncurrent version flagged latest"},
		{Bucket: "bad", Key: "live", VersionID: "m3", Detail: "a latest delete marker beside a live version"},
		{Bucket: "bad", Key: "gone", VersionID: "m2", Detail: "the latest delete marker is not the newest version"},
		{Bucket: "bad", Key: "live", VersionID: "m3", Detail: "the latest delete marker is not the newest version"},
		{Bucket: "bad", Key: "orphan", VersionID: "", Detail: "noncurrent versions without a latest one (no live version, no latest delete marker)"},
		{Bucket: "bad", Key: "live", VersionID: "v2", Detail: "a version ID both live and noncurrent"},
		{Bucket: "bad", Key: "nothing", VersionID: "v9", Detail: "a lock on no version"},
	}
	key := func(p meta.VersionProblem) string {
		return p.Bucket + "\x00" + p.Detail + "\x00" + p.Key + "\x00" + p.VersionID
	}
	sortProblems := func(ps []meta.VersionProblem) {
		slices.SortFunc(ps, func(a, b meta.VersionProblem) int {
			if key(a) < key(b) {
				return -1
			}
			if key(a) > key(b) {
				return 1
			}
			return 0
		})
	}
	sortProblems(got)
	sortProblems(want)
	if !slices.Equal(got, want) {
		t.Errorf("CheckVersions found\n%+v\nwant\n%+v", got, want)
	}
}

// TestCheckIndexes: a bucket with a quota whose recorded usage is not the
// sum of its versions is reported, and repaired when asked; buckets
// without a quota keep no usage and are not checked.
func TestCheckIndexes(t *testing.T) {
	s := openFresh(t)
	defer s.Close()
	ctx := t.Context()
	q := rawBucket(t, s, "q")
	free := rawBucket(t, s, "free")
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := s.pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec("UPDATE buckets SET quota_bytes = 1000 WHERE id = $1", q)
	rawKeys(t, s, q, []string{"abc", "de"})   // 5 bytes, counted by the triggers
	rawKeys(t, s, free, []string{"abcdefgh"}) // not counted
	check := func(repair bool) []meta.IndexProblem {
		t.Helper()
		var got []meta.IndexProblem
		if err := s.CheckIndexes(ctx, repair, func(p meta.IndexProblem) { got = append(got, p) }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := check(false); len(got) != 0 {
		t.Fatalf("a sound store: %+v", got)
	}
	exec("UPDATE buckets SET used_bytes = 7 WHERE id = $1", q)
	want := meta.IndexProblem{Bucket: "q", Name: "usage", Detail: "recorded usage 7 bytes, its versions sum to 5"}
	if got := check(false); len(got) != 1 || got[0] != want {
		t.Errorf("CheckIndexes = %+v, want %+v", got, want)
	}
	want.Repaired = true
	if got := check(true); len(got) != 1 || got[0] != want {
		t.Errorf("CheckIndexes with repair = %+v, want %+v", got, want)
	}
	var used int64
	if err := s.pool.QueryRow(ctx, "SELECT used_bytes FROM buckets WHERE id = $1", q).Scan(&used); err != nil || used != 5 {
		t.Errorf("used_bytes after the repair = %d, %v; want 5", used, err)
	}
	if got := check(false); len(got) != 0 {
		t.Errorf("after the repair: %+v", got)
	}
}
