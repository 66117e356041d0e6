package sqlite

import (
	"path/filepath"
	"testing"
)

// TestNoCheckpoint: with Options.NoCheckpoint the writer leaves WAL
// checkpoints to Litestream (ADR 0021); TestPragmas checks the default.
func TestNoCheckpoint(t *testing.T) {
	s, err := OpenWith(t.Context(), filepath.Join(t.TempDir(), "meta.db"), Options{NoCheckpoint: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ckpt int
	if err := s.w.QueryRowContext(t.Context(), "PRAGMA wal_autocheckpoint").Scan(&ckpt); err != nil || ckpt != 0 {
		t.Errorf("writer wal_autocheckpoint = %d, %v; want 0 (off)", ckpt, err)
	}
}
