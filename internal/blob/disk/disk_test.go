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

// TestRoundTrip writes blobs of sizes around the writeback chunk, in
// uneven pieces and through io.Copy, checks that writeback was started for
// every full chunk, and reads each blob back.
func TestRoundTrip(t *testing.T) {
	sizes := []int{0, 1, 4095, 4096, writebackChunk - 1, writebackChunk, writebackChunk + 1,
		2*writebackChunk + 4097, 3*writebackChunk + 12345}
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
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
			// Writeback starts once a chunk is dirty, so less than a chunk
			// is left for the fsync, and nothing when under a chunk.
			if f := w.(*writer).flushed; int64(size)-f >= writebackChunk || (size < writebackChunk && f != 0) {
				t.Fatalf("size %d copy=%v: writeback started for %d bytes", size, viaCopy, f)
			}
			id, err := w.Commit()
			if err != nil {
				t.Fatalf("size %d: commit: %v", size, err)
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
				t.Fatalf("size %d copy=%v: read back %d bytes, not what was written", size, viaCopy, len(got))
			}
		}
	}
	if left, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(left) != 0 {
		t.Fatalf("tmp/ holds %d files after every blob committed", len(left))
	}
}

// TestAbortAfterWriteback aborts a blob whose writeback had begun: the
// temp file goes, and nothing is committed.
func TestAbortAfterWriteback(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Create(context.Background(), -1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, writebackChunk+100)); err != nil {
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
	_ = s.Walk(context.Background(), func(blob.Info) error { n++; return nil })
	if n != 0 {
		t.Fatalf("%d blobs committed", n)
	}
}
