//go:build unix

package disk

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestTrash: what blobtest's Shared/DeleteKeepsReaders holds any shared
// store to (readers of a blob another gateway deletes read it whole, until
// the trash is emptied past the delete), and what emptying leaves on disk:
// nothing in trash/, and no pack whose only records went.
func TestTrash(t *testing.T) {
	dir := t.TempDir()
	s := openShared(t, dir)
	ctx := t.Context()
	ids := []string{}
	for i, size := range []int64{-1, 50_000} {
		id, err := writeAll(s, randBytes(uint64(i), 50_000), size)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	s.Close() // its packs retire: emptying the trash may remove them
	for _, id := range ids {
		if err := s.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.EmptyTrash(ctx, time.Now().Add(2*time.Minute)); n != len(ids) || err != nil {
		t.Errorf("EmptyTrash past the deletes: %d, %v; want %d", n, err, len(ids))
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
