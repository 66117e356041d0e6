package service

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/blob/disk"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/meta/sqlite"
)

func newTestService(t *testing.T, inlineMax int) (*Service, *disk.Store) {
	t.Helper()
	dir := t.TempDir()
	m, err := sqlite.Open(t.Context(), filepath.Join(dir, "meta.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	b, err := disk.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	b.NoSync = true
	s := NewWith(m, b, slog.New(slog.DiscardHandler), Options{InlineMax: inlineMax})
	if err := m.CreateBucket(t.Context(), meta.Bucket{Name: "b", Region: "r", CreatedAt: meta.Now()}); err != nil {
		t.Fatal(err)
	}
	return s, b
}

func countBlobs(t *testing.T, b *disk.Store) int {
	t.Helper()
	n := 0
	if err := b.Walk(t.Context(), func(blob.Info) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// onlyReader hides bytes.Reader's WriterTo and Len, as a network body would.
type onlyReader struct{ io.Reader }

// TestPutInlineOrSpill: a body of unknown length that ends within the
// inline size is kept in the database; one that goes past it spills, from
// the byte that does not fit, into a blob holding all of it; a body longer
// than declared is refused and leaves nothing behind.
func TestPutInlineOrSpill(t *testing.T) {
	s, b := newTestService(t, 4096)
	ctx := t.Context()
	data := make([]byte, 300_000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	for _, tc := range []struct {
		key    string
		n      int
		size   int64 // declared
		inline bool
	}{
		{"unknown-small", 3000, -1, true},
		{"unknown-edge", 4096, -1, true},
		{"unknown-big", 300_000, -1, false},
		{"known-small", 100, 100, true},
		{"known-big", 5000, 5000, false},
	} {
		o, err := s.PutObject(ctx, PutInput{Bucket: "b", Key: tc.key, Body: onlyReader{bytes.NewReader(data[:tc.n])}, Size: tc.size})
		if err != nil {
			t.Fatalf("%s: %v", tc.key, err)
		}
		got, r, err := s.OpenObject(ctx, "b", tc.key, "")
		if err != nil {
			t.Fatal(err)
		}
		all, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(all, data[:tc.n]) || o.Size != int64(tc.n) {
			t.Errorf("%s: read %d bytes (%v), want %d", tc.key, len(all), err, tc.n)
		}
		if inline := got.Inline != nil; inline != tc.inline || (got.BlobID == "") != tc.inline {
			t.Errorf("%s: inline %v, blob %q; want inline %v", tc.key, inline, got.BlobID, tc.inline)
		}
	}
	if n := countBlobs(t, b); n != 2 {
		t.Errorf("%d blobs, want 2", n)
	}
	// Declared 4096 bytes, sent 5000: the 4097th byte spills to a blob, then
	// the write is refused, leaving neither a blob nor a row.
	_, err := s.PutObject(ctx, PutInput{Bucket: "b", Key: "liar", Body: onlyReader{bytes.NewReader(data[:5000])}, Size: 4096})
	if !errors.Is(err, ErrIncompleteBody) {
		t.Errorf("longer than declared: %v, want ErrIncompleteBody", err)
	}
	if _, err := s.HeadObject(ctx, "b", "liar", "", false); !errors.Is(err, meta.ErrObjectNotFound) {
		t.Errorf("refused object exists: %v", err)
	}
	if n := countBlobs(t, b); n != 2 {
		t.Errorf("%d blobs after a refused write, want 2", n)
	}
}
