package service

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// staleHints is a real store whose BucketHint answers the bucket as it
// was when the hint was taken, as a PostgreSQL gateway's hint may after
// another gateway's change.
type staleHints struct {
	meta.Store
	hint meta.Bucket
}

func (s *staleHints) BucketHint(context.Context, string) (meta.Bucket, error) { return s.hint, nil }

// TestWriteOnStaleHint: a PUT that starts from a stale hint (versioning
// never set, no object lock) still writes what the bucket's state at its
// commit asks for: a new version ID and the default retention.
func TestWriteOnStaleHint(t *testing.T) {
	s, _ := newTestService(t, 0)
	ctx := t.Context()
	stale, err := s.meta.GetBucket(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	hints := &staleHints{Store: s.meta, hint: stale}
	s.meta = hints
	if err := s.PutBucketVersioning(ctx, "b", meta.VersioningEnabled); err != nil {
		t.Fatal(err)
	}
	o, err := s.PutObject(ctx, PutInput{Bucket: "b", Key: "v", Body: strings.NewReader("x"), Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	if o.VersionID == meta.NullVersion || o.VersionID == "" {
		t.Errorf("PUT on a stale hint made version %q in a bucket with versioning enabled", o.VersionID)
	}
	if h := s.ObjectVersionHeader(ctx, "b", o); h != o.VersionID {
		t.Errorf("version header %q, want %q", h, o.VersionID)
	}
	// Now the hint is right about versioning, and says: no object lock.
	if hints.hint, err = s.meta.GetBucket(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if err := s.PutObjectLockConfiguration(ctx, "b", LockConfig{Mode: "GOVERNANCE", Days: 1}); err != nil {
		t.Fatal(err)
	}
	o, err = s.PutObject(ctx, PutInput{Bucket: "b", Key: "l", Body: strings.NewReader("x"), Size: 1, Integrity: true})
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := s.meta.GetObjectLock(ctx, "b", "l", o.VersionID)
	if err != nil {
		t.Fatal(err)
	}
	if l.Mode != "GOVERNANCE" {
		t.Errorf("PUT on a stale hint into a bucket with default retention: lock %+v, want GOVERNANCE", l)
	}
	// A lock the request asks for is refused on the hint, then granted on
	// the bucket itself.
	o, err = s.PutObject(ctx, PutInput{Bucket: "b", Key: "h", Body: strings.NewReader("x"), Size: 1, Integrity: true,
		Lock: LockRequest{Set: true, Lock: meta.ObjectLock{LegalHold: true, HoldSet: true}}})
	if err != nil {
		t.Fatalf("PUT with a legal hold on a stale hint: %v", err)
	}
	if l, _, err := s.meta.GetObjectLock(ctx, "b", "h", o.VersionID); err != nil || !l.LegalHold {
		t.Errorf("legal hold of the version: %+v, %v", l, err)
	}
}

// TestCommitWithin: a write whose metadata commit would come later than
// CommitWithin after its blob's fails, stores nothing and frees the blob;
// an inline object has no blob to lose and is not bound.
func TestCommitWithin(t *testing.T) {
	s, blobs := newTestService(t, 16)
	s.commitWithin = time.Nanosecond // every commit is too late
	ctx := t.Context()
	_, err := s.PutObject(ctx, PutInput{Bucket: "b", Key: "late", Body: strings.NewReader(strings.Repeat("x", 100)), Size: 100})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("PUT committed past CommitWithin: %v, want a deadline error", err)
	}
	if _, err := s.meta.GetObject(ctx, "b", "late", ""); !errors.Is(err, meta.ErrObjectNotFound) {
		t.Errorf("the late object: %v, want not found", err)
	}
	if n := countBlobs(t, blobs); n != 0 {
		t.Errorf("%d blobs left after the late write, want 0", n)
	}
	if _, err := s.PutObject(ctx, PutInput{Bucket: "b", Key: "inline", Body: strings.NewReader("x"), Size: 1}); err != nil {
		t.Errorf("inline PUT: %v", err)
	}
}
