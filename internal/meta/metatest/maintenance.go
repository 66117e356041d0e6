package metatest

import (
	"fmt"
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

// testObjectsScan pages through every version of a bucket, multipart
// objects included, in (key, version) order.
func testObjectsScan(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	mkBucket(t, s, "other")
	put(t, s, object("other", "a", newBlob()))
	if got, err := s.ScanObjects(ctx, "b", "", "", 10); err != nil || len(got) != 0 {
		t.Fatalf("ScanObjects of an empty bucket = %+v, %v", got, err)
	}
	_, err := s.ScanObjects(ctx, "missing", "", "", 10)
	wantErr(t, "ScanObjects of a missing bucket", err, meta.ErrBucketNotFound)

	var want []meta.Object
	for _, k := range []string{"b", "a/x", "a", "c", "é", "a\x7f"} {
		o := object("b", k, newBlob())
		o.Checksum = meta.Checksum{Algorithm: "CRC32", Value: "AAAAAA==", Type: "FULL_OBJECT"}
		put(t, s, o)
	}
	empty := object("b", "empty", "")
	empty.Size = 0
	put(t, s, empty)
	v1 := object("b", "v", newBlob())
	v1.VersionID = "v1"
	v2 := object("b", "v", newBlob())
	v2.VersionID = "v2"
	put(t, s, v1)
	put(t, s, v2)
	u := newUpload(t, s, "b", "mp")
	p1, _ := putPart(t, s, u, 1)
	p2, _ := putPart(t, s, u, 2)
	mp := meta.Object{Bucket: "b", Key: "mp", UploadID: u.UploadID, Size: p1.Size + p2.Size, ETag: "mp-2",
		LastModified: t0, Parts: []meta.Part{p1, p2}}
	if _, err := s.CompleteUpload(ctx, mp, meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "a/x", "a\x7f", "b", "c", "empty", "mp", "v", "v", "é"} {
		want = append(want, meta.Object{Key: k})
	}
	want[7].VersionID, want[8].VersionID = "v1", "v2"

	for _, limit := range []int{1, 3, 100} {
		var got []meta.Object
		afterKey, afterVersion := "", ""
		for pages := 0; ; pages++ {
			page, err := s.ScanObjects(ctx, "b", afterKey, afterVersion, limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) > limit || pages > 20 {
				t.Fatalf("limit %d: page of %d objects after %d pages", limit, len(page), pages)
			}
			if len(page) == 0 {
				break
			}
			got = append(got, page...)
			last := page[len(page)-1]
			afterKey, afterVersion = last.Key, last.VersionID
		}
		if len(got) != len(want) {
			t.Fatalf("limit %d: scanned %d objects, want %d: %v", limit, len(got), len(want), scanKeys(got))
		}
		for i, o := range got {
			wv := want[i].VersionID
			if wv == "" {
				wv = meta.NullVersion
			}
			if o.Bucket != "b" || o.Key != want[i].Key || o.VersionID != wv {
				t.Fatalf("limit %d: scan = %v, want keys %v", limit, scanKeys(got), scanKeys(want))
			}
		}
	}
	all, err := s.ScanObjects(ctx, "b", "", "", 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range all {
		switch o.Key {
		case "a":
			if o.BlobID == "" || o.Size != 1 || o.ETag != "etag-"+o.BlobID || o.Checksum.Algorithm != "CRC32" || !o.LastModified.Equal(t0) {
				t.Errorf("scanned %q = %+v", o.Key, o)
			}
		case "empty":
			if o.BlobID != "" || o.Size != 0 {
				t.Errorf("scanned %q = %+v", o.Key, o)
			}
		case "mp":
			if o.UploadID != u.UploadID || o.PartsCount != 2 || o.BlobID != "" || o.Size != p1.Size+p2.Size {
				t.Errorf("scanned multipart object = %+v", o)
			}
		case "v":
			wantBlob := v1.BlobID
			if o.VersionID == "v2" {
				wantBlob = v2.BlobID
			}
			if o.BlobID != wantBlob {
				t.Errorf("scanned version %s has blob %q, want %q", o.VersionID, o.BlobID, wantBlob)
			}
		}
	}
	if got, err := s.ScanObjects(ctx, "b", "v", "v1", 1); err != nil || len(got) != 1 || got[0].VersionID != "v2" {
		t.Errorf("ScanObjects after (v, v1) = %+v, %v; want version v2", got, err)
	}
	if got, err := s.ScanObjects(ctx, "b", "é", meta.NullVersion, 10); err != nil || len(got) != 0 {
		t.Errorf("ScanObjects after the last = %+v, %v", got, err)
	}
}

func scanKeys(objs []meta.Object) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = fmt.Sprintf("%q@%s", o.Key, o.VersionID)
	}
	return out
}

func testUnreferencedBlobs(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	mkBucket(t, s, "c")
	b1, b2, b3 := newBlob(), newBlob(), newBlob()
	put(t, s, object("b", "k1", b1))
	put(t, s, object("c", "k2", b2))
	put(t, s, object("b", "empty", ""))
	got, err := s.UnreferencedBlobs(ctx, nil)
	if err != nil || len(got) != 0 {
		t.Errorf("UnreferencedBlobs(nil) = %q, %v", got, err)
	}
	ids := []string{b3, b1, "orphan-1", b2, "orphan-2", "blob-%", "blob-_"}
	got, err = s.UnreferencedBlobs(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	wantFreed(t, "UnreferencedBlobs", got, b3, "orphan-1", "orphan-2", "blob-%", "blob-_")
	del(t, s, "b", "k1")
	got, err = s.UnreferencedBlobs(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	wantFreed(t, "UnreferencedBlobs after delete", got, b1, b3, "orphan-1", "orphan-2", "blob-%", "blob-_")
	got, err = s.UnreferencedBlobs(ctx, []string{b2})
	if err != nil || len(got) != 0 {
		t.Errorf("UnreferencedBlobs([live]) = %q, %v; want none", got, err)
	}
}
