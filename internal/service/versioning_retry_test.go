package service

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/sse"
)

// laggingBuckets is a real store whose bucket reads (GetBucket,
// BucketHint) answer the bucket as it was: a cache not yet dropped, or a
// PostgreSQL gateway's hint, just after another client's change.
type laggingBuckets struct {
	meta.Store
	was meta.Bucket
}

func (s *laggingBuckets) GetBucket(context.Context, string) (meta.Bucket, error)  { return s.was, nil }
func (s *laggingBuckets) BucketHint(context.Context, string) (meta.Bucket, error) { return s.was, nil }

// TestWriteOnLaggingBucketRead: unconditional writes that start from a
// bucket read that lags behind a versioning change, and read it lagging
// again after their first attempt fails, commit under the state the
// store reported with the failure: a PUT (its blob written once, kept),
// a DELETE and a multipart completion each make a new version.
func TestWriteOnLaggingBucketRead(t *testing.T) {
	s, blobs := newTestService(t, 16)
	ctx := t.Context()
	was, err := s.meta.GetBucket(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutBucketVersioning(ctx, "b", meta.VersioningEnabled); err != nil {
		t.Fatal(err)
	}
	s.meta = &laggingBuckets{Store: s.meta, was: was}

	body := strings.Repeat("x", 1000)
	o, err := s.PutObject(ctx, PutInput{Bucket: "b", Key: "k", Body: onlyReader{strings.NewReader(body)}, Size: -1})
	if err != nil {
		t.Fatalf("PUT: %v", err)
	}
	if !ValidVersionID(o.VersionID) || o.VersionID == meta.NullVersion {
		t.Errorf("PUT made version %q, want a new one", o.VersionID)
	}
	if n := countBlobs(t, blobs); n != 1 {
		t.Errorf("%d blobs after one PUT, want 1", n)
	}
	if got := readObject(t, s, "b", "k"); got != body {
		t.Errorf("GET = %d bytes, want the %d written", len(got), len(body))
	}

	d, err := s.DeleteObject(ctx, "b", "k", "", "owner", meta.Condition{})
	if err != nil {
		t.Fatalf("DELETE: %v", err)
	}
	if !d.DeleteMarker || d.VersionID == meta.NullVersion {
		t.Errorf("DELETE = %+v, want a new delete marker", d)
	}

	u, err := s.CreateUpload(ctx, meta.Upload{Bucket: "b", Key: "m", Initiated: meta.Now()}, sse.Request{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.UploadPart(ctx, PartInput{Bucket: "b", Key: "m", UploadID: u.UploadID, Number: 1, Body: strings.NewReader("part"), Size: 4})
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.CompleteUpload(ctx, CompleteInput{Bucket: "b", Key: "m", UploadID: u.UploadID, Parts: []CompletedPart{{Number: 1, ETag: p.ETag}}, ObjectSize: -1})
	if err != nil {
		t.Fatalf("CompleteMultipartUpload: %v", err)
	}
	if m.VersionID == meta.NullVersion {
		t.Errorf("CompleteMultipartUpload made the null version, want a new one")
	}
}

// flipping is a real store whose bucket's versioning changes before each
// write reaches it: every attempt of a write loses.
type flipping struct {
	meta.Store
	attempts int
}

func (s *flipping) flip(ctx context.Context, bucket string) {
	s.attempts++
	b, _ := s.Store.GetBucket(ctx, bucket)
	state := meta.VersioningEnabled
	if b.Versioning == meta.VersioningEnabled {
		state = meta.VersioningSuspended
	}
	_ = s.Store.SetBucketVersioning(ctx, bucket, state)
}

func (s *flipping) PutObject(ctx context.Context, o meta.Object, cond meta.Condition) ([]string, error) {
	s.flip(ctx, o.Bucket)
	return s.Store.PutObject(ctx, o, cond)
}

func (s *flipping) DeleteObject(ctx context.Context, bucket, key, versionID string, cond meta.Condition) ([]string, error) {
	s.flip(ctx, bucket)
	return s.Store.DeleteObject(ctx, bucket, key, versionID, cond)
}

// TestWriteVersioningChangesEveryAttempt: a write whose bucket's
// versioning changes before each of its attempts gives up after
// versioningTries, changing nothing and keeping no blob: an unconditional
// write with ErrVersioningBusy (503 SlowDown, which SDKs retry), a
// conditional one with the store's ErrVersioningChanged (409
// ConditionalRequestConflict, as S3 answers conditional writes).
func TestWriteVersioningChangesEveryAttempt(t *testing.T) {
	s, blobs := newTestService(t, 16)
	data := strings.Repeat("d", 100) // past the inline size: a blob to free
	ctx := t.Context()
	f := &flipping{Store: s.meta}
	s.meta = f
	for _, tc := range []struct {
		what  string
		write func() error
		cond  bool
	}{
		{"PUT", func() error {
			_, err := s.PutObject(ctx, PutInput{Bucket: "b", Key: "k", Body: strings.NewReader(data), Size: 100})
			return err
		}, false},
		{"PUT If-None-Match", func() error {
			_, err := s.PutObject(ctx, PutInput{Bucket: "b", Key: "k", Body: strings.NewReader(data), Size: 100, Cond: meta.Condition{IfNoneMatchAny: true}})
			return err
		}, true},
		{"DELETE", func() error {
			_, err := s.DeleteObject(ctx, "b", "k", "", "owner", meta.Condition{})
			return err
		}, false},
	} {
		f.attempts = 0
		err := tc.write()
		if f.attempts != versioningTries {
			t.Errorf("%s: %d attempts, want %d", tc.what, f.attempts, versioningTries)
		}
		switch {
		case tc.cond && (!errors.Is(err, meta.ErrVersioningChanged) || errors.Is(err, ErrVersioningBusy)):
			t.Errorf("%s: %v, want ErrVersioningChanged", tc.what, err)
		case !tc.cond && !errors.Is(err, ErrVersioningBusy):
			t.Errorf("%s: %v, want ErrVersioningBusy", tc.what, err)
		}
	}
	if _, err := f.Store.GetObject(ctx, "b", "k", ""); !errors.Is(err, meta.ErrObjectNotFound) {
		t.Errorf("the key after writes that never committed: %v, want not found", err)
	}
	if n := countBlobs(t, blobs); n != 0 {
		t.Errorf("%d blobs left by writes that never committed, want 0", n)
	}
}

// readObject reads the latest version of bucket/key through s.
func readObject(t *testing.T, s *Service, bucket, key string) string {
	t.Helper()
	_, rc, err := s.OpenObject(t.Context(), bucket, key, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
