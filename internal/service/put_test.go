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
	return newTestServiceWith(t, Options{InlineMax: inlineMax})
}

// newTestServiceWith is newTestService with opts.
func newTestServiceWith(t *testing.T, opts Options) (*Service, *disk.Store) {
	t.Helper()
	return newTestServiceIn(t, t.TempDir(), slog.New(slog.DiscardHandler), opts)
}

// newTestServiceIn is newTestServiceWith over the data dir dir, logging
// to log.
func newTestServiceIn(t *testing.T, dir string, log *slog.Logger, opts Options) (*Service, *disk.Store) {
	t.Helper()
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
	s := NewWith(m, b, log, opts)
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
		got, r, err := s.OpenObject(ctx, "b", tc.key, "", nil)
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

// TestInlineMaxZero: InlineMax 0 means never, as --inline-max 0 does: a
// one-byte object goes to a blob; New keeps it inline (DefaultInlineMax).
func TestInlineMaxZero(t *testing.T) {
	for _, tc := range []struct {
		name   string
		s      func() (*Service, *disk.Store)
		inline bool
		blobs  int
	}{
		{"InlineMax 0", func() (*Service, *disk.Store) { return newTestService(t, 0) }, false, 1},
		{"New", func() (*Service, *disk.Store) {
			s, b := newTestService(t, 0)
			return New(s.meta, b, s.log), b
		}, true, 0},
	} {
		s, b := tc.s()
		if _, err := s.PutObject(t.Context(), PutInput{Bucket: "b", Key: "k", Body: bytes.NewReader([]byte("x")), Size: 1}); err != nil {
			t.Fatal(err)
		}
		o, err := s.HeadObject(t.Context(), "b", "k", "", false)
		if err != nil {
			t.Fatal(err)
		}
		if inline := o.BlobID == ""; inline != tc.inline || countBlobs(t, b) != tc.blobs {
			t.Errorf("%s: inline %v, %d blobs; want inline %v", tc.name, inline, countBlobs(t, b), tc.inline)
		}
	}
}

// countingZeros is an endless body that counts what was read of it.
type countingZeros struct{ n int64 }

func (c *countingZeros) Read(p []byte) (int, error) {
	clear(p)
	c.n += int64(len(p))
	return len(p), nil
}

// TestWriteUnknownLengthLimit: a body of unknown length (a chunked
// transfer) is refused with ErrEntityTooLarge as soon as it passes the
// limit — read no further than one byte past it, never buffered whole —
// and leaves no blob behind; one that ends at the limit is stored. The
// limit is the plaintext's when the body is sealed.
func TestWriteUnknownLengthLimit(t *testing.T) {
	s, b := newTestService(t, 4096)
	const max = 300_000
	for _, seal := range []sealKey{{}, {key: customerKey}} {
		body := &countingZeros{}
		_, err := s.writeData(t.Context(), body, -1, max, nil, ChecksumRequest{}, 4096, seal)
		if !errors.Is(err, ErrEntityTooLarge) {
			t.Fatalf("sealed %v: unknown length past the limit: %v, want ErrEntityTooLarge", seal.key != nil, err)
		}
		if body.n > max+1 {
			t.Errorf("sealed %v: read %d bytes of an endless body with a %d-byte limit", seal.key != nil, body.n, max)
		}
		if n := countBlobs(t, b); n != 0 {
			t.Errorf("sealed %v: %d blobs left after a refused write", seal.key != nil, n)
		}
		wd, err := s.writeData(t.Context(), onlyReader{bytes.NewReader(make([]byte, max))}, -1, max, nil, ChecksumRequest{}, 4096, seal)
		if err != nil || wd.size != max || wd.id == "" {
			t.Fatalf("sealed %v: unknown length at the limit: %+v, %v", seal.key != nil, wd, err)
		}
		if err := b.Delete(t.Context(), wd.id); err != nil {
			t.Fatal(err)
		}
	}
}
