package metatest

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

func testBucketsCreateGetList(t *testing.T, s meta.Store) {
	ctx := t.Context()
	bs, err := s.ListBuckets(ctx, meta.ListBucketsOptions{})
	if err != nil || len(bs) != 0 {
		t.Fatalf("ListBuckets on an empty store = %v, %v; want none", bs, err)
	}
	want := []meta.Bucket{
		{Name: "zeta", Region: "eu-west-1", Owner: "AKZ", CreatedAt: t0.Add(3 * time.Millisecond)},
		{Name: "alpha", Region: "us-east-1", Owner: "AKA", CreatedAt: t0},
		{Name: "alpha-2", Region: "", Owner: "", CreatedAt: t0.Add(time.Hour)},
		{Name: "mid.dle", Region: "ap-south-1", Owner: "AKM", CreatedAt: t0.Add(-48 * time.Hour)},
	}
	for _, b := range want {
		if err := s.CreateBucket(ctx, b); err != nil {
			t.Fatalf("CreateBucket(%q): %v", b.Name, err)
		}
	}
	same := func(got, want meta.Bucket) bool {
		return got.Name == want.Name && got.Region == want.Region && got.Owner == want.Owner &&
			got.CreatedAt.Equal(want.CreatedAt)
	}
	for _, b := range want {
		got, err := s.GetBucket(ctx, b.Name)
		if err != nil {
			t.Fatalf("GetBucket(%q): %v", b.Name, err)
		}
		if !same(got, b) {
			t.Errorf("GetBucket(%q) = %+v, want %+v", b.Name, got, b)
		}
	}
	sort.Slice(want, func(i, j int) bool { return want[i].Name < want[j].Name })
	got, err := s.ListBuckets(ctx, meta.ListBucketsOptions{})
	if err != nil {
		t.Fatalf("ListBuckets: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("ListBuckets = %+v, want %+v", got, want)
	}
	for i := range want {
		if !same(got[i], want[i]) {
			t.Errorf("ListBuckets[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}

	if err := errOnly(s.DeleteBucket(ctx, "alpha")); err != nil {
		t.Fatalf("DeleteBucket: %v", err)
	}
	_, err = s.GetBucket(ctx, "alpha")
	wantErr(t, "GetBucket after delete", err, meta.ErrBucketNotFound)
	got, err = s.ListBuckets(ctx, meta.ListBucketsOptions{})
	if err != nil {
		t.Fatalf("ListBuckets: %v", err)
	}
	var names []string
	for _, b := range got {
		names = append(names, b.Name)
	}
	if w := []string{"alpha-2", "mid.dle", "zeta"}; !slices.Equal(names, w) {
		t.Errorf("ListBuckets after delete = %q, want %q", names, w)
	}
}

func testBucketsDuplicate(t *testing.T, s meta.Store) {
	ctx := t.Context()
	first := meta.Bucket{Name: "dup", Region: "r1", Owner: "first", CreatedAt: t0}
	if err := s.CreateBucket(ctx, first); err != nil {
		t.Fatal(err)
	}
	err := s.CreateBucket(ctx, meta.Bucket{Name: "dup", Region: "r2", Owner: "second", CreatedAt: t0.Add(time.Second)})
	wantErr(t, "second CreateBucket", err, meta.ErrBucketExists)
	got, err := s.GetBucket(ctx, "dup")
	if err != nil {
		t.Fatal(err)
	}
	if got.Owner != "first" || got.Region != "r1" || !got.CreatedAt.Equal(t0) {
		t.Errorf("bucket after failed re-create = %+v, want %+v", got, first)
	}
	bs, err := s.ListBuckets(ctx, meta.ListBucketsOptions{})
	if err != nil || len(bs) != 1 {
		t.Errorf("ListBuckets = %+v, %v; want one bucket", bs, err)
	}
}

func testBucketsNotFound(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "exists")
	put(t, s, object("exists", "k", newBlob()))

	_, err := s.GetBucket(ctx, "nope")
	wantErr(t, "GetBucket", err, meta.ErrBucketNotFound)
	wantErr(t, "DeleteBucket", errOnly(s.DeleteBucket(ctx, "nope")), meta.ErrBucketNotFound)
	freed, err := s.PutObject(ctx, object("nope", "k", newBlob()), meta.Condition{})
	wantErr(t, "PutObject", err, meta.ErrBucketNotFound)
	wantFreed(t, "PutObject", freed)
	_, err = s.PutObject(ctx, object("nope", "k", newBlob()), meta.Condition{IfNoneMatchAny: true})
	wantErr(t, "PutObject IfNoneMatchAny", err, meta.ErrBucketNotFound)
	_, err = s.GetObject(ctx, "nope", "k", "")
	wantErr(t, "GetObject", err, meta.ErrBucketNotFound)
	_, err = s.DeleteObject(ctx, "nope", "k", "", meta.Condition{})
	wantErr(t, "DeleteObject", err, meta.ErrBucketNotFound)
	_, err = s.ListObjects(ctx, "nope", meta.ListOptions{Limit: 10})
	wantErr(t, "ListObjects", err, meta.ErrBucketNotFound)
	// A bucket name that is a prefix of an existing one is still missing.
	_, err = s.GetObject(ctx, "exist", "k", "")
	wantErr(t, "GetObject(exist)", err, meta.ErrBucketNotFound)

	// The object in the existing bucket is untouched.
	get(t, s, "exists", "k")
	_, err = s.GetObject(ctx, "exists", "nokey", "")
	wantErr(t, "GetObject(missing key)", err, meta.ErrObjectNotFound)
}

func testBucketsNotEmpty(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	o := object("b", "k", newBlob())
	put(t, s, o)
	wantErr(t, "DeleteBucket(non-empty)", errOnly(s.DeleteBucket(ctx, "b")), meta.ErrBucketNotEmpty)
	if _, err := s.GetBucket(ctx, "b"); err != nil {
		t.Fatalf("GetBucket after failed delete: %v", err)
	}
	checkObject(t, get(t, s, "b", "k"), o)

	// A zero-byte object keeps the bucket non-empty as well.
	del(t, s, "b", "k")
	put(t, s, object("b", "empty", ""))
	wantErr(t, "DeleteBucket(zero-byte object)", errOnly(s.DeleteBucket(ctx, "b")), meta.ErrBucketNotEmpty)
	del(t, s, "b", "empty")

	if err := errOnly(s.DeleteBucket(ctx, "b")); err != nil {
		t.Fatalf("DeleteBucket(emptied): %v", err)
	}
	_, err := s.GetBucket(ctx, "b")
	wantErr(t, "GetBucket after delete", err, meta.ErrBucketNotFound)
	wantErr(t, "DeleteBucket twice", errOnly(s.DeleteBucket(ctx, "b")), meta.ErrBucketNotFound)
}

func testBucketsRecreate(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	blob := newBlob()
	put(t, s, object("b", "k", blob))
	wantFreed(t, "delete", del(t, s, "b", "k"), blob)
	if err := errOnly(s.DeleteBucket(ctx, "b")); err != nil {
		t.Fatal(err)
	}
	nb := meta.Bucket{Name: "b", Region: "eu-central-1", Owner: "new-owner", CreatedAt: t0.Add(time.Minute)}
	if err := s.CreateBucket(ctx, nb); err != nil {
		t.Fatalf("re-create: %v", err)
	}
	got, err := s.GetBucket(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if got.Owner != nb.Owner || got.Region != nb.Region || !got.CreatedAt.Equal(nb.CreatedAt) {
		t.Errorf("re-created bucket = %+v, want %+v", got, nb)
	}
	wantMissing(t, s, "b", "k")
	page, err := s.ListObjects(ctx, "b", meta.ListOptions{Limit: 10})
	if err != nil || len(page.Objects) != 0 || page.Truncated {
		t.Errorf("listing of the re-created bucket = %+v, %v; want empty", page, err)
	}
	o := object("b", "k", newBlob())
	wantFreed(t, "put into re-created bucket", put(t, s, o))
	checkObject(t, get(t, s, "b", "k"), o)
}

func testBucketsIsolation(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "one")
	mkBucket(t, s, "two")
	mkBucket(t, s, "one2")
	a, b := object("one", "k", newBlob()), object("two", "k", newBlob())
	put(t, s, a)
	wantFreed(t, "same key, other bucket", put(t, s, b))
	put(t, s, object("one2", "k2", newBlob()))
	checkObject(t, get(t, s, "one", "k"), a)
	checkObject(t, get(t, s, "two", "k"), b)
	wantMissing(t, s, "one", "k2")
	page, err := s.ListObjects(ctx, "one", meta.ListOptions{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if keys := summaryKeys(page.Objects); !slices.Equal(keys, []string{"k"}) {
		t.Errorf("listing bucket one = %q, want [k]", keys)
	}
	wantFreed(t, "delete in one", del(t, s, "one", "k"), a.BlobID)
	checkObject(t, get(t, s, "two", "k"), b)
}

// testBucketsListPages checks ListBuckets' prefix, after and limit against
// a model, and paging through all buckets with them.
func testBucketsListPages(t *testing.T, s meta.Store) {
	ctx := t.Context()
	names := []string{"zz", "a", "a-1", "a.b", "ab", "abc", "abd", "b", "b0", "ba", "c-c", "z"}
	for _, n := range names {
		mkBucket(t, s, n)
	}
	slices.Sort(names)
	model := func(o meta.ListBucketsOptions) []string {
		out := []string{}
		for _, n := range names {
			if strings.HasPrefix(n, o.Prefix) && n > o.After && (o.Limit == 0 || len(out) < o.Limit) {
				out = append(out, n)
			}
		}
		return out
	}
	list := func(o meta.ListBucketsOptions) []string {
		t.Helper()
		bs, err := s.ListBuckets(ctx, o)
		if err != nil {
			t.Fatalf("ListBuckets(%+v): %v", o, err)
		}
		out := []string{}
		for _, b := range bs {
			out = append(out, b.Name)
		}
		return out
	}
	for _, prefix := range []string{"", "a", "ab", "abc", "b", "c", "z", "zz", "zzz", "~"} {
		for _, after := range []string{"", "a", "a-1", "aa", "abc", "abz", "b", "z", "zz", "~"} {
			for _, limit := range []int{0, 1, 2, 3, 100} {
				o := meta.ListBucketsOptions{Prefix: prefix, After: after, Limit: limit}
				if got, want := list(o), model(o); !slices.Equal(got, want) {
					t.Errorf("ListBuckets(%+v) = %q, want %q", o, got, want)
				}
			}
		}
	}
	// Paging on the last name returned walks every bucket once.
	for _, prefix := range []string{"", "a", "b"} {
		for limit := 1; limit <= 4; limit++ {
			var got []string
			o := meta.ListBucketsOptions{Prefix: prefix, Limit: limit}
			for range len(names) + 1 {
				page := list(o)
				got = append(got, page...)
				if len(page) < limit {
					break
				}
				o.After = page[len(page)-1]
			}
			if want := model(meta.ListBucketsOptions{Prefix: prefix}); !slices.Equal(got, want) {
				t.Errorf("paging prefix %q by %d: %q, want %q", prefix, limit, got, want)
			}
		}
	}
	// Buckets carry their fields in a page as in a full listing.
	bs, err := s.ListBuckets(ctx, meta.ListBucketsOptions{Prefix: "ab", After: "abc", Limit: 1})
	if err != nil || len(bs) != 1 || bs[0].Name != "abd" || bs[0].Region != "us-east-1" || bs[0].Owner != "owner" || !bs[0].CreatedAt.Equal(t0) {
		t.Errorf("page after abc under ab = %+v, %v", bs, err)
	}
}
