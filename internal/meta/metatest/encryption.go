package metatest

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

// Cases of encryption at rest (issue 39): a version's Encryption and an
// upload's. The store keeps the record it is given, every field, and
// gives it back on every read that returns the version or upload;
// CompleteUpload keeps the Encryption of the object it is given (the
// service copies the upload's into it).
func init() {
	objectCases = append(objectCases,
		testCase{"Encryption/RoundTrip", testEncryptionRoundTrip},
		testCase{"Encryption/Overwrite", testEncryptionOverwrite},
		testCase{"Encryption/Versions", testEncryptionVersions})
	uploadCases = append(uploadCases, testCase{"Multipart/Encryption", testUploadEncryption})
}

// sealed is an Encryption with every field set, distinct per n; its byte
// fields hold NUL and bytes that are not UTF-8.
func sealed(n int) meta.Encryption {
	return meta.Encryption{
		Mode:      []string{"AES256", "aws:kms", "SSE-C"}[n%3],
		KeyID:     fmt.Sprintf("key-%d", n),
		Context:   fmt.Sprintf(`{"n":"%d"}`, n),
		BucketKey: n%2 == 1,
		SealedKey: []byte{0, 0xff, byte(n), 0xc3, 0x28, 0},
		KeyCheck:  []byte{byte(n), 0, 0xfe},
	}
}

func wantEncryption(t *testing.T, what string, got, want meta.Encryption) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: Encryption = %+v, want %+v", what, got, want)
	}
}

// versionEncryption is the Encryption GetObject returns of key's version.
func versionEncryption(t *testing.T, s meta.Store, key, versionID string) meta.Encryption {
	t.Helper()
	o, err := s.GetObject(t.Context(), "b", key, versionID)
	if err != nil {
		t.Fatalf("GetObject(%q, %q): %v", key, versionID, err)
	}
	return o.Encryption
}

// scannedEncryption is what ScanObjects returns of each version of the
// bucket b, by key and version ID.
func scannedEncryption(t *testing.T, s meta.Store) map[string]meta.Encryption {
	t.Helper()
	objs, err := s.ScanObjects(t.Context(), "b", "", "", 1000)
	if err != nil {
		t.Fatalf("ScanObjects: %v", err)
	}
	out := make(map[string]meta.Encryption, len(objs))
	for _, o := range objs {
		out[o.Key+"@"+o.VersionID] = o.Encryption
	}
	return out
}

// testEncryptionRoundTrip: every field comes back, from GetObject and
// ScanObjects, for a blob object and an inline one; an object written
// without encryption reads back with the zero value.
func testEncryptionRoundTrip(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	blob := object("b", "blob", newBlob())
	blob.Encryption = sealed(1)
	put(t, s, blob)
	inline := meta.Object{Bucket: "b", Key: "inline", Inline: []byte("ciphertext"), Size: 4, ETag: "e", LastModified: t0,
		Encryption: sealed(2)}
	put(t, s, inline)
	put(t, s, object("b", "plain", newBlob()))

	wantEncryption(t, "GetObject of blob", versionEncryption(t, s, "blob", ""), blob.Encryption)
	wantEncryption(t, "GetObject of inline", versionEncryption(t, s, "inline", ""), inline.Encryption)
	wantEncryption(t, "GetObject of plain", versionEncryption(t, s, "plain", ""), meta.Encryption{})
	if got := get(t, s, "b", "inline"); string(got.Inline) != "ciphertext" {
		t.Errorf("inline bytes = %q", got.Inline)
	}
	scanned := scannedEncryption(t, s)
	wantEncryption(t, "ScanObjects of blob", scanned["blob@null"], blob.Encryption)
	wantEncryption(t, "ScanObjects of inline", scanned["inline@null"], inline.Encryption)
	wantEncryption(t, "ScanObjects of plain", scanned["plain@null"], meta.Encryption{})
}

// testEncryptionOverwrite: an overwrite replaces the record with the new
// version's, encrypted or not.
func testEncryptionOverwrite(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	for i, e := range []meta.Encryption{sealed(1), sealed(2), {}, sealed(3)} {
		o := object("b", "k", newBlob())
		o.Encryption = e
		put(t, s, o)
		wantEncryption(t, fmt.Sprintf("after write %d", i), versionEncryption(t, s, "k", ""), e)
	}
}

// testEncryptionVersions: each version keeps its own record as it moves
// from live to noncurrent and back.
func testEncryptionVersions(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	want := map[string]meta.Encryption{"v1": sealed(1), "v2": {}, "v3": sealed(2)}
	for _, v := range []string{"v1", "v2", "v3"} {
		o := object("b", "k", newBlob())
		o.VersionID, o.Encryption = v, want[v]
		put(t, s, o)
	}
	scanned := scannedEncryption(t, s)
	for v, e := range want {
		wantEncryption(t, "GetObject of "+v, versionEncryption(t, s, "k", v), e)
		wantEncryption(t, "ScanObjects of "+v, scanned["k@"+v], e)
	}
	// Deleting v3 makes v2 live again, still unencrypted; deleting v2
	// brings v1 back with its own record.
	for _, gone := range []string{"v3", "v2"} {
		if _, err := s.DeleteObject(ctx, "b", "k", gone, meta.Condition{}); err != nil {
			t.Fatal(err)
		}
		delete(want, gone)
		latest := map[string]string{"v3": "v2", "v2": "v1"}[gone]
		wantEncryption(t, "latest after deleting "+gone, versionEncryption(t, s, "k", ""), want[latest])
	}
}

// testUploadEncryption: an upload's record comes back from GetUpload and
// ListUploads; CompleteUpload gives the version the Encryption it is
// given.
func testUploadEncryption(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	u := meta.Upload{Bucket: "b", Key: "k", UploadID: "sealed", Initiated: t0, Encryption: sealed(2)}
	if err := s.CreateUpload(ctx, u); err != nil {
		t.Fatal(err)
	}
	plain := meta.Upload{Bucket: "b", Key: "p", UploadID: "plain", Initiated: t0}
	if err := s.CreateUpload(ctx, plain); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetUpload(ctx, "b", "k", "sealed")
	if err != nil {
		t.Fatal(err)
	}
	wantEncryption(t, "GetUpload", got.Encryption, u.Encryption)
	got, err = s.GetUpload(ctx, "b", "p", "plain")
	if err != nil {
		t.Fatal(err)
	}
	wantEncryption(t, "GetUpload of a plain upload", got.Encryption, meta.Encryption{})
	page, err := s.ListUploads(ctx, "b", meta.ListUploadsOptions{Limit: 10})
	if err != nil || len(page.Uploads) != 2 {
		t.Fatalf("ListUploads = %+v, %v", page, err)
	}
	for _, l := range page.Uploads {
		want := map[string]meta.Encryption{"sealed": u.Encryption, "plain": {}}[l.UploadID]
		wantEncryption(t, "ListUploads of "+l.UploadID, l.Encryption, want)
	}

	p, _ := putPart(t, s, u, 1)
	o := meta.Object{Bucket: "b", Key: "k", UploadID: u.UploadID, Size: p.Size, ETag: "mp-1", LastModified: t0,
		Parts: []meta.Part{p}, Encryption: u.Encryption}
	if _, err := s.CompleteUpload(ctx, o, meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	wantEncryption(t, "completed object", versionEncryption(t, s, "k", ""), u.Encryption)
}
