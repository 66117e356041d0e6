package disk

import (
	"context"
	"os"
	"testing"

	"github.com/jogstore/jog/internal/blob"
)

// TestOptionalPowers: the store offers blob.SpaceChecker, and what Open
// returns can be sent with sendfile: an *os.File for a blob file, a
// blob.FileRanger for a packed blob.
func TestOptionalPowers(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var bs blob.Store = s
	if _, ok := bs.(blob.SpaceChecker); !ok {
		t.Error("disk.Store does not offer blob.SpaceChecker")
	}
	ctx := context.Background()
	put := func(size int64) string {
		t.Helper()
		w, err := s.Create(ctx, size)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(make([]byte, max(size, 10))); err != nil {
			t.Fatal(err)
		}
		id, err := w.Commit()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	r, err := s.Open(ctx, put(-1))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.(*os.File); !ok {
		t.Errorf("a blob file opens as %T, not *os.File", r)
	}
	r.Close()
	if !s.Packing {
		t.Skip("file system cannot punch holes: no packs")
	}
	r, err = s.Open(ctx, put(100))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, ok := r.(blob.FileRanger); !ok {
		t.Errorf("a packed blob opens as %T, not a blob.FileRanger", r)
	}
}
