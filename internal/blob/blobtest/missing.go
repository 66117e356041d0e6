package blobtest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/blob"
)

// malformed are IDs no store makes.
var malformed = []string{"", "x", "../../../etc/passwd", "/", strings.Repeat("0", 32), strings.Repeat("z", 32),
	strings.Repeat("0", 32) + ".0.1"}

// testOpenMissing: Open of an ID never made, malformed or deleted fails
// with fs.ErrNotExist (where stores share a directory, once the trash is
// emptied past the delete).
func testOpenMissing(t *testing.T, e *env) {
	s := e.open(t)
	for _, id := range malformed {
		wantMissing(t, s, id, "an ID never made")
	}
	var deleted []string
	for _, known := range []bool{true, false} {
		id := put(t, s, bytesOf(5, 2000), known)
		if err := s.Delete(t.Context(), id); err != nil {
			t.Fatal(err)
		}
		deleted = append(deleted, id)
	}
	if e.opts.Shared && !emptyTrash(t, s, time.Now().Add(2*time.Minute), len(deleted)) {
		return // readers elsewhere may still open them, for as long as the store keeps them
	}
	for _, id := range deleted {
		wantMissing(t, s, id, "a deleted blob")
	}
}

// testDeleteRepeated: deleting a blob twice, or one never made, is no
// error and touches no other blob; Walk no longer reports a deleted blob.
func testDeleteRepeated(t *testing.T, e *env) {
	s := e.open(t)
	keep := map[string][]byte{}
	var gone []string
	for i, known := range []bool{true, false, true, false} {
		data := bytesOf(uint64(20+i), 6000)
		id := put(t, s, data, known)
		if i < 2 {
			gone = append(gone, id)
		} else {
			keep[id] = data
		}
	}
	for range 2 {
		for _, id := range append(gone, malformed...) {
			if err := s.Delete(t.Context(), id); err != nil {
				t.Errorf("Delete(%q): %v", id, err)
			}
		}
	}
	for id, data := range keep {
		wantBlob(t, s, id, data)
	}
	got := walk(t, s)
	for _, id := range gone {
		if _, ok := got[id]; ok {
			t.Errorf("Walk reports the deleted blob %s", id)
		}
	}
	if len(got) != len(keep) {
		t.Errorf("Walk: %d blobs, want the %d kept", len(got), len(keep))
	}
}

// testWalkStop: Walk stops at fn's first error and returns it, and stops
// with the context's error once it is cancelled.
func testWalkStop(t *testing.T, e *env) {
	s := e.open(t)
	for i, known := range []bool{true, false, true, false} {
		put(t, s, bytesOf(uint64(30+i), 1000), known)
	}
	stop := errors.New("stop here")
	calls := 0
	err := s.Walk(t.Context(), func(blob.Info) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("Walk with fn failing: %v after %d calls, want fn's error after 1", err, calls)
	}
	ctx, cancel := context.WithCancel(t.Context())
	calls = 0
	err = s.Walk(ctx, func(blob.Info) error { calls++; cancel(); return nil })
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("Walk cancelled: %v after %d calls, want context.Canceled after 1", err, calls)
	}
}
