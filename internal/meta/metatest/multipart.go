package metatest

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

var uploadSeq int

// newUpload creates an upload of bucket/key with a fresh, increasing ID.
func newUpload(t *testing.T, s meta.Store, bucket, key string) meta.Upload {
	t.Helper()
	uploadSeq++
	u := meta.Upload{Bucket: bucket, Key: key, UploadID: fmt.Sprintf("up%08d", uploadSeq), Initiated: t0,
		Owner: "owner", Headers: meta.ContentHeaders{ContentType: "text/plain"}, UserMeta: map[string]string{"a": "b"},
		ChecksumAlgorithm: "CRC32C", ChecksumType: "COMPOSITE"}
	if err := s.CreateUpload(t.Context(), u); err != nil {
		t.Fatalf("CreateUpload: %v", err)
	}
	return u
}

func putPart(t *testing.T, s meta.Store, u meta.Upload, n int) (meta.Part, []string) {
	t.Helper()
	p := meta.Part{Number: n, BlobID: newBlob(), Size: int64(100 * n), ETag: fmt.Sprintf("etag-%d-%d", n, blobSeq.Load()),
		LastModified: t0, ChecksumAlgorithm: "CRC32C", Checksum: "AAAAAA=="}
	freed, err := s.PutPart(t.Context(), u.Bucket, u.Key, u.UploadID, p)
	if err != nil {
		t.Fatalf("PutPart %d: %v", n, err)
	}
	return p, freed
}

func testUploadCreateGet(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	u := newUpload(t, s, "b", "k")
	got, err := s.GetUpload(ctx, "b", "k", u.UploadID)
	if err != nil {
		t.Fatal(err)
	}
	if got.UploadID != u.UploadID || got.Headers != u.Headers || got.UserMeta["a"] != "b" ||
		got.ChecksumAlgorithm != "CRC32C" || got.ChecksumType != "COMPOSITE" || !got.Initiated.Equal(t0) {
		t.Errorf("GetUpload = %+v, want %+v", got, u)
	}
	_, err = s.GetUpload(ctx, "b", "other-key", u.UploadID)
	wantErr(t, "GetUpload with another key", err, meta.ErrUploadNotFound)
	_, err = s.GetUpload(ctx, "b", "k", "nope")
	wantErr(t, "GetUpload unknown", err, meta.ErrUploadNotFound)
	err = s.CreateUpload(ctx, meta.Upload{Bucket: "missing", Key: "k", UploadID: "x", Initiated: t0})
	wantErr(t, "CreateUpload in missing bucket", err, meta.ErrBucketNotFound)
}

func testUploadPartsReplaceList(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	u := newUpload(t, s, "b", "k")
	var parts []meta.Part
	for n := 1; n <= 5; n++ {
		p, _ := putPart(t, s, u, n)
		parts = append(parts, p)
	}
	p3, freed := putPart(t, s, u, 3)
	wantFreed(t, "replacing part 3", freed, parts[2].BlobID)
	parts[2] = p3
	got, more, err := s.ListParts(ctx, "b", "k", u.UploadID, 0, 2)
	if err != nil || !more || len(got) != 2 || got[0].Number != 1 || got[1].Number != 2 {
		t.Fatalf("ListParts page 1 = %+v, %v, %v", got, more, err)
	}
	got, more, err = s.ListParts(ctx, "b", "k", u.UploadID, 2, 10)
	if err != nil || more || len(got) != 3 || !reflect.DeepEqual(got[0], parts[2]) || !reflect.DeepEqual(got[2], parts[4]) {
		t.Fatalf("ListParts page 2 = %+v, %v, %v; want %+v", got, more, err, parts[2:])
	}
	_, err = s.PutPart(ctx, "b", "k", "nope", meta.Part{Number: 1, LastModified: t0})
	wantErr(t, "PutPart unknown upload", err, meta.ErrUploadNotFound)
	_, _, err = s.ListParts(ctx, "b", "k", "nope", 0, 10)
	wantErr(t, "ListParts unknown upload", err, meta.ErrUploadNotFound)
}

