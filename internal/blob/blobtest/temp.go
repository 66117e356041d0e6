package blobtest

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/blob"
)

// testTempCleanup: CleanTemp never removes a write in progress of its own
// store, however far its bound; what a write left that never ended (its
// store closed first, as a process ends) goes once it is older than the
// bound, and only then.
func testTempCleanup(t *testing.T, e *env) {
	s := e.open(t)
	data := bytesOf(40, 50_000)
	live := start(t, s, data[:20_000], unknown)
	cleanTemp(t, s, time.Now().Add(2*blob.Grace), 0, "its own write in progress")
	write(t, live, data[20_000:])
	id := commit(t, live)
	start(t, s, data, unknown) // never ends
	e.close(t, s)

	again := e.open(t)
	cleanTemp(t, again, time.Now().Add(-blob.Grace), 0, "a leftover younger than the bound")
	cleanTemp(t, again, time.Now().Add(time.Minute), 1, "the leftover of a write that never ended")
	cleanTemp(t, again, time.Now().Add(time.Minute), 0, "once more")
	wantBlob(t, again, id, data)
	if got := walk(t, again); len(got) != 1 {
		t.Errorf("Walk: %v, want only %s", got, id)
	}
}

// testSharedLiveWrites: where stores share a directory, none removes
// another live one's write in progress, however far its bound: the writes
// then commit and read back from the other store.
func testSharedLiveWrites(t *testing.T, e *env) {
	a, b := e.open(t), e.open(t)
	data := bytesOf(50, 80_000)
	wa, wb := start(t, a, data, unknown), start(t, b, data, unknown)
	far := time.Now().Add(2 * blob.Grace)
	cleanTemp(t, a, far, 0, "live writes of two gateways")
	cleanTemp(t, b, far, 0, "live writes of two gateways")
	wantBlob(t, b, commit(t, wa), data)
	wantBlob(t, a, commit(t, wb), data)
}

// testSharedDelete: where stores share a directory, a delete on one keeps
// the blob whole for a reader on another that opened it before, and for
// one that opens it after (the next part of a multipart GET), but out of
// Walk; a trash (blob.TrashEmptier) keeps it until emptied past the
// delete, not before.
func testSharedDelete(t *testing.T, e *env) {
	a, b := e.open(t), e.open(t)
	written := map[string][]byte{}
	for i, known := range []bool{true, false} {
		data := bytesOf(uint64(60+i), 300_000)
		written[put(t, b, data, known)] = data
	}
	readers := map[string]io.ReadCloser{}
	for id, data := range written {
		r, err := a.Open(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 100)
		if _, err := io.ReadFull(r, head); err != nil || !bytes.Equal(head, data[:100]) {
			t.Fatalf("blob %s: first bytes (%v)", id, err)
		}
		readers[id] = r
	}
	for id := range written {
		if err := b.Delete(t.Context(), id); err != nil {
			t.Fatal(err)
		}
	}
	for id, data := range written {
		wantBlob(t, a, id, data)
	}
	for id, r := range readers {
		rest, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(rest, written[id][100:]) {
			t.Errorf("blob %s: a read begun before another gateway's delete got other bytes (%v)", id, err)
		}
	}
	for _, s := range []blob.Store{a, b} {
		for id := range walk(t, s) {
			if _, ok := written[id]; ok {
				t.Errorf("Walk reports the deleted blob %s", id)
			}
		}
	}
	if !emptyTrash(t, b, time.Now().Add(-blob.Grace), 0) {
		return
	}
	emptyTrash(t, b, time.Now().Add(2*time.Minute), len(written))
	for id := range written {
		wantMissing(t, a, id, "a deleted blob after the trash was emptied")
	}
}
