//go:build unix

package disk

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/blob"
)

// TestTrash: a shared store's delete leaves a blob that another gateway
// is reading whole — a file and a packed record — and out of walks; its
// bytes go only when EmptyTrash's bound passes the delete's minute.
func TestTrash(t *testing.T) {
	dir := t.TempDir()
	a, b := openShared(t, dir), openShared(t, dir)
	ctx := t.Context()
	file, small := randBytes(1, 2<<20), randBytes(2, 50_000)
	fileID, err := writeAll(b, file, -1)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string][]byte{fileID: file}
	if b.Packing {
		packedID, err := writeAll(b, small, int64(len(small)))
		if err != nil {
			t.Fatal(err)
		}
		ids[packedID] = small
	}
	b.Close() // its packs retire: walks see them
	readers := make(map[string]io.ReadCloser)
	for id, data := range ids {
		r, err := a.Open(ctx, id) // gateway A serves a GET
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 100)
		if _, err := io.ReadFull(r, head); err != nil || !bytes.Equal(head, data[:100]) {
			t.Fatalf("%s: first bytes (%v)", id, err)
		}
		readers[id] = r
	}
	for id := range ids {
		if err := b.Delete(ctx, id); err != nil { // gateway B deletes
			t.Fatal(err)
		}
	}
	// A multipart GET opens its next part after the delete: still there.
	for id, data := range ids {
		if got, err := readBlob(t, a, id); err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s opened after the delete: %d bytes (%v)", id, len(got), err)
		}
	}
	for id, r := range readers {
		rest, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(rest, ids[id][100:]) {
			t.Errorf("%s: a read begun before another gateway's delete got other bytes (%v)", id, err)
		}
	}
	if got := walkIDs(t, a); len(got) != 0 {
		t.Errorf("walk after the deletes: %v, want nothing", got)
	}
	if n, err := a.EmptyTrash(ctx, time.Now().Add(-blob.Grace)); n != 0 || err != nil {
		t.Errorf("EmptyTrash an hour back: %d, %v; want nothing removed", n, err)
	}
	if n, err := a.EmptyTrash(ctx, time.Now().Add(2*time.Minute)); n != len(ids) || err != nil {
		t.Errorf("EmptyTrash past the deletes: %d, %v; want %d", n, err, len(ids))
	}
	for id := range ids {
		if r, err := a.Open(ctx, id); !errors.Is(err, fs.ErrNotExist) {
			if err == nil {
				r.Close()
			}
			t.Errorf("%s after EmptyTrash: %v, want not found", id, err)
		}
	}
	if left, _ := os.ReadDir(filepath.Join(dir, "trash")); len(left) != 0 {
		t.Errorf("trash/ holds %d entries after emptying", len(left))
	}
	if left, _ := os.ReadDir(filepath.Join(dir, "packs")); len(left) != 0 {
		t.Errorf("packs/ holds %d files after their only records went", len(left))
	}
}

// writeAll writes data as a blob of declared size size and commits it.
func writeAll(s *Store, data []byte, size int64) (string, error) {
	w, err := s.Create(context.Background(), size)
	if err != nil {
		return "", err
	}
	if _, err := w.Write(data); err != nil {
		_ = w.Abort()
		return "", err
	}
	return w.Commit()
}
