package fsck

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/blob/disk"
	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/meta/sqlite"
)

// TestBlobPowers: the check asks the blob store for more than blob.Store
// only where it offers it. Over disk an orphan's problem names its file
// and a write left in tmp/ is found; over a wrapper that passes on only
// blob.Store's methods, the orphan is still found (naming no file) and
// the temp phase has nothing to check.
func TestBlobPowers(t *testing.T) {
	dir := t.TempDir()
	d, err := disk.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	d.NoSync = true
	m, err := sqlite.Open(t.Context(), filepath.Join(dir, datadir.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	w, err := d.Create(t.Context(), -1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("orphan")); err != nil {
		t.Fatal(err)
	}
	orphan, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	left, err := d.Create(t.Context(), -1) // a write in progress: a file in tmp/
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = left.Abort() }()
	for _, tc := range []struct {
		name  string
		blobs blob.Store
		path  string
		temps int
	}{
		{"disk", d, d.Path(orphan), 1},
		{"wrapper", struct{ blob.Store }{d}, "", 0},
	} {
		var got []Problem
		sum := Summary{}
		c := &checker{opts: Options{DataDir: dir, Problem: func(p Problem) { got = append(got, p) }},
			meta: m, blobs: tc.blobs, sum: &sum, start: time.Now(), buf: make([]byte, 1<<10)}
		if err := c.orphans(t.Context()); err != nil {
			t.Fatalf("%s: orphans: %v", tc.name, err)
		}
		if err := c.temp(t.Context()); err != nil {
			t.Fatalf("%s: temp: %v", tc.name, err)
		}
		if len(got) != 1+tc.temps || got[0].Kind != Orphan || got[0].BlobID != orphan || got[0].Path != tc.path {
			t.Errorf("%s: problems %+v, want the orphan %s at %q and %d temp files", tc.name, got, orphan, tc.path, tc.temps)
		}
		if sum.TempFiles != tc.temps {
			t.Errorf("%s: %d temp files, want %d", tc.name, sum.TempFiles, tc.temps)
		}
	}
}
