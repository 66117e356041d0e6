// Package blobtest is the conformance suite every blob.Store runs (disk in
// its plain, pack-file and shared-gateway forms):
//
//	func TestConformance(t *testing.T) {
//		blobtest.Run(t, func(t *testing.T, dir string) blob.Store { return openStore(t, dir) }, blobtest.Options{})
//	}
//
// Each case runs as a subtest over a fresh directory and opens one store
// there, or several over the same directory one after another (a restart)
// or, with Options.Shared, at once (gateways sharing it). It closes every
// store it opened that is an io.Closer, at the latest when the subtest ends
// (the opener must not). It uses only blob.Store and, where a store offers
// it, blob.TrashEmptier; a store that lacks an optional power is tested
// without it.
//
// The rules it holds a store to are blob.Store's: a committed blob reads
// back whole and survives a restart and its recovery (CleanTemp); Walk
// reports it with a time no earlier than its last write, and no blob once
// deleted; Open of a missing blob fails with fs.ErrNotExist; Delete of a
// missing blob, or twice, is no error; CleanTemp never removes a live
// write, and removes what a write that never ended left once older than
// its bound; and where stores share a directory, a delete keeps the bytes
// for readers that opened the blob before (blob.Grace).
package blobtest

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/blob"
)

// Opener opens a store over dir: a new one on an empty dir, or one more
// over what stores opened there before left (a restart, or, with
// Options.Shared, another gateway beside them).
type Opener func(t *testing.T, dir string) blob.Store

// Options say what kind of store the suite tests.
type Options struct {
	// Shared: stores over one directory may be open at once, as gateways
	// sharing it (blob.Grace): each spares the others' writes in progress,
	// and a delete keeps the bytes for readers elsewhere.
	Shared bool
}

// Run runs every case that applies to stores of opts' kind.
func Run(t *testing.T, open Opener, opts Options) {
	t.Helper()
	for _, c := range cases {
		if c.shared && !opts.Shared {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			e := &env{dir: t.TempDir(), opener: open, opts: opts, closed: map[blob.Store]bool{}}
			t.Cleanup(func() {
				for i := len(e.stores) - 1; i >= 0; i-- {
					e.close(t, e.stores[i])
				}
			})
			c.fn(t, e)
		})
	}
}

// testCase is one subtest; shared ones run only for Options.Shared.
type testCase struct {
	name   string
	shared bool
	fn     func(t *testing.T, e *env)
}

var cases = []testCase{
	{"Commit/RoundTrip", false, testRoundTrip},
	{"Commit/Pending", false, testPending},
	{"Commit/Once", false, testCommitOnce},
	{"Commit/ModTime", false, testModTime},
	{"Commit/Restart", false, testRestart},
	{"Open/Missing", false, testOpenMissing},
	{"Delete/Repeated", false, testDeleteRepeated},
	{"Walk/Stop", false, testWalkStop},
	{"Temp/Cleanup", false, testTempCleanup},
	{"Shared/LiveWrites", true, testSharedLiveWrites},
	{"Shared/DeleteKeepsReaders", true, testSharedDelete},
}

// env is one case's directory and the stores opened over it.
type env struct {
	dir    string
	opener Opener
	opts   Options
	stores []blob.Store
	closed map[blob.Store]bool
}

// open opens a store over the case's directory.
func (e *env) open(t *testing.T) blob.Store {
	t.Helper()
	s := e.opener(t, e.dir)
	e.stores = append(e.stores, s)
	return s
}