func testUploadComplete(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	u := newUpload(t, s, "b", "k")
	p1, _ := putPart(t, s, u, 1)
	p2, _ := putPart(t, s, u, 2)
	p3, _ := putPart(t, s, u, 3)
	o := meta.Object{Bucket: "b", Key: "k", UploadID: u.UploadID, Size: p1.Size + p3.Size, ETag: "mp-2",
		LastModified: t0, Parts: []meta.Part{p1, p3}, Checksum: meta.Checksum{Algorithm: "CRC32C", Value: "x-2", Type: "COMPOSITE"}}
	freed, err := s.CompleteUpload(ctx, o, meta.Condition{})
	if err != nil {
		t.Fatal(err)
	}
	wantFreed(t, "complete without part 2", freed, p2.BlobID)
	got := get(t, s, "b", "k")
	if got.UploadID != u.UploadID || got.PartsCount != 2 || got.Size != o.Size || got.ETag != "mp-2" || got.Checksum != o.Checksum {
		t.Errorf("completed object = %+v", got)
	}
	parts, err := s.ObjectParts(ctx, u.UploadID)
	if err != nil || len(parts) != 2 || !reflect.DeepEqual(parts[0], p1) || !reflect.DeepEqual(parts[1], p3) {
		t.Errorf("ObjectParts = %+v, %v", parts, err)
	}
	_, err = s.GetUpload(ctx, "b", "k", u.UploadID)
	wantErr(t, "GetUpload after complete", err, meta.ErrUploadNotFound)
	_, err = s.CompleteUpload(ctx, o, meta.Condition{})
	wantErr(t, "second complete", err, meta.ErrUploadNotFound)
	unref, err := s.UnreferencedBlobs(ctx, []string{p1.BlobID, p2.BlobID, p3.BlobID})
	if err != nil {
		t.Fatal(err)
	}
	wantFreed(t, "unreferenced after complete", unref, p2.BlobID)
	wantFreed(t, "delete multipart object", del(t, s, "b", "k"), p1.BlobID, p3.BlobID)
	if parts, _ := s.ObjectParts(ctx, u.UploadID); len(parts) != 0 {
		t.Errorf("parts remain after delete: %+v", parts)
	}
}

func testUploadCompleteChangedPart(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	u := newUpload(t, s, "b", "k")
	p1, _ := putPart(t, s, u, 1)
	stale := p1
	putPart(t, s, u, 1) // replaced after the caller validated stale
	o := meta.Object{Bucket: "b", Key: "k", UploadID: u.UploadID, LastModified: t0, Parts: []meta.Part{stale}}
	_, err := s.CompleteUpload(ctx, o, meta.Condition{})
	wantErr(t, "complete with a replaced part", err, meta.ErrPartChanged)
	o.Parts = []meta.Part{{Number: 9, ETag: "none"}}
	_, err = s.CompleteUpload(ctx, o, meta.Condition{})
	wantErr(t, "complete with a missing part", err, meta.ErrPartChanged)
	if _, err := s.GetUpload(ctx, "b", "k", u.UploadID); err != nil {
		t.Errorf("upload gone after failed completes: %v", err)
	}
	wantMissing(t, s, "b", "k")
}

func testUploadCompleteCondition(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	old := object("b", "k", newBlob())
	put(t, s, old)
	u := newUpload(t, s, "b", "k")
	p1, _ := putPart(t, s, u, 1)
	o := meta.Object{Bucket: "b", Key: "k", UploadID: u.UploadID, LastModified: t0, Parts: []meta.Part{p1}, ETag: "mp-1"}
	_, err := s.CompleteUpload(ctx, o, meta.Condition{IfNoneMatchAny: true})
	wantErr(t, "complete If-None-Match * over an existing key", err, meta.ErrPreconditionFailed)
	if got := get(t, s, "b", "k"); got.BlobID != old.BlobID {
		t.Errorf("failed complete changed the object: %+v", got)
	}
	freed, err := s.CompleteUpload(ctx, o, meta.Condition{IfMatch: old.ETag})
	if err != nil {
		t.Fatal(err)
	}
	wantFreed(t, "complete over the old object", freed, old.BlobID)

	// If-Match: * completes over any existing object and fails, leaving the
	// upload, on a missing key.
	u2 := newUpload(t, s, "b", "new")
	q1, _ := putPart(t, s, u2, 1)
	o2 := meta.Object{Bucket: "b", Key: "new", UploadID: u2.UploadID, LastModified: t0, Parts: []meta.Part{q1}, ETag: "mp-2"}
	_, err = s.CompleteUpload(ctx, o2, meta.Condition{IfMatchAny: true})
	wantErr(t, "complete If-Match * on a missing key", err, meta.ErrPreconditionFailed)
	wantMissing(t, s, "b", "new")
	if _, _, err := s.ListParts(ctx, "b", "new", u2.UploadID, 0, 10); err != nil {
		t.Errorf("upload gone after a failed If-Match * complete: %v", err)
	}
	o2.Key, o2.UploadID = "k", ""
	u3 := newUpload(t, s, "b", "k")
	r1, _ := putPart(t, s, u3, 1)
	o2.UploadID, o2.Parts = u3.UploadID, []meta.Part{r1}
	if _, err := s.CompleteUpload(ctx, o2, meta.Condition{IfMatchAny: true}); err != nil {
		t.Fatalf("complete If-Match * over an existing key: %v", err)
	}
	if got := get(t, s, "b", "k"); got.ETag != "mp-2" {
		t.Errorf("If-Match * complete: object ETag %q, want mp-2", got.ETag)
	}
}

