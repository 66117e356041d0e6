package postgres

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

var t0 = time.Date(2024, 5, 6, 7, 8, 9, 123_000_000, time.UTC)

// TestPutPartRace: PutParts of one part number at once each replace the
// one before, so every blob but the survivor's is freed exactly once.
func TestPutPartRace(t *testing.T) {
	s := openFresh(t)
	defer s.Close()
	ctx := t.Context()
	rawBucket(t, s, "b")
	u := meta.Upload{Bucket: "b", Key: "k", UploadID: "up1", Initiated: t0, Lock: &meta.ObjectLock{Mode: "GOVERNANCE"}}
	if err := s.CreateUpload(ctx, u); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetUpload(ctx, "b", "k", "up1"); err != nil || got.Lock == nil || got.Lock.Mode != "GOVERNANCE" {
		t.Fatalf("GetUpload = %+v, %v", got, err)
	}
	const n = 16
	var mu sync.Mutex
	var freed, blobs []string
	var wg sync.WaitGroup
	for i := range n {
		blob := fmt.Sprintf("blob-%d", i)
		blobs = append(blobs, blob)
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, err := s.PutPart(ctx, "b", "k", "up1", meta.Part{Number: 1, BlobID: blob, Size: 1, ETag: blob, LastModified: t0})
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			freed = append(freed, f...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	parts, more, err := s.ListParts(ctx, "b", "k", "up1", 0, 10)
	if err != nil || more || len(parts) != 1 {
		t.Fatalf("ListParts = %+v, %v, %v; want one part", parts, more, err)
	}
	want := slices.DeleteFunc(slices.Clone(blobs), func(b string) bool { return b == parts[0].BlobID })
	slices.Sort(freed)
	slices.Sort(want)
	if !slices.Equal(freed, want) {
		t.Errorf("freed %q, want %q", freed, want)
	}
	got, err := s.AbortUpload(ctx, "b", "k", "up1")
	if err != nil || !slices.Equal(got, []string{parts[0].BlobID}) {
		t.Errorf("AbortUpload = %q, %v; want %q", got, err, parts[0].BlobID)
	}
	if _, err := s.PutPart(ctx, "b", "k", "up1", meta.Part{Number: 2, LastModified: t0}); !errors.Is(err, meta.ErrUploadNotFound) {
		t.Errorf("PutPart after the abort: %v", err)
	}
	if _, err := s.GetUpload(ctx, "b", "k\xff", "up1"); !errors.Is(err, meta.ErrUploadNotFound) {
		t.Errorf("GetUpload of a key that is no text: %v", err)
	}
}

// TestListUploadsMarkers: upload markers that are no text, and upload IDs
// that differ only in case, page in byte order.
func TestListUploadsMarkers(t *testing.T) {
	s := openFresh(t)
	defer s.Close()
	ctx := t.Context()
	rawBucket(t, s, "b")
	var all []string
	for _, k := range []string{"a", "b", "c/d"} {
		for _, id := range []string{"UP2", "up1", "up1\u00e9"} {
			if err := s.CreateUpload(ctx, meta.Upload{Bucket: "b", Key: k, UploadID: k + id, Initiated: t0}); err != nil {
				t.Fatal(err)
			}
			all = append(all, k+id)
		}
	}
	list := func(opts meta.ListUploadsOptions) []string {
		t.Helper()
		page, err := s.ListUploads(ctx, "b", opts)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, u := range page.Uploads {
			ids = append(ids, u.UploadID)
		}
		return append(ids, page.CommonPrefixes...)
	}
	for _, c := range []struct {
		opts meta.ListUploadsOptions
		want []string
	}{
		{meta.ListUploadsOptions{Limit: 100}, all},
		{meta.ListUploadsOptions{Limit: 100, KeyMarker: "b"}, all[6:]},
		{meta.ListUploadsOptions{Limit: 100, KeyMarker: "b", UploadIDMarker: "bup1"}, all[5:]},
		{meta.ListUploadsOptions{Limit: 100, KeyMarker: "b", UploadIDMarker: "bup1\xc3"}, all[5:]},
		{meta.ListUploadsOptions{Limit: 100, KeyMarker: "b", UploadIDMarker: "bup1\xff"}, all[6:]},
		{meta.ListUploadsOptions{Limit: 100, KeyMarker: "a\xff"}, all[3:]},
		{meta.ListUploadsOptions{Limit: 100, Delimiter: "/"}, append(slices.Clone(all[:6]), "c/")},
		{meta.ListUploadsOptions{Limit: 100, Prefix: "c\xff"}, nil},
	} {
		if got := list(c.opts); !slices.Equal(got, c.want) {
			t.Errorf("ListUploads(%+q) = %q, want %q", fmt.Sprintf("%+v", c.opts), got, c.want)
		}
	}
}
