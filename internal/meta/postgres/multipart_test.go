package postgres

import (
	"context"
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

// TestAbortUploadRace: an abort racing PutParts leaves no part behind:
// each part is stored before the abort, which frees its blob, or refused
// after it (ErrUploadNotFound), its blob then the caller's to delete.
func TestAbortUploadRace(t *testing.T) {
	s := openFresh(t)
	defer s.Close()
	ctx := t.Context()
	rawBucket(t, s, "b")
	for round := range 5 {
		id := fmt.Sprintf("up%d", round)
		if err := s.CreateUpload(ctx, meta.Upload{Bucket: "b", Key: "k", UploadID: id, Initiated: t0}); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var stored, freed []string
		var wg sync.WaitGroup
		for n := 1; n <= 12; n++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				blob := fmt.Sprintf("blob-%s-%d", id, n)
				_, err := s.PutPart(ctx, "b", "k", id, meta.Part{Number: n, BlobID: blob, Size: 1, ETag: blob, LastModified: t0})
				if err != nil && !errors.Is(err, meta.ErrUploadNotFound) {
					t.Error(err)
				}
				if err == nil {
					mu.Lock()
					stored = append(stored, blob)
					mu.Unlock()
				}
			}()
			if n == 6 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					f, err := s.AbortUpload(ctx, "b", "k", id)
					if err != nil {
						t.Error(err)
					}
					mu.Lock()
					freed = append(freed, f...)
					mu.Unlock()
				}()
			}
		}
		wg.Wait()
		slices.Sort(stored)
		slices.Sort(freed)
		if !slices.Equal(stored, freed) {
			t.Errorf("round %d: parts stored %q, the abort freed %q", round, stored, freed)
		}
		if parts, err := s.ObjectParts(ctx, id); err != nil || len(parts) != 0 {
			t.Errorf("round %d: parts left after the abort: %+v, %v", round, parts, err)
		}
	}
}

// TestListUploadsRolledUp: a delimited upload listing by the skip scan
// (groupedUploadsQuery) pages exactly as meta.ListUploads over the plain
// scan, one statement per common prefix, does.
func TestListUploadsRolledUp(t *testing.T) {
	s := openFresh(t)
	defer s.Close()
	ctx := t.Context()
	id := rawBucket(t, s, "b")
	keys := []string{"a", "a/1", "a/2", "a/b/c", "a/b/d", "ab", "b/", "b//x", "c", "é/x", "é", "z/z/z"}
	for i, k := range keys {
		for n := 0; n <= i%3; n++ {
			if err := s.CreateUpload(ctx, meta.Upload{Bucket: "b", Key: k, UploadID: fmt.Sprintf("u%02d-%d", i, n), Initiated: t0}); err != nil {
				t.Fatal(err)
			}
		}
	}
	plain := func(opts meta.ListUploadsOptions) (meta.UploadsPage, error) {
		return meta.ListUploads(ctx, opts, func(ctx context.Context, p meta.UploadPos, end string, limit int) ([]meta.Upload, error) {
			return s.uploadRows(ctx, id, "b", p, end, limit, nil)
		}, false)
	}
	for _, prefix := range []string{"", "a", "a/", "b", "é", "\xc3"} {
		for _, delim := range []string{"/", "b", "//", "é"} {
			for _, marker := range []meta.ListUploadsOptions{{}, {KeyMarker: "a/"}, {KeyMarker: "a/1"}, {KeyMarker: "a/b/c", UploadIDMarker: "u03-0"},
				{KeyMarker: "b//x", UploadIDMarker: "u07-9"}, {KeyMarker: "\xff"}} {
				for _, limit := range []int{1, 2, 3, 100} {
					opts := marker
					opts.Prefix, opts.Delimiter, opts.Limit = prefix, delim, limit
					sameWalk(t, opts, func(o meta.ListUploadsOptions) (meta.UploadsPage, error) { return s.ListUploads(ctx, "b", o) },
						plain, func(o *meta.ListUploadsOptions, p meta.UploadsPage) bool {
							o.KeyMarker, o.UploadIDMarker = p.NextKeyMarker, p.NextUploadIDMarker
							return p.Truncated
						})
				}
			}
		}
	}
}
