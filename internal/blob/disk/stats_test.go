package disk

import (
	"context"
	"testing"
)

// put writes data as a blob of declared size (-1: unknown) and commits it.
func put(t *testing.T, s *Store, data []byte, size int64) string {
	t.Helper()
	w, err := s.Create(context.Background(), size)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	id, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestStats(t *testing.T) {
	s := packStore(t)
	defer s.Close()
	data := randBytes(1, 5000)
	file := put(t, s, data, -1) // unknown size: a file of its own
	put(t, s, data, int64(len(data)))
	if err := s.Delete(context.Background(), file); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.FilesWritten != 1 || st.PackedWritten != 1 || st.BytesWritten != 10000 || st.Deleted != 1 {
		t.Errorf("files %d packed %d bytes %d deleted %d, want 1 1 10000 1",
			st.FilesWritten, st.PackedWritten, st.BytesWritten, st.Deleted)
	}
	// The file's fsync and its directory's, and the pack's fdatasync.
	if n := st.Syncs.Count(); n != 3 {
		t.Errorf("%d syncs timed, want 3", n)
	}
	if st.PackFiles != 1 {
		t.Errorf("%d pack files, want 1", st.PackFiles)
	}
	if !st.SpaceKnown || st.Free <= 0 || st.Total < st.Free || st.Reserve != s.Reserve {
		t.Errorf("space: free %d total %d known %v reserve %d (store's %d)", st.Free, st.Total, st.SpaceKnown, st.Reserve, s.Reserve)
	}
}
