package metatest

import (
	"errors"
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

// Cases of object tags: a version's Tags, PutObjectTags, an upload's.
var tagCases = []testCase{
	{"Tags/RoundTrip", testTagsRoundTrip},
	{"Tags/Versions", testTagsVersions},
}

func init() {
	objectCases = append(objectCases, tagCases...)
	uploadCases = append(uploadCases, testCase{"Multipart/Tags", testUploadTags})
}

func getVersionTags(t *testing.T, s meta.Store, key, versionID string) string {
	t.Helper()
	o, err := s.GetObject(t.Context(), "b", key, versionID)
	if err != nil {
		t.Fatalf("GetObject(%q, %q): %v", key, versionID, err)
	}
	return o.Tags
}

func putTags(t *testing.T, s meta.Store, key, versionID, tags, wantVersion string) {
	t.Helper()
	v, err := s.PutObjectTags(t.Context(), "b", key, versionID, tags)
	if err != nil || v != wantVersion {
		t.Fatalf("PutObjectTags(%q, %q) = %q, %v; want %q", key, versionID, v, err, wantVersion)
	}
}

func testTagsRoundTrip(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	o := object("b", "k", newBlob())
	o.VersionID, o.Tags = meta.NullVersion, "a=1&b=x+y"
	put(t, s, o)
	if got := getVersionTags(t, s, "k", ""); got != o.Tags {
		t.Fatalf("Tags = %q, want %q", got, o.Tags)
	}
	putTags(t, s, "k", "", "c=3", meta.NullVersion)
	got := get(t, s, "b", "k")
	if got.Tags != "c=3" || got.ETag != o.ETag || got.BlobID != o.BlobID || !got.LastModified.Equal(o.LastModified) {
		t.Fatalf("after PutObjectTags: %+v", got)
	}
	putTags(t, s, "k", meta.NullVersion, "", meta.NullVersion)
	if got := getVersionTags(t, s, "k", ""); got != "" {
		t.Fatalf("Tags after clearing = %q", got)
	}

	_, err := s.PutObjectTags(ctx, "b", "missing", "", "a=1")
	wantErr(t, "PutObjectTags of a missing key", err, meta.ErrObjectNotFound)
	_, err = s.PutObjectTags(ctx, "b", "k", "nope", "a=1")
	wantErr(t, "PutObjectTags of a missing version", err, meta.ErrObjectNotFound)
	_, err = s.PutObjectTags(ctx, "nope", "k", "", "a=1")
	wantErr(t, "PutObjectTags in a missing bucket", err, meta.ErrBucketNotFound)
	if got := getVersionTags(t, s, "k", ""); got != "" {
		t.Fatalf("a refused PutObjectTags changed the tags: %q", got)
	}
}

// testTagsVersions: tags belong to a version and move with it between the
// live view and the noncurrent versions.
func testTagsVersions(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	for i, tags := range []string{"v=1", "v=2"} {
		o := object("b", "k", newBlob())
		o.VersionID, o.Tags = []string{"v1", "v2"}[i], tags
		put(t, s, o)
	}
	if a, b := getVersionTags(t, s, "k", "v1"), getVersionTags(t, s, "k", "v2"); a != "v=1" || b != "v=2" {
		t.Fatalf("tags of v1, v2 = %q, %q", a, b)
	}
	putTags(t, s, "k", "v1", "v=one", "v1")
	if a, b := getVersionTags(t, s, "k", "v1"), getVersionTags(t, s, "k", ""); a != "v=one" || b != "v=2" {
		t.Fatalf("after tagging v1: v1 %q, latest %q", a, b)
	}

	if _, err := s.PutObject(ctx, marker("b", "k", "v3", t0), meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	_, err := s.PutObjectTags(ctx, "b", "k", "", "a=1")
	var dm *meta.DeleteMarkerError
	if !errors.As(err, &dm) || dm.VersionID != "v3" {
		t.Fatalf("PutObjectTags of the latest, a delete marker: %v", err)
	}
	_, err = s.PutObjectTags(ctx, "b", "k", "v3", "a=1")
	if !errors.As(err, &dm) || dm.VersionID != "v3" {
		t.Fatalf("PutObjectTags of a delete marker by ID: %v", err)
	}

	// Removing the marker, then v2, brings each older version back live
	// with its tags.
	for _, v := range []string{"v3", "v2"} {
		if _, err := s.DeleteObject(ctx, "b", "k", v, meta.Condition{}); err != nil {
			t.Fatalf("DeleteObject(%s): %v", v, err)
		}
		want := map[string]string{"v3": "v=2", "v2": "v=one"}[v]
		if got := getVersionTags(t, s, "k", ""); got != want {
			t.Fatalf("latest after deleting %s: tags %q, want %q", v, got, want)
		}
	}
	putTags(t, s, "k", "", "v=live", "v1")
	if got := getVersionTags(t, s, "k", "v1"); got != "v=live" {
		t.Fatalf("v1 tags = %q", got)
	}
}

func testUploadTags(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	u := meta.Upload{Bucket: "b", Key: "k", UploadID: "tagged", Initiated: t0, Tags: "a=1&b=2"}
	if err := s.CreateUpload(t.Context(), u); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetUpload(t.Context(), "b", "k", "tagged")
	if err != nil || got.Tags != u.Tags {
		t.Fatalf("GetUpload = %+v, %v; want tags %q", got, err, u.Tags)
	}
}
