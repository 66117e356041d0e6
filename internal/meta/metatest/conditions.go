package metatest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

func testConditionsIfNoneMatchAny(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	cond := meta.Condition{IfNoneMatchAny: true}
	o1 := object("b", "k", newBlob())
	freed, err := s.PutObject(ctx, o1, cond)
	if err != nil {
		t.Fatalf("IfNoneMatchAny on a missing key: %v", err)
	}
	wantFreed(t, "first put", freed)
	o2 := object("b", "k", newBlob())
	o2.ETag = "other"
	freed, err = s.PutObject(ctx, o2, cond)
	wantErr(t, "IfNoneMatchAny on an existing key", err, meta.ErrPreconditionFailed)
	wantFreed(t, "failed put", freed)
	checkObject(t, get(t, s, "b", "k"), o1)
	unref, err := s.UnreferencedBlobs(ctx, []string{o1.BlobID, o2.BlobID})
	if err != nil {
		t.Fatal(err)
	}
	wantFreed(t, "UnreferencedBlobs after failed put", unref, o2.BlobID)

	// A zero-byte object exists too.
	put(t, s, object("b", "empty", ""))
	_, err = s.PutObject(ctx, object("b", "empty", newBlob()), cond)
	wantErr(t, "IfNoneMatchAny on a zero-byte object", err, meta.ErrPreconditionFailed)

	// Once deleted, the key is absent again.
	del(t, s, "b", "k")
	o3 := object("b", "k", newBlob())
	if _, err := s.PutObject(ctx, o3, cond); err != nil {
		t.Fatalf("IfNoneMatchAny after delete: %v", err)
	}
	checkObject(t, get(t, s, "b", "k"), o3)
	// Keys that merely resemble the existing one are absent.
	for _, k := range []string{"K", "k/", "k ", "_"} {
		if _, err := s.PutObject(ctx, object("b", k, newBlob()), cond); err != nil {
			t.Errorf("IfNoneMatchAny on new key %q: %v", k, err)
		}
	}
}

