//go:build unix

package disk

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/blob/blobtest"
)

// openShared opens a shared store (one gateway) over dir.
func openShared(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := OpenShared(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.NoSync = true
	t.Cleanup(func() { s.Close() })
	return s
}

// crash ends s as kill -9 would: its lock goes, its files stay.
func crash(s *Store) {
	_ = s.unlock()
	s.unlock = nil
}

// startWrite creates a blob of unknown size (a file in tmp/) and writes
// data into it, leaving it in progress.
func startWrite(t *testing.T, s *Store, data []byte) blob.Writer {
	t.Helper()
	w, err := s.Create(t.Context(), -1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	return w
}

// tempFiles lists tmp/'s entries by gateway ("" for names without one),
// lock files apart.
func tempFiles(t *testing.T, dir string) (files map[string][]string, locks []string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "tmp"))
	if err != nil {
		t.Fatal(err)
	}
	files = make(map[string][]string)
	for _, e := range entries {
		g, lock := TempOwner(e.Name())
		if lock {
			locks = append(locks, g)
		} else {
			files[g] = append(files[g], e.Name())
		}
	}
	slices.Sort(locks)
	return files, locks
}

func age(t *testing.T, path string, d time.Duration) {
	t.Helper()
	old := time.Now().Add(-d)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

// TestGatewayTemp: a gateway's CleanTemp removes what ended gateways left
// (and their lock files) once older than its bound, never a live
// gateway's write in progress however old, nor its own; the writes left
// alone then commit.
func TestGatewayTemp(t *testing.T) {
	dir := t.TempDir()
	a, b, c := openShared(t, dir), openShared(t, dir), openShared(t, dir)
	if a.Gateway() == b.Gateway() || !validGateway(a.Gateway()) {
		t.Fatalf("gateway IDs %q and %q", a.Gateway(), b.Gateway())
	}
	ctx := t.Context()
	data := bytes.Repeat([]byte("live"), 10_000)
	wa, wb := startWrite(t, a, data), startWrite(t, b, data)
	startWrite(t, c, data)
	startWrite(t, c, data)
	crash(c)
	legacyOld, legacyNew := filepath.Join(dir, "tmp", newID()), filepath.Join(dir, "tmp", newID())
	for _, p := range []string{legacyOld, legacyNew} {
		if err := os.WriteFile(p, data, 0o640); err != nil {
			t.Fatal(err)
		}
	}
	// Every file in tmp/ but one of C's and the newer legacy one is old;
	// B's write stalled for hours is still B's.
	files, locks := tempFiles(t, dir)
	for _, g := range []string{a.Gateway(), b.Gateway()} {
		for _, name := range files[g] {
			age(t, filepath.Join(dir, "tmp", name), 3*blob.Grace)
		}
	}
	age(t, filepath.Join(dir, "tmp", files[c.Gateway()][0]), 3*blob.Grace)
	age(t, legacyOld, 3*blob.Grace)
	if want := sortedIDs(a.Gateway(), b.Gateway(), c.Gateway()); !slices.Equal(locks, want) {
		t.Fatalf("lock files of %v, want %v", locks, want)
	}

	n, err := a.CleanTemp(ctx, time.Now().Add(-blob.Grace))
	if err != nil || n != 2 {
		t.Errorf("CleanTemp: %d removed (%v), want 2 (C's old leftover, the old legacy file)", n, err)
	}
	files, locks = tempFiles(t, dir)
	if len(files[a.Gateway()]) != 1 || len(files[b.Gateway()]) != 1 {
		t.Errorf("live gateways' writes in progress touched: %v", files)
	}
	if len(files[c.Gateway()]) != 1 || !slices.Equal(files[""], []string{filepath.Base(legacyNew)}) {
		t.Errorf("leftovers younger than the bound: %v, want C's newer one and the newer legacy file", files)
	}
	if want := sortedIDs(a.Gateway(), b.Gateway()); !slices.Equal(locks, want) {
		t.Errorf("lock files of %v after CleanTemp, want %v (C's gone)", locks, want)
	}
	// C's newer leftover goes when the bound passes it; B's stays.
	if n, err := b.CleanTemp(ctx, time.Now().Add(time.Minute)); err != nil || n != 2 {
		t.Errorf("second CleanTemp: %d removed (%v), want 2", n, err)
	}
	for name, w := range map[string]blob.Writer{"A": wa, "B": wb} {
		id, err := w.Commit()
		if err != nil {
			t.Fatalf("%s's write after the cleanups: %v", name, err)
		}
		if got, err := readBlob(t, a, id); err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s's blob reads %d bytes (%v)", name, len(got), err)
		}
	}
	// A gateway that closes takes its lock file with it.
	b.Close()
	if _, locks := tempFiles(t, dir); !slices.Equal(locks, []string{a.Gateway()}) {
		t.Errorf("lock files after B closed: %v", locks)
	}
}

// TestGatewayWalkTemp: WalkTemp reports writes in progress, not gateways'
// lock files, and RemoveTemp removes by the reported name.
func TestGatewayWalkTemp(t *testing.T) {
	dir := t.TempDir()
	s := openShared(t, dir)
	startWrite(t, s, []byte("x"))
	var names []string
	if err := s.WalkTemp(t.Context(), func(i blob.Info) error { names = append(names, i.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 || !strings.HasPrefix(names[0], s.Gateway()+"-") {
		t.Fatalf("WalkTemp: %v, want one write of gateway %s", names, s.Gateway())
	}
	if err := s.RemoveTemp(names[0]); err != nil {
		t.Fatal(err)
	}
	if files, _ := tempFiles(t, dir); len(files) != 0 {
		t.Errorf("after RemoveTemp: %v", files)
	}
}

// TestGatewayPacks: each gateway appends only to packs named for it, the
// records of two gateways writing at once get distinct IDs, and a record's
// walk time is its commit's, not its reservation's.
func TestGatewayPacks(t *testing.T) {
	dir := t.TempDir()
	a, b := openShared(t, dir), openShared(t, dir)
	if !a.Packing {
		t.Skip("file system cannot punch holes: no packs")
	}
	ids := make(map[string]string) // id → gateway
	for i := range 20 {
		for _, s := range []*Store{a, b} {
			id := putPacked(t, s, randBytes(uint64(i), 100+i))
			if _, dup := ids[id]; dup {
				t.Fatalf("blob ID %s given twice", id)
			}
			ids[id] = s.Gateway()
			if !strings.HasPrefix(id, s.Gateway()) {
				t.Errorf("gateway %s wrote record %s into another's pack", s.Gateway(), id)
			}
		}
	}
	w, err := a.Create(t.Context(), 10)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write(make([]byte, 10))
	time.Sleep(10 * time.Millisecond) // a slow client: commit later than the reservation
	committing := time.Now()
	id, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	a.Close() // its packs are walked by others once retired
	var when time.Time
	_ = b.Walk(t.Context(), func(i blob.Info) error {
		if i.ID == id {
			when = i.ModTime
		}
		return nil
	})
	if when.Before(committing) {
		t.Errorf("record time %v precedes its commit at %v", when, committing)
	}
}

// TestConformanceShared runs the blob.Store suite over gateways sharing a
// directory (OpenShared), small blobs in packs where the file system can
// punch holes.
func TestConformanceShared(t *testing.T) {
	blobtest.Run(t, func(t *testing.T, dir string) blob.Store {
		s := openForSuite(t, dir, OpenShared)
		s.NoSync = true
		return s
	}, blobtest.Options{Shared: true})
}
