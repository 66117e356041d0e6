package metatest

import (
	"bytes"
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

// inlineObject is bucket/key with its bytes stored in the store itself.
func inlineObject(bucket, key string, data []byte) meta.Object {
	o := object(bucket, key, "")
	o.Inline, o.Size, o.ETag = data, int64(len(data)), "etag-inline-"+string(data[:1])
	return o
}

func wantInline(t *testing.T, what string, got meta.Object, data []byte) {
	t.Helper()
	if !bytes.Equal(got.Inline, data) || got.BlobID != "" || got.Size != int64(len(data)) {
		t.Errorf("%s: inline %d bytes (%q…), blob %q, size %d; want %d bytes", what, len(got.Inline),
			got.Inline[:min(len(got.Inline), 8)], got.BlobID, got.Size, len(data))
	}
}

// testObjectsInline: data kept in the store comes back with GetObject and
// ScanObjects, not in listings; overwriting or deleting it frees no blob,
// and a blob object replaced by an inline one frees its blob.
func testObjectsInline(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	ctx := t.Context()
	one := bytes.Repeat([]byte("1"), 1000)
	two := bytes.Repeat([]byte("2"), 3000)
	wantFreed(t, "put inline", put(t, s, inlineObject("b", "k", one)))
	wantInline(t, "get", get(t, s, "b", "k"), one)

	page, err := s.ListObjects(ctx, "b", meta.ListOptions{Limit: 10})
	if err != nil || len(page.Objects) != 1 || page.Objects[0].Size != 1000 {
		t.Fatalf("list = %+v, %v", page, err)
	}
	scanned, err := s.ScanObjects(ctx, "b", "", "", 10)
	if err != nil || len(scanned) != 1 {
		t.Fatalf("scan = %d objects, %v", len(scanned), err)
	}
	wantInline(t, "scan", scanned[0], one)

	wantFreed(t, "inline over inline", put(t, s, inlineObject("b", "k", two)))
	wantInline(t, "after overwrite", get(t, s, "b", "k"), two)

	withBlob := object("b", "k", newBlob())
	wantFreed(t, "blob over inline", put(t, s, withBlob))
	if got := get(t, s, "b", "k"); got.Inline != nil || got.BlobID != withBlob.BlobID {
		t.Errorf("blob over inline: inline %d bytes, blob %q", len(got.Inline), got.BlobID)
	}
	wantFreed(t, "inline over blob", put(t, s, inlineObject("b", "k", one)), withBlob.BlobID)

	// A failed conditional write leaves the inline data as it was.
	_, err = s.PutObject(ctx, inlineObject("b", "k", two), meta.Condition{IfNoneMatchAny: true})
	wantErr(t, "If-None-Match over inline", err, meta.ErrPreconditionFailed)
	wantInline(t, "after refused write", get(t, s, "b", "k"), one)

	wantFreed(t, "delete inline", del(t, s, "b", "k"))
	wantMissing(t, s, "b", "k")

	// Versions each keep their own data.
	v1, v2 := inlineObject("b", "v", one), inlineObject("b", "v", two)
	v1.VersionID, v2.VersionID = "v1", "v2"
	put(t, s, v1)
	put(t, s, v2)
	got, err := s.GetObject(ctx, "b", "v", "v1")
	if err != nil {
		t.Fatal(err)
	}
	wantInline(t, "version v1", got, one)
	wantInline(t, "latest", get(t, s, "b", "v"), two)
}
