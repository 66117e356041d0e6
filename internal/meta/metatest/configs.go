package metatest

import (
	"bytes"
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

// wantConfig asserts GetBucketConfig returns exactly want.
func wantConfig(t *testing.T, s meta.Store, bucket, name string, want []byte) {
	t.Helper()
	got, err := s.GetBucketConfig(t.Context(), bucket, name)
	if err != nil {
		t.Fatalf("GetBucketConfig(%q, %q): %v", bucket, name, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("GetBucketConfig(%q, %q) = %q, want %q", bucket, name, got, want)
	}
}

func testConfigsRoundTrip(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	_, err := s.GetBucketConfig(ctx, "b", "cors")
	wantErr(t, "GetBucketConfig before any put", err, meta.ErrNoSuchConfig)

	doc := []byte("<CORSConfiguration>\x00binary\xff</CORSConfiguration>")
	if err := s.PutBucketConfig(ctx, "b", "cors", doc); err != nil {
		t.Fatalf("PutBucketConfig: %v", err)
	}
	wantConfig(t, s, "b", "cors", doc)
	// Names are separate documents.
	_, err = s.GetBucketConfig(ctx, "b", "lifecycle")
	wantErr(t, "GetBucketConfig of another name", err, meta.ErrNoSuchConfig)

	// A put replaces.
	if err := s.PutBucketConfig(ctx, "b", "cors", []byte("v2")); err != nil {
		t.Fatalf("PutBucketConfig again: %v", err)
	}
	wantConfig(t, s, "b", "cors", []byte("v2"))
	if err := s.PutBucketConfig(ctx, "b", "lifecycle", []byte("lc")); err != nil {
		t.Fatalf("PutBucketConfig lifecycle: %v", err)
	}

	if err := s.DeleteBucketConfig(ctx, "b", "cors"); err != nil {
		t.Fatalf("DeleteBucketConfig: %v", err)
	}
	_, err = s.GetBucketConfig(ctx, "b", "cors")
	wantErr(t, "GetBucketConfig after delete", err, meta.ErrNoSuchConfig)
	wantConfig(t, s, "b", "lifecycle", []byte("lc"))
	// Deleting what is not there succeeds.
	if err := s.DeleteBucketConfig(ctx, "b", "cors"); err != nil {
		t.Errorf("DeleteBucketConfig of a missing configuration: %v", err)
	}

	// An empty document is a document, not a missing one.
	if err := s.PutBucketConfig(ctx, "b", "empty", nil); err != nil {
		t.Fatalf("PutBucketConfig empty: %v", err)
	}
	wantConfig(t, s, "b", "empty", []byte{})
}

func testConfigsNoBucket(t *testing.T, s meta.Store) {
	ctx := t.Context()
	wantErr(t, "PutBucketConfig", s.PutBucketConfig(ctx, "nope", "cors", []byte("x")), meta.ErrBucketNotFound)
	_, err := s.GetBucketConfig(ctx, "nope", "cors")
	wantErr(t, "GetBucketConfig", err, meta.ErrBucketNotFound)
	wantErr(t, "DeleteBucketConfig", s.DeleteBucketConfig(ctx, "nope", "cors"), meta.ErrBucketNotFound)
}

// testConfigsBucketDelete: a bucket's configurations go with it, and a
// bucket created again under the name starts without any.
func testConfigsBucketDelete(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	mkBucket(t, s, "other")
	for _, b := range []string{"b", "other"} {
		if err := s.PutBucketConfig(ctx, b, "cors", []byte(b)); err != nil {
			t.Fatalf("PutBucketConfig(%q): %v", b, err)
		}
	}
	if err := errOnly(s.DeleteBucket(ctx, "b")); err != nil {
		t.Fatalf("DeleteBucket with a configuration: %v", err)
	}
	_, err := s.GetBucketConfig(ctx, "b", "cors")
	wantErr(t, "GetBucketConfig of a deleted bucket", err, meta.ErrBucketNotFound)
	mkBucket(t, s, "b")
	_, err = s.GetBucketConfig(ctx, "b", "cors")
	wantErr(t, "GetBucketConfig of a re-created bucket", err, meta.ErrNoSuchConfig)
	wantConfig(t, s, "other", "cors", []byte("other"))
}