func testConditionsIfMatch(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	o1 := object("b", "k", newBlob())
	o1.ETag = "e1"
	put(t, s, o1)

	o2 := object("b", "k", newBlob())
	o2.ETag = "e2-3"
	freed, err := s.PutObject(ctx, o2, meta.Condition{IfMatch: "e1"})
	if err != nil {
		t.Fatalf("IfMatch with the right ETag: %v", err)
	}
	wantFreed(t, "IfMatch put", freed, o1.BlobID)
	checkObject(t, get(t, s, "b", "k"), o2)

	o3 := object("b", "k", newBlob())
	o3.ETag = "e3"
	freed, err = s.PutObject(ctx, o3, meta.Condition{IfMatch: `"e2-3"`})
	if err != nil {
		t.Fatalf("IfMatch with the right quoted ETag: %v", err)
	}
	wantFreed(t, "quoted IfMatch put", freed, o2.BlobID)
	checkObject(t, get(t, s, "b", "k"), o3)

	for _, etag := range []string{"e1", `"e1"`, "E3", "e", "e3 ", "*e3", "%"} {
		o4 := object("b", "k", newBlob())
		freed, err = s.PutObject(ctx, o4, meta.Condition{IfMatch: etag})
		wantErr(t, fmt.Sprintf("IfMatch %q against e3", etag), err, meta.ErrPreconditionFailed)
		wantFreed(t, "failed IfMatch put", freed)
	}
	checkObject(t, get(t, s, "b", "k"), o3)

	freed, err = s.PutObject(ctx, object("b", "missing", newBlob()), meta.Condition{IfMatch: "e3"})
	wantErr(t, "IfMatch on a missing key", err, meta.ErrObjectNotFound)
	wantFreed(t, "IfMatch on a missing key", freed)
	wantMissing(t, s, "b", "missing")

	page, err := s.ListObjects(ctx, "b", meta.ListOptions{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if keys := summaryKeys(page.Objects); !slices.Equal(keys, []string{"k"}) {
		t.Errorf("listing after failed writes = %q, want [k]", keys)
	}
}

func testConditionsDelete(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	o := object("b", "k", newBlob())
	o.ETag = "e1"
	put(t, s, o)
	freed, err := s.DeleteObject(ctx, "b", "k", "", meta.Condition{IfMatch: "e2"})
	wantErr(t, "DeleteObject IfMatch wrong", err, meta.ErrPreconditionFailed)
	wantFreed(t, "failed delete", freed)
	checkObject(t, get(t, s, "b", "k"), o)
	freed, err = s.DeleteObject(ctx, "b", "k", "", meta.Condition{IfMatch: `"e1"`})
	if err != nil {
		t.Fatalf("DeleteObject IfMatch right: %v", err)
	}
	wantFreed(t, "conditional delete", freed, o.BlobID)
	wantMissing(t, s, "b", "k")
	_, err = s.DeleteObject(ctx, "b", "k", "", meta.Condition{IfMatch: "e1"})
	wantErr(t, "DeleteObject IfMatch on a missing key", err, meta.ErrObjectNotFound)
}

func testConditionsIfMatchAny(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	cond := meta.Condition{IfMatchAny: true}
	o1 := object("b", "k", newBlob())
	freed, err := s.PutObject(ctx, o1, cond)
	wantErr(t, "IfMatchAny on a missing key", err, meta.ErrPreconditionFailed)
	wantFreed(t, "failed IfMatchAny put", freed)
	wantMissing(t, s, "b", "k")

	put(t, s, o1)
	o2 := object("b", "k", newBlob())
	freed, err = s.PutObject(ctx, o2, cond)
	if err != nil {
		t.Fatalf("IfMatchAny on an existing key: %v", err)
	}
	wantFreed(t, "IfMatchAny put", freed, o1.BlobID)
	checkObject(t, get(t, s, "b", "k"), o2)

	// A zero-byte object exists too; resembling keys do not.
	put(t, s, object("b", "empty", ""))
	if _, err := s.PutObject(ctx, object("b", "empty", newBlob()), cond); err != nil {
		t.Errorf("IfMatchAny on a zero-byte object: %v", err)
	}
	for _, k := range []string{"K", "k/", "k "} {
		_, err := s.PutObject(ctx, object("b", k, newBlob()), cond)
		wantErr(t, fmt.Sprintf("IfMatchAny on the missing key %q", k), err, meta.ErrPreconditionFailed)
		wantMissing(t, s, "b", k)
	}

	// DeleteObject: any existing object is deleted; a missing key fails.
	freed, err = s.DeleteObject(ctx, "b", "k", "", cond)
	if err != nil {
		t.Fatalf("DeleteObject IfMatchAny: %v", err)
	}
	wantFreed(t, "IfMatchAny delete", freed, o2.BlobID)
	wantMissing(t, s, "b", "k")
	_, err = s.DeleteObject(ctx, "b", "k", "", cond)
	wantErr(t, "DeleteObject IfMatchAny on a missing key", err, meta.ErrPreconditionFailed)
}

// testConditionsDeleteSizeAndTime: DeleteObject's IfMatchSize and
// IfMatchLastModified (to the second) are checked against the current
// version in the deleting transaction; a mismatch deletes nothing, a
// missing key passes, and they combine with IfMatch.
func testConditionsDeleteSizeAndTime(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	o := object("b", "k", newBlob())
	o.Size, o.ETag = 42, "e1"
	put(t, s, o)
	size := func(n int64) *int64 { return &n }
	sameSecond := t0.Truncate(time.Second).Add(999 * time.Millisecond)
	for _, c := range []struct {
		what string
		cond meta.Condition
	}{
		{"IfMatchSize 41", meta.Condition{IfMatchSize: size(41)}},
		{"IfMatchSize 0", meta.Condition{IfMatchSize: size(0)}},
		{"IfMatchSize 43", meta.Condition{IfMatchSize: size(43)}},
		{"IfMatchLastModified a second early", meta.Condition{IfMatchLastModified: t0.Add(-time.Second)}},
		{"IfMatchLastModified a second late", meta.Condition{IfMatchLastModified: t0.Add(time.Second)}},
		{"right size, wrong time", meta.Condition{IfMatchSize: size(42), IfMatchLastModified: t0.Add(time.Hour)}},
		{"right time, wrong size", meta.Condition{IfMatchSize: size(1), IfMatchLastModified: t0}},
		{"right size, wrong ETag", meta.Condition{IfMatchSize: size(42), IfMatch: "e2"}},
		{"right ETag, wrong size", meta.Condition{IfMatchSize: size(4), IfMatch: "e1"}},
	} {
		freed, err := s.DeleteObject(ctx, "b", "k", "", c.cond)
		wantErr(t, "DeleteObject "+c.what, err, meta.ErrPreconditionFailed)
		wantFreed(t, "failed delete "+c.what, freed)
		checkObject(t, get(t, s, "b", "k"), o)
	}
	freed, err := s.DeleteObject(ctx, "b", "k", "", meta.Condition{IfMatchSize: size(42), IfMatchLastModified: sameSecond, IfMatch: `"e1"`})
	if err != nil {
		t.Fatalf("DeleteObject with every condition right: %v", err)
	}
	wantFreed(t, "conditional delete", freed, o.BlobID)
	wantMissing(t, s, "b", "k")

	// A missing key passes size and time, as S3 documents (204).
	for _, cond := range []meta.Condition{{IfMatchSize: size(42)}, {IfMatchLastModified: t0}} {
		if _, err := s.DeleteObject(ctx, "b", "k", "", cond); err != nil {
			t.Errorf("DeleteObject %+v on a missing key: %v", cond, err)
		}
	}
	// A zero-byte object matches size 0 only.
	e := object("b", "empty", "")
	e.Size = 0
	put(t, s, e)
	_, err = s.DeleteObject(ctx, "b", "empty", "", meta.Condition{IfMatchSize: size(1)})
	wantErr(t, "DeleteObject IfMatchSize 1 of an empty object", err, meta.ErrPreconditionFailed)
	if _, err := s.DeleteObject(ctx, "b", "empty", "", meta.Condition{IfMatchSize: size(0)}); err != nil {
		t.Errorf("DeleteObject IfMatchSize 0 of an empty object: %v", err)
	}
	wantMissing(t, s, "b", "empty")
}

func testConcurrencyIfNoneMatchAny(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	const workers, each = 32, 50
	var (
		wins   atomic.Int64
		winner atomic.Value
		start  = make(chan struct{})
		errs   = make(chan error, workers)
		blobs  = make([][]string, workers)
	)
	for w := range workers {
		for range each {
			blobs[w] = append(blobs[w], newBlob())
		}
	}
	for w := range workers {
		go func() {
			<-start
			for _, blob := range blobs[w] {
				freed, err := s.PutObject(ctx, object("b", "race", blob), meta.Condition{IfNoneMatchAny: true})
				switch {
				case err == nil:
					wins.Add(1)
					winner.Store(blob)
					if len(freed) != 0 {
						errs <- fmt.Errorf("winning put freed %q", freed)
						return
					}
				case errors.Is(err, meta.ErrPreconditionFailed), errors.Is(err, meta.ErrConflict):
					if len(freed) != 0 {
						errs <- fmt.Errorf("failed put freed %q", freed)
						return
					}
				default:
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	close(start)
	for range workers {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if n := wins.Load(); n != 1 {
		t.Fatalf("%d of %d IfNoneMatchAny puts succeeded, want exactly 1", n, workers*each)
	}
	win := winner.Load().(string)
	if got := get(t, s, "b", "race"); got.BlobID != win {
		t.Errorf("object points at %q, want the winner %q", got.BlobID, win)
	}
	var all []string
	for _, bs := range blobs {
		all = append(all, bs...)
	}
	unref, err := s.UnreferencedBlobs(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	if len(unref) != len(all)-1 || slices.Contains(unref, win) {
		t.Errorf("UnreferencedBlobs returned %d of %d (winner included: %v), want all but the winner",
			len(unref), len(all), slices.Contains(unref, win))
	}
}

func testConcurrencyOverwrite(t *testing.T, s meta.Store) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	mkBucket(t, s, "b")
	first := newBlob()
	put(t, s, object("b", "hot", first))
	put(t, s, object("b", "hot0", newBlob()))
	put(t, s, object("b", "hot/x", newBlob()))

	const workers, each, readers = 32, 20, 4
	var (
		start   = make(chan struct{})
		written = make([][]string, workers)
		freed   = make([][]string, workers)
		errs    = make(chan error, workers)
		rerrs   = make(chan error, readers)
	)
	for w := range workers {
		for range each {
			written[w] = append(written[w], newBlob())
		}
	}
	// Readers must never see the key missing, doubled, or half-written.
	for range readers {
		go func() {
			<-start
			for ctx.Err() == nil {
				o, err := s.GetObject(ctx, "b", "hot", "")
				if ctx.Err() != nil {
					break
				}
				if err != nil {
					rerrs <- fmt.Errorf("GetObject during overwrites: %w", err)
					return
				}
				if o.ETag != "etag-"+o.BlobID {
					rerrs <- fmt.Errorf("GetObject mixes versions: BlobID %q, ETag %q", o.BlobID, o.ETag)
					return
				}
				page, err := s.ListObjects(ctx, "b", meta.ListOptions{Limit: 10, Delimiter: "/"})
				if ctx.Err() != nil {
					break
				}
				if err != nil {
					rerrs <- fmt.Errorf("ListObjects during overwrites: %w", err)
					return
				}
				if keys := summaryKeys(page.Objects); !slices.Equal(keys, []string{"hot", "hot0"}) ||
					!slices.Equal(page.CommonPrefixes, []string{"hot/"}) {
					rerrs <- fmt.Errorf("listing during overwrites = %q %q", keys, page.CommonPrefixes)
					return
				}
			}
			rerrs <- nil
		}()
	}
	for w := range workers {
		go func() {
			<-start
			for _, blob := range written[w] {
				f, err := s.PutObject(ctx, object("b", "hot", blob), meta.Condition{})
				if err != nil {
					errs <- err
					return
				}
				freed[w] = append(freed[w], f...)
			}
			errs <- nil
		}()
	}
	close(start)
	for range workers {
		if err := <-errs; err != nil {
			t.Errorf("PutObject: %v", err)
		}
	}
	cancel()
	for range readers {
		if err := <-rerrs; err != nil {
			t.Error(err)
		}
	}
	if t.Failed() {
		return
	}

	final := get(t, s, "b", "hot")
	all := []string{first}
	for _, ws := range written {
		all = append(all, ws...)
	}
	got := []string{final.BlobID}
	seen := map[string]bool{final.BlobID: true}
	for _, fs := range freed {
		for _, f := range fs {
			if seen[f] {
				t.Errorf("blob %q freed twice (or freed while current)", f)
			}
			seen[f] = true
			got = append(got, f)
		}
	}
	sort.Strings(all)
	sort.Strings(got)
	if !slices.Equal(got, all) {
		t.Errorf("freed + final = %d blobs, written = %d; leaked: %q; unknown: %q",
			len(got), len(all), difference(all, got), difference(got, all))
	}
	page, err := s.ListObjects(t.Context(), "b", meta.ListOptions{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if keys := summaryKeys(page.Objects); !slices.Equal(keys, []string{"hot", "hot/x", "hot0"}) {
		t.Errorf("listing after overwrites = %q", keys)
	}
	unref, err := s.UnreferencedBlobs(t.Context(), all)
	if err != nil {
		t.Fatal(err)
	}
	if len(unref) != len(all)-1 || slices.Contains(unref, final.BlobID) {
		t.Errorf("UnreferencedBlobs = %d of %d, want all but the final blob", len(unref), len(all))
	}
}

// difference returns the elements of a not in b.
func difference(a, b []string) []string {
	in := make(map[string]bool, len(b))
	for _, x := range b {
		in[x] = true
	}
	var out []string
	for _, x := range a {
		if !in[x] {
			out = append(out, x)
		}
	}
	return out
}
