package sqlite

import (
	"fmt"
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
	want := []string{"u2 usage: recorded usage 5 bytes, its versions sum to 3210 (repaired false)"}
	if got := check(false); !slices.Equal(got, want) {
		t.Fatalf("found %q, want %q", got, want)
	}
	if got := check(true); len(got) != 1 {
		t.Fatalf("repair found %q", got)
	}
	if got := check(false); len(got) != 0 {
		t.Fatalf("after the repair: %q", got)
	}
	if used, err := s.BucketUsage(ctx, "u2"); err != nil || used != 3210 {
		t.Errorf("usage after the repair: %d, %v", used, err)
	}
}
