package metatest

import (
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

// Cases of object ACLs: a version's ACL, PutObjectACL, an upload's. The
// store keeps the string it is given (internal/acl's encoding); "" is the
// private ACL.
func init() {
	objectCases = append(objectCases, testCase{"ACL/Versions", testACLVersions})
	uploadCases = append(uploadCases, testCase{"Multipart/ACL", testUploadACL})
}

func versionACL(t *testing.T, s meta.Store, key, versionID string) string {
	t.Helper()
	o, err := s.GetObject(t.Context(), "b", key, versionID)
	if err != nil {
		t.Fatalf("GetObject(%q, %q): %v", key, versionID, err)
	}
	return o.ACL
}

// testACLVersions: an ACL belongs to a version, PutObjectACL changes the
// one named and nothing else, and it moves with its version.
func testACLVersions(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	for i, a := range []string{`[1]`, ""} {
		o := object("b", "k", newBlob())
		o.VersionID, o.ACL, o.Tags = []string{"v1", "v2"}[i], a, "t=1"
		put(t, s, o)
	}
	if a, b := versionACL(t, s, "k", "v1"), versionACL(t, s, "k", "v2"); a != `[1]` || b != "" {
		t.Fatalf("ACLs of v1, v2 = %q, %q", a, b)
	}
	if v, err := s.PutObjectACL(ctx, "b", "k", "", `[2]`); err != nil || v != "v2" {
		t.Fatalf("PutObjectACL of the latest = %q, %v", v, err)
	}
	if v, err := s.PutObjectACL(ctx, "b", "k", "v1", ""); err != nil || v != "v1" {
		t.Fatalf("PutObjectACL of v1 = %q, %v", v, err)
	}
	if a, b := versionACL(t, s, "k", "v1"), versionACL(t, s, "k", "v2"); a != "" || b != `[2]` {
		t.Fatalf("after PutObjectACL: v1 %q, v2 %q", a, b)
	}
	if got := get(t, s, "b", "k"); got.Tags != "t=1" {
		t.Fatalf("PutObjectACL changed the tags: %q", got.Tags)
	}
	_, err := s.PutObjectACL(ctx, "b", "missing", "", `[3]`)
	wantErr(t, "PutObjectACL of a missing key", err, meta.ErrObjectNotFound)
	// Deleting v2 brings v1 back live with its own ACL.
	if _, err := s.DeleteObject(ctx, "b", "k", "v2", meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	if got := versionACL(t, s, "k", ""); got != "" {
		t.Fatalf("v1 live again: ACL %q", got)
	}
}

func testUploadACL(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	u := meta.Upload{Bucket: "b", Key: "k", UploadID: "withacl", Initiated: t0, ACL: `[{"p":"READ"}]`}
	if err := s.CreateUpload(t.Context(), u); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetUpload(t.Context(), "b", "k", "withacl")
	if err != nil || got.ACL != u.ACL {
		t.Fatalf("GetUpload = %+v, %v; want ACL %q", got, err, u.ACL)
	}
}
