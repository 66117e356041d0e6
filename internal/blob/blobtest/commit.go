package blobtest

import (
	"io"
	"testing"
	"time"
)

// sizes are the blob sizes the write cases use: empty, around 4 KiB, and
// larger than a small blob.
var sizes = []int{0, 1, 4095, 4096, 4097, 100_000, 1<<20 + 7}

// testRoundTrip: blobs of every size, of known size or not, commit under
// distinct IDs, read back whole and from any place Seek takes the reader
// to, and Walk reports each with its size.
func testRoundTrip(t *testing.T, e *env) {
	s := e.open(t)
	written := map[string][]byte{}
	for i, n := range sizes {
		for _, known := range []bool{true, false} {
			data := bytesOf(uint64(i), n)
			id := put(t, s, data, known)
			if _, dup := written[id]; dup || id == "" {
				t.Fatalf("Commit gave ID %q again", id)
			}
			written[id] = data
		}
	}
	for id, data := range written {
		wantBlob(t, s, id, data)
		r, err := s.Open(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if end, err := r.Seek(0, io.SeekEnd); end != int64(len(data)) || err != nil {
			t.Errorf("blob %s: Seek to the end: %d, %v; want %d", id, end, err, len(data))
		}
		half := int64(len(data) / 2)
		if _, err := r.Seek(half, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		if rest, err := io.ReadAll(r); err != nil || string(rest) != string(data[half:]) {
			t.Errorf("blob %s read from %d: %d bytes (%v), want %d", id, half, len(rest), err, len(data)-int(half))
		}
		r.Close()
	}
	got := walk(t, s)
	for id, data := range written {
		if i, ok := got[id]; !ok || i.Size != int64(len(data)) {
			t.Errorf("Walk: blob %s reported as %+v (%v), want %d bytes", id, i, ok, len(data))
		}
	}
}

// testPending: until Commit a write has no ID; whatever Walk reports of it
// meanwhile is no older than its Create (so that no sweep takes it for an
// old orphan), and once aborted it leaves nothing: nothing walked, nothing
// for the next store's CleanTemp.
func testPending(t *testing.T, e *env) {
	s := e.open(t)
	created := time.Now()
	known := start(t, s, bytesOf(1, 5000), 5000)
	unsized := start(t, s, bytesOf(2, 70_000), unknown)
	for id, i := range walk(t, s) {
		if i.ModTime.Before(created.Add(-slack)) {
			t.Errorf("Walk reports %s, of a write in progress, as written at %v, before its Create at %v", id, i.ModTime, created)
		}
	}
	for _, w := range []interface{ Abort() error }{known, unsized} {
		if err := w.Abort(); err != nil {
			t.Errorf("Abort: %v", err)
		}
	}
	if got := walk(t, s); len(got) != 0 {
		t.Errorf("Walk after the writes were aborted: %v", got)
	}
	e.close(t, s)
	// A store spares its own files: another finds what Abort left.
	cleanTemp(t, e.open(t), time.Now().Add(2*time.Hour), 0, "after every write was aborted")
}

// testCommitOnce: a writer commits once; Commit after Commit or Abort
// fails, and Abort after Commit changes nothing.
func testCommitOnce(t *testing.T, e *env) {
	s := e.open(t)
	for _, known := range []bool{true, false} {
		data := bytesOf(3, 3000)
		w := start(t, s, data, declared(data, known))
		id := commit(t, w)
		if again, err := w.Commit(); err == nil {
			t.Errorf("second Commit succeeded (%s)", again)
		}
		if err := w.Abort(); err != nil {
			t.Errorf("Abort after Commit: %v", err)
		}
		wantBlob(t, s, id, data)

		aborted := start(t, s, data, declared(data, known))
		if err := aborted.Abort(); err != nil {
			t.Fatal(err)
		}
		if id, err := aborted.Commit(); err == nil {
			t.Errorf("Commit after Abort succeeded (%s)", id)
		}
	}
	if got := walk(t, s); len(got) != 2 {
		t.Errorf("Walk: %d blobs, want the 2 committed", len(got))
	}
}

// testModTime: Walk reports a blob written slowly with the time of its
// last bytes or later, not of its Create: blob.Grace counts from there.
func testModTime(t *testing.T, e *env) {
	s := e.open(t)
	data := bytesOf(4, 9000)
	var ws []interface {
		Write([]byte) (int, error)
		Commit() (string, error)
	}
	for _, known := range []bool{true, false} {
		w := start(t, s, data[:4000], declared(data, known))
		ws = append(ws, w)
	}
	time.Sleep(pause) // a slow client
	last := time.Now()
	var ids []string
	for _, w := range ws {
		if _, err := w.Write(data[4000:]); err != nil {
			t.Fatal(err)
		}
		id, err := w.Commit()
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	done := time.Now()
	got := walk(t, s)
	for _, id := range ids {
		i, ok := got[id]
		if !ok {
			t.Errorf("Walk does not report %s", id)
		} else if i.ModTime.Before(last.Add(-slack)) || i.ModTime.After(done.Add(slack)) {
			t.Errorf("blob %s: Walk's time %v, want between its last write at %v and %v", id, i.ModTime, last, done)
		}
	}
}

// testRestart: what committed is there for a store opened after this one
// closed, once that store's recovery (CleanTemp) has run.
func testRestart(t *testing.T, e *env) {
	s := e.open(t)
	written := map[string][]byte{}
	for i, n := range []int{0, 300, 200_000} {
		for _, known := range []bool{true, false} {
			data := bytesOf(uint64(10+i), n)
			written[put(t, s, data, known)] = data
		}
	}
	e.close(t, s)
	again := e.open(t)
	cleanTemp(t, again, time.Now().Add(2*time.Hour), 0, "recovery after a clean close")
	for id, data := range written {
		wantBlob(t, again, id, data)
	}
	if got := walk(t, again); len(got) != len(written) {
		t.Errorf("Walk after the restart: %d blobs, want %d", len(got), len(written))
	}
}