// close closes s (an io.Closer) once, as its process ending would.
func (e *env) close(t *testing.T, s blob.Store) {
	t.Helper()
	c, ok := s.(io.Closer)
	if !ok || e.closed[s] {
		return
	}
	e.closed[s] = true
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// slack is how far a time a store sets may fall before the moment it
// stands for (file systems stamp files with a coarse clock); pause is a
// wait that makes times told apart by more than slack.
const (
	slack = 100 * time.Millisecond
	pause = 4 * slack
)

// unknown is the size Create takes for a blob whose size is not known in
// advance.
const unknown = -1

// bytesOf returns n pseudo-random bytes of seed.
func bytesOf(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// declared is the size Create is told for data: len(data), or unknown.
func declared(data []byte, known bool) int64 {
	if known {
		return int64(len(data))
	}
	return unknown
}

// start creates a blob of the given declared size and writes data into
// it in uneven pieces, leaving it in progress.
func start(t *testing.T, s blob.Store, data []byte, size int64) blob.Writer {
	t.Helper()
	w, err := s.Create(t.Context(), size)
	if err != nil {
		t.Fatalf("Create(%d): %v", size, err)
	}
	write(t, w, data)
	return w
}

func write(t *testing.T, w blob.Writer, data []byte) {
	t.Helper()
	for p := data; len(p) > 0; {
		n := min(len(p), 1+len(p)/3)
		if m, err := w.Write(p[:n]); err != nil || m != n {
			t.Fatalf("Write(%d bytes): %d, %v", n, m, err)
		}
		p = p[n:]
	}
}

// commit commits w and returns the new ID.
func commit(t *testing.T, w blob.Writer) string {
	t.Helper()
	id, err := w.Commit()
	if err != nil {
		t.Fatalf("Commit: %v", err)
	}
	return id
}

// put writes data as a committed blob (of known size or not).
func put(t *testing.T, s blob.Store, data []byte, known bool) string {
	t.Helper()
	return commit(t, start(t, s, data, declared(data, known)))
}

// read returns blob id's bytes.
func read(t *testing.T, s blob.Store, id string) ([]byte, error) {
	t.Helper()
	r, err := s.Open(t.Context(), id)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// wantBlob fails unless blob id reads as data.
func wantBlob(t *testing.T, s blob.Store, id string, data []byte) {
	t.Helper()
	got, err := read(t, s, id)
	if err != nil {
		t.Errorf("blob %s: %v", id, err)
	} else if !bytes.Equal(got, data) {
		t.Errorf("blob %s reads %d bytes, not the %d written", id, len(got), len(data))
	}
}

// wantMissing fails unless Open of id fails with fs.ErrNotExist.
func wantMissing(t *testing.T, s blob.Store, id, what string) {
	t.Helper()
	r, err := s.Open(t.Context(), id)
	if err == nil {
		r.Close()
		t.Errorf("%s (%q) opens", what, id)
	} else if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s (%q): %v, want fs.ErrNotExist", what, id, err)
	}
}

// walk returns what Walk reports, by ID.
func walk(t *testing.T, s blob.Store) map[string]blob.Info {
	t.Helper()
	got := map[string]blob.Info{}
	err := s.Walk(t.Context(), func(i blob.Info) error {
		if _, dup := got[i.ID]; dup {
			t.Errorf("Walk reports %s twice", i.ID)
		}
		got[i.ID] = i
		return nil
	})
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	return got
}

// cleanTemp runs CleanTemp with the given bound and fails unless it
// removes want.
func cleanTemp(t *testing.T, s blob.Store, before time.Time, want int, what string) {
	t.Helper()
	if n, err := s.CleanTemp(t.Context(), before); n != want || err != nil {
		t.Errorf("CleanTemp (%s): %d removed, %v; want %d", what, n, err, want)
	}
}

// emptyTrash empties s's trash up to before, where it has one
// (blob.TrashEmptier), and reports whether it has.
func emptyTrash(t *testing.T, s blob.Store, before time.Time, want int) bool {
	t.Helper()
	te, ok := s.(blob.TrashEmptier)
	if !ok {
		return false
	}
	if n, err := te.EmptyTrash(t.Context(), before); n != want || err != nil {
		t.Errorf("EmptyTrash up to %v from now: %d, %v; want %d", time.Until(before).Round(time.Minute), n, err, want)
	}
	return true
}
