package metatest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

func init() {
	bucketCases = append(bucketCases,
		testCase{"Quota/Usage", testQuotaUsage},
		testCase{"Quota/Refusals", testQuotaRefusals},
		testCase{"Quota/Concurrent", testQuotaConcurrent},
	)
}

// wantUsage checks bucket's usage: want bytes in objects objects.
func wantUsage(t *testing.T, s meta.Store, bucket string, want, objects int64) {
	t.Helper()
	got, err := s.BucketUsage(t.Context(), bucket)
	if err != nil || got != (meta.Usage{Bytes: want, Objects: objects}) {
		t.Errorf("BucketUsage(%q) = %+v, %v; want %d bytes in %d objects", bucket, got, err, want, objects)
	}
}

func sized(bucket, key string, size int64) meta.Object {
	o := object(bucket, key, newBlob())
	o.Size = size
	return o
}

// testQuotaUsage: usage follows puts, overwrites, noncurrent versions,
// delete markers, deletes and completions, exactly.
func testQuotaUsage(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	mkBucket(t, s, "other")
	wantUsage(t, s, "b", 0, 0)
	put(t, s, sized("b", "x", 100))
	put(t, s, sized("b", "y", 50))
	put(t, s, sized("other", "x", 7))
	wantUsage(t, s, "b", 150, 2)
	put(t, s, sized("b", "x", 30)) // an overwrite replaces
	wantUsage(t, s, "b", 80, 2)
	del(t, s, "b", "y")
	wantUsage(t, s, "b", 30, 1)
	// An empty object is an object of no bytes.
	put(t, s, sized("b", "empty", 0))
	wantUsage(t, s, "b", 30, 2)
	del(t, s, "b", "empty")
	wantUsage(t, s, "b", 30, 1)
	// Versioned: noncurrent versions count, delete markers weigh nothing.
	if err := s.SetBucketVersioning(ctx, "b", meta.VersioningEnabled); err != nil {
		t.Fatal(err)
	}
	v1 := sized("b", "x", 10)
	v1.VersionID = "v1"
	put(t, s, v1)
	wantUsage(t, s, "b", 40, 1)
	m := meta.Object{Bucket: "b", Key: "x", VersionID: "m1", DeleteMarker: true, LastModified: t0}
	put(t, s, m)
	wantUsage(t, s, "b", 40, 0)
	if _, err := s.DeleteObject(ctx, "b", "x", "v1", meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, s, "b", 30, 0)
	// A completed upload counts once complete; its parts did not before.
	u := newUpload(t, s, "b", "mp")
	p1, _ := putPart(t, s, u, 1)
	p2, _ := putPart(t, s, u, 2)
	wantUsage(t, s, "b", 30, 0)
	o := meta.Object{Bucket: "b", Key: "mp", UploadID: u.UploadID, Size: p1.Size + p2.Size, ETag: "mp", LastModified: t0, Parts: []meta.Part{p1, p2}}
	if _, err := s.CompleteUpload(ctx, o, meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, s, "b", 30+p1.Size+p2.Size, 1)
	wantUsage(t, s, "other", 7, 1)
	_, err := s.BucketUsage(ctx, "missing")
	wantErr(t, "BucketUsage(missing)", err, meta.ErrBucketNotFound)
}

// testQuotaRefusals: a write past the quota is refused and changes
// nothing; one that fits exactly passes; parts past it are refused early.
func testQuotaRefusals(t *testing.T, s meta.Store) {
	ctx := t.Context()
	if err := s.CreateBucket(ctx, meta.Bucket{Name: "q", Region: "us-east-1", CreatedAt: t0, Quota: 1000}); err != nil {
		t.Fatal(err)
	}
	if b, err := s.GetBucket(ctx, "q"); err != nil || b.Quota != 1000 {
		t.Fatalf("GetBucket quota = %d, %v; want 1000", b.Quota, err)
	}
	put(t, s, sized("q", "a", 600))
	_, err := s.PutObject(ctx, sized("q", "b", 401), meta.Condition{})
	wantErr(t, "PutObject past the quota", err, meta.ErrQuotaExceeded)
	wantMissing(t, s, "q", "b")
	wantUsage(t, s, "q", 600, 1)
	put(t, s, sized("q", "b", 400)) // exactly the quota
	// An overwrite that shrinks passes; one that grows past it does not.
	put(t, s, sized("q", "a", 500))
	_, err = s.PutObject(ctx, sized("q", "a", 601), meta.Condition{})
	wantErr(t, "overwrite past the quota", err, meta.ErrQuotaExceeded)
	if got := get(t, s, "q", "a"); got.Size != 500 {
		t.Errorf("a refused overwrite changed the object: size %d", got.Size)
	}
	// Parts: refused once the bucket plus the upload's parts pass it.
	u := newUpload(t, s, "q", "mp")
	if _, err := s.PutPart(ctx, "q", "mp", u.UploadID, meta.Part{Number: 1, BlobID: newBlob(), Size: 100, ETag: "e1", LastModified: t0}); err != nil {
		t.Fatalf("a part that fits: %v", err)
	}
	_, err = s.PutPart(ctx, "q", "mp", u.UploadID, meta.Part{Number: 2, BlobID: newBlob(), Size: 1, ETag: "e2", LastModified: t0})
	wantErr(t, "a part past the quota", err, meta.ErrQuotaExceeded)
	if parts, _, _ := s.ListParts(ctx, "q", "mp", u.UploadID, 0, 1000); len(parts) != 1 {
		t.Errorf("the refused part was kept: %d parts", len(parts))
	}
	// Raise it: writes fit again; remove it: no limit.
	if err := s.SetBucketQuota(ctx, "q", 2000); err != nil {
		t.Fatal(err)
	}
	if b, _ := s.GetBucket(ctx, "q"); b.Quota != 2000 {
		t.Errorf("GetBucket after SetBucketQuota: quota %d", b.Quota)
	}
	put(t, s, sized("q", "c", 1000))
	if err := s.SetBucketQuota(ctx, "q", 0); err != nil {
		t.Fatal(err)
	}
	put(t, s, sized("q", "d", 1<<20))
	wantErr(t, "SetBucketQuota(missing)", s.SetBucketQuota(ctx, "missing", 1), meta.ErrBucketNotFound)
}

// testQuotaConcurrent: 32 writers each put objects into a bucket whose
// quota holds exactly some of them: the usage never passes the quota,
// and every write that fits when it commits passes.
func testQuotaConcurrent(t *testing.T, s meta.Store) {
	ctx := t.Context()
	const writers, each, size, fit = 32, 4, 100, 50
	if err := s.CreateBucket(ctx, meta.Bucket{Name: "c", Region: "us-east-1", CreatedAt: t0, Quota: fit * size}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	passed, refused := 0, 0
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				_, err := s.PutObject(ctx, sized("c", fmt.Sprintf("w%02d-%d", w, i), size), meta.Condition{})
				mu.Lock()
				switch {
				case err == nil:
					passed++
				case isQuota(err):
					refused++
				default:
					t.Errorf("PutObject: %v", err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if passed != fit || refused != writers*each-fit {
		t.Errorf("%d puts passed and %d were refused; want exactly %d and %d", passed, refused, fit, writers*each-fit)
	}
	wantUsage(t, s, "c", fit*size, int64(fit))
}

func isQuota(err error) bool { return errors.Is(err, meta.ErrQuotaExceeded) }
