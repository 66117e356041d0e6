package disk

import (
	"testing"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/blob/blobtest"
)

// TestConformance runs the blob.Store suite over a store of blob files
// only, and over one that puts small blobs into pack files (where the file
// system can punch holes). Both fsync as a server does.
func TestConformance(t *testing.T) {
	t.Run("Plain", func(t *testing.T) {
		blobtest.Run(t, func(t *testing.T, dir string) blob.Store {
			s := openForSuite(t, dir, Open)
			s.Packing = false
			return s
		}, blobtest.Options{})
	})
	t.Run("Packs", func(t *testing.T) {
		blobtest.Run(t, func(t *testing.T, dir string) blob.Store {
			s := openForSuite(t, dir, Open)
			if !s.Packing {
				t.Skip("file system cannot punch holes: no packs")
			}
			return s
		}, blobtest.Options{})
	})
}

// openForSuite opens a store over dir with open, for blobtest (which
// closes it).
func openForSuite(t *testing.T, dir string, open func(string) (*Store, error)) *Store {
	t.Helper()
	s, err := open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
