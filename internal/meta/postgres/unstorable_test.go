package postgres

import (
	"errors"
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

// TestUnstorableKey: a key PostgreSQL's text cannot hold is refused with
// meta.ErrUnstorableKey (a client error), and nothing is stored.
func TestUnstorableKey(t *testing.T) {
	s := openFresh(t)
	defer s.Close()
	ctx := t.Context()
	if err := s.CreateBucket(ctx, meta.Bucket{Name: "b", Region: "r", CreatedAt: meta.Now()}); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"a\x00b", "\xff"} {
		_, err := s.PutObject(ctx, meta.Object{Bucket: "b", Key: key, Size: 0, ETag: "e", LastModified: meta.Now()}, meta.Condition{})
		if !errors.Is(err, meta.ErrUnstorableKey) {
			t.Errorf("PutObject %q: %v, want ErrUnstorableKey", key, err)
		}
		err = s.CreateUpload(ctx, meta.Upload{Bucket: "b", Key: key, UploadID: "upload-1", Initiated: meta.Now()})
		if !errors.Is(err, meta.ErrUnstorableKey) {
			t.Errorf("CreateUpload %q: %v, want ErrUnstorableKey", key, err)
		}
	}
	page, err := s.ListObjects(ctx, "b", meta.ListOptions{Limit: 10})
	if err != nil || len(page.Objects) != 0 {
		t.Errorf("listing after refused writes: %+v, %v", page, err)
	}
}
