package postgres

import (
	"errors"
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

// TestCompleteUpload: the chosen parts make the object, the others are
// freed, the upload ends; a changed part or a failed condition changes
// nothing. The upload's rows are written with SQL, as CreateUpload and
// PutPart would.
func TestCompleteUpload(t *testing.T) {
	s := openFresh(t)
	defer s.Close()
	ctx := t.Context()
	if err := s.CreateBucket(ctx, meta.Bucket{Name: "b", Region: "us-east-1", CreatedAt: meta.Now()}); err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := s.pool.Exec(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec("INSERT INTO uploads (upload_id, bucket_id, key, initiated) SELECT 'u1', id, 'k', 0 FROM buckets WHERE name = 'b'")
	for n, etag := range []string{1: "e1", 2: "e2", 3: "e3"} {
		if n > 0 {
			exec("INSERT INTO parts (upload_id, part_number, blob_id, size, etag, mtime) VALUES ('u1', $1, $2, 10, $3, 0)", n, "p"+etag, etag)
		}
	}
	o := meta.Object{Bucket: "b", Key: "k", UploadID: "u1", Size: 20, ETag: "mp-2", LastModified: meta.Now(),
		Parts: []meta.Part{{Number: 1, ETag: "e1"}, {Number: 3, ETag: "e3"}}}

	changed := o
	changed.Parts = []meta.Part{{Number: 1, ETag: "e1"}, {Number: 3, ETag: "other"}}
	if _, err := s.CompleteUpload(ctx, changed, meta.Condition{}); !errors.Is(err, meta.ErrPartChanged) {
		t.Errorf("CompleteUpload with a changed part: %v", err)
	}
	missing := o
	missing.Parts = append(missing.Parts, meta.Part{Number: 4, ETag: "e4"})
	if _, err := s.CompleteUpload(ctx, missing, meta.Condition{}); !errors.Is(err, meta.ErrPartChanged) {
		t.Errorf("CompleteUpload with a missing part: %v", err)
	}
	if _, err := s.CompleteUpload(ctx, o, meta.Condition{IfMatch: "x"}); !errors.Is(err, meta.ErrObjectNotFound) {
		t.Errorf("CompleteUpload If-Match on a missing key: %v", err)
	}
	var parts int
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM parts WHERE upload_id = 'u1'").Scan(&parts); err != nil || parts != 3 {
		t.Fatalf("refused completions left %d parts, %v; want 3", parts, err)
	}

	freed, err := s.CompleteUpload(ctx, o, meta.Condition{IfNoneMatchAny: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(freed) != 1 || freed[0] != "pe2" {
		t.Errorf("CompleteUpload freed %q, want the part not chosen", freed)
	}
	got, err := s.GetObject(ctx, "b", "k", "")
	if err != nil || got.UploadID != "u1" || got.PartsCount != 2 || got.Size != 20 {
		t.Errorf("GetObject = %+v, %v", got, err)
	}
	if _, err := s.CompleteUpload(ctx, o, meta.Condition{}); !errors.Is(err, meta.ErrUploadNotFound) {
		t.Errorf("CompleteUpload twice: %v", err)
	}

	// Replacing the object frees its parts.
	freed, err = s.PutObject(ctx, meta.Object{Bucket: "b", Key: "k", BlobID: "new", Size: 1, ETag: "n", LastModified: meta.Now()}, meta.Condition{})
	if err != nil || len(freed) != 2 {
		t.Errorf("PutObject over the multipart object freed %q, %v; want its two parts", freed, err)
	}
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM parts").Scan(&parts); err != nil || parts != 0 {
		t.Errorf("%d parts left, %v", parts, err)
	}
}

// TestKeysNotText: a key or version ID PostgreSQL cannot hold as text (a
// NUL byte, invalid UTF-8) names nothing on reads and deletes, and a
// write of one is refused before it changes anything.
func TestKeysNotText(t *testing.T) {
	s := openFresh(t)
	defer s.Close()
	ctx := t.Context()
	if err := s.CreateBucket(ctx, meta.Bucket{Name: "b", Region: "us-east-1", CreatedAt: meta.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutObject(ctx, meta.Object{Bucket: "b", Key: "k", BlobID: "blob", Size: 1, ETag: "e", LastModified: meta.Now()}, meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ key, version string }{{"a\x00b", ""}, {"\xff", ""}, {"k", "v\x00"}, {"k", "\xc3"}} {
		if _, err := s.GetObject(ctx, "b", c.key, c.version); !errors.Is(err, meta.ErrObjectNotFound) {
			t.Errorf("GetObject(%q, %q): %v", c.key, c.version, err)
		}
		if freed, err := s.DeleteObject(ctx, "b", c.key, c.version, meta.Condition{}); err != nil || len(freed) != 0 {
			t.Errorf("DeleteObject(%q, %q) = %q, %v", c.key, c.version, freed, err)
		}
		if _, err := s.PutObjectTags(ctx, "b", c.key, c.version, "a=b"); !errors.Is(err, meta.ErrObjectNotFound) {
			t.Errorf("PutObjectTags(%q, %q): %v", c.key, c.version, err)
		}
		o := meta.Object{Bucket: "b", Key: c.key, VersionID: c.version, BlobID: "other", Size: 1, ETag: "e", LastModified: meta.Now()}
		if _, err := s.PutObject(ctx, o, meta.Condition{}); err == nil {
			t.Errorf("PutObject(%q, %q) succeeded", c.key, c.version)
		}
	}
	if _, err := s.GetObject(ctx, "nope", "a\x00", ""); !errors.Is(err, meta.ErrBucketNotFound) {
		t.Errorf("GetObject in a missing bucket: %v", err)
	}
	if o, err := s.GetObject(ctx, "b", "k", ""); err != nil || o.BlobID != "blob" {
		t.Errorf("GetObject(k) = %+v, %v", o, err)
	}
}
