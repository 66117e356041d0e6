package service

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/blob/disk"
)

// TestSweepOrphans: the sweep removes an unreferenced blob older than its
// instant and leaves newer ones; run while a reader has a replaced blob
// open (as the background sweep is), it leaves that blob to the reader,
// which reads it whole, and it goes when the reader closes.
func TestSweepOrphans(t *testing.T) {
	forBlobLayouts(t, func(s *Service, b *disk.Store, packed bool, put func([]byte)) {
		ctx := t.Context()
		old, repl := bytes.Repeat([]byte("old!"), 50_000), bytes.Repeat([]byte("new?"), 40_000)
		put(old)
		// An orphan, as a crash before the metadata commit leaves one.
		w, err := b.Create(ctx, 5000)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(make([]byte, 5000)); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Commit(); err != nil {
			t.Fatal(err)
		}

		rep, err := s.SweepOrphans(ctx, time.Now().Add(-time.Hour))
		if err != nil || rep.BlobsScanned != 2 || rep.OrphansRemoved != 0 {
			t.Errorf("packed %v: sweep before the blobs' time: %+v, %v; want 2 scanned, none removed", packed, rep, err)
		}

		_, r, err := s.OpenObject(ctx, "b", "k", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 1000)
		if _, err := io.ReadFull(r, head); err != nil {
			t.Fatal(err)
		}
		put(repl) // the old blob is pinned by r: its deletion waits
		rep, err = s.SweepOrphans(ctx, time.Now().Add(time.Hour))
		if err != nil || rep.BlobsScanned != 3 || rep.OrphansRemoved != 2 {
			t.Errorf("packed %v: sweep: %+v, %v; want 3 scanned, 2 orphans", packed, rep, err)
		}
		if n := countBlobs(t, b); n != 2 {
			t.Errorf("packed %v: %d blobs after the sweep, want 2 (the object's and the one being read)", packed, n)
		}
		rest, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(append(head, rest...), old) {
			t.Errorf("packed %v: a reader open across the sweep read other bytes (%v)", packed, err)
		}
		r.Close()
		if n := countBlobs(t, b); n != 1 {
			t.Errorf("packed %v: %d blobs after the reader closed, want 1", packed, n)
		}
		_, r, err = s.OpenObject(ctx, "b", "k", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := io.ReadAll(r); !bytes.Equal(got, repl) {
			t.Errorf("packed %v: the object reads %d bytes after the sweep", packed, len(got))
		}
		r.Close()
	})
}