func testUploadAbort(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	u := newUpload(t, s, "b", "k")
	p1, _ := putPart(t, s, u, 1)
	p2, _ := putPart(t, s, u, 2)
	freed, err := s.AbortUpload(ctx, "b", "k", u.UploadID)
	if err != nil {
		t.Fatal(err)
	}
	wantFreed(t, "abort", freed, p1.BlobID, p2.BlobID)
	_, err = s.AbortUpload(ctx, "b", "k", u.UploadID)
	wantErr(t, "second abort", err, meta.ErrUploadNotFound)
}

func testUploadOverwriteFreesParts(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	u := newUpload(t, s, "b", "k")
	p1, _ := putPart(t, s, u, 1)
	p2, _ := putPart(t, s, u, 2)
	o := meta.Object{Bucket: "b", Key: "k", UploadID: u.UploadID, LastModified: t0, Parts: []meta.Part{p1, p2}, ETag: "mp-2"}
	if _, err := s.CompleteUpload(t.Context(), o, meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	wantFreed(t, "overwrite a multipart object", put(t, s, object("b", "k", newBlob())), p1.BlobID, p2.BlobID)
}

func testListUploads(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	var ids []string
	for _, k := range []string{"a/1", "a/2", "b", "b", "c/x/y", "d"} {
		ids = append(ids, newUpload(t, s, "b", k).UploadID)
	}
	page, err := s.ListUploads(ctx, "b", meta.ListUploadsOptions{Limit: 100})
	if err != nil || len(page.Uploads) != 6 || page.Truncated {
		t.Fatalf("ListUploads all = %+v, %v", page, err)
	}
	for i, u := range page.Uploads {
		if u.UploadID != ids[i] {
			t.Errorf("upload %d = %s/%s, want %s", i, u.Key, u.UploadID, ids[i])
		}
	}
	page, err = s.ListUploads(ctx, "b", meta.ListUploadsOptions{Delimiter: "/", Limit: 100})
	if err != nil || len(page.Uploads) != 3 || len(page.CommonPrefixes) != 2 || page.CommonPrefixes[0] != "a/" || page.CommonPrefixes[1] != "c/" {
		t.Fatalf("ListUploads delimiter = %+v, %v", page, err)
	}
	// Walk with limit 1 using both markers.
	if walked := walkUploads(t, s, "b", meta.ListUploadsOptions{Limit: 1}); fmt.Sprint(walked) != fmt.Sprint(ids) {
		t.Errorf("paged walk = %v, want %v", walked, ids)
	}
	// Paged by one with a delimiter: a NextKeyMarker that is a common
	// prefix skips the whole group.
	walked := walkUploads(t, s, "b", meta.ListUploadsOptions{Delimiter: "/", Limit: 1})
	if want := []string{"a/", ids[2], ids[3], "c/", ids[5]}; fmt.Sprint(walked) != fmt.Sprint(want) {
		t.Errorf("paged walk with delimiter = %v, want %v", walked, want)
	}
	// A key marker alone skips every upload of that key.
	page, err = s.ListUploads(ctx, "b", meta.ListUploadsOptions{KeyMarker: "b", Limit: 100})
	if err != nil || len(page.Uploads) != 2 || page.Uploads[0].Key != "c/x/y" {
		t.Errorf("ListUploads after key b = %+v, %v", page, err)
	}
	page, err = s.ListUploads(ctx, "b", meta.ListUploadsOptions{Prefix: "a/", Limit: 100})
	if err != nil || len(page.Uploads) != 2 {
		t.Errorf("ListUploads prefix a/ = %+v, %v", page, err)
	}
}

// walkUploads pages through ListUploads from opts, following the next
// markers, and returns the upload IDs and common prefixes of each page in
// turn (ten pages at most).
func walkUploads(t *testing.T, s meta.Store, bucket string, opts meta.ListUploadsOptions) []string {
	t.Helper()
	var walked []string
	for range 10 {
		page, err := s.ListUploads(t.Context(), bucket, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range page.Uploads {
			walked = append(walked, u.UploadID)
		}
		walked = append(walked, page.CommonPrefixes...)
		if !page.Truncated {
			break
		}
		opts.KeyMarker, opts.UploadIDMarker = page.NextKeyMarker, page.NextUploadIDMarker
	}
	return walked
}

func testDeleteBucketAborts(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	u := newUpload(t, s, "b", "k")
	p1, _ := putPart(t, s, u, 1)
	freed, err := s.DeleteBucket(t.Context(), "b")
	if err != nil {
		t.Fatal(err)
	}
	wantFreed(t, "delete bucket with an upload", freed, p1.BlobID)
	mkBucket(t, s, "b")
	_, err = s.GetUpload(t.Context(), "b", "k", u.UploadID)
	wantErr(t, "upload after bucket re-creation", err, meta.ErrUploadNotFound)
}
