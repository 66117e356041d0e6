package disk

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/jogstore/jog/internal/blob"
)

// TestRoundTrip writes blobs of sizes around every boundary the writer
// has (direct I/O alignment, buffer size, the switch to direct I/O), in
// uneven pieces and through io.Copy, with direct I/O on and off, and reads
// each back.
func TestRoundTrip(t *testing.T) {
	sizes := []int{0, 1, directAlign - 1, directAlign, directAlign + 1,
		directMin - 1, directMin, directMin + 1, directMin + directAlign,
		directMin + directBufSize, directMin + directBufSize + 4097, 3*directMin + 12345}
	for _, direct := range []bool{false, true} {
		dir := t.TempDir()
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if direct && !s.Direct {
			t.Logf("file system of %s refuses O_DIRECT: testing the fallback only", dir)
		}
		if !direct {
			s.Direct = false
		}
		for _, size := range sizes {
			for _, viaCopy := range []bool{false, true} {
				data := make([]byte, size)
				rng := rand.New(rand.NewPCG(uint64(size), 7))
				for i := range data {
					data[i] = byte(rng.Uint32())
				}
				w, err := s.Create(context.Background(), -1)
				if err != nil {
					t.Fatal(err)
				}
				if viaCopy {
					if _, err := io.Copy(w, bytes.NewReader(data)); err != nil {
						t.Fatal(err)
					}
				} else {
					for p := data; len(p) > 0; {
						n := min(len(p), 1+rng.IntN(300<<10))
						if m, err := w.Write(p[:n]); err != nil || m != n {
							t.Fatalf("write %d: %d, %v", n, m, err)
						}
						p = p[n:]
					}
				}
				if usedDirect := w.(*writer).buf != nil; usedDirect != (s.Direct && size > directMin) {
					t.Fatalf("direct=%v size %d: direct I/O used: %v", s.Direct, size, usedDirect)
				}
				id, err := w.Commit()
				if err != nil {
					t.Fatalf("direct=%v size %d: commit: %v", s.Direct, size, err)
				}
				r, err := s.Open(context.Background(), id)
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(r)
				r.Close()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, data) {
					t.Fatalf("direct=%v size %d copy=%v: read back %d bytes, not what was written", s.Direct, size, viaCopy, len(got))
				}
			}
		}
		if left, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(left) != 0 {
			t.Fatalf("tmp/ holds %d files after every blob committed", len(left))
		}
	}
}

// TestAbortAfterDirect aborts a blob that had switched to direct I/O: the
// temp file goes, and nothing is committed.
func TestAbortAfterDirect(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Create(context.Background(), -1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, directMin+directBufSize+100)); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(); err == nil {
		t.Fatal("commit after abort succeeded")
	}
	if left, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(left) != 0 {
		t.Fatalf("tmp/ holds %d files after abort", len(left))
	}
	n := 0
	s.Walk(context.Background(), func(blob.Info) error { n++; return nil })
	if n != 0 {
		t.Fatalf("%d blobs committed", n)
	}
}
