package service

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/blob/disk"
)

// TestReadWhileOverwritten: a reader opened before an overwrite reads the
// old bytes to the end, for a blob file and for a packed blob (whose
// deletion punches its bytes out of a file the reader has open); the old
// blob is deleted once the reader closes.
func TestReadWhileOverwritten(t *testing.T) {
	forBlobLayouts(t, func(s *Service, b *disk.Store, packed bool, put func([]byte)) {
		ctx := t.Context()
		old, repl := bytes.Repeat([]byte("old!"), 50_000), bytes.Repeat([]byte("new?"), 40_000)
		put(old)
		o, r, err := s.OpenObject(ctx, "b", "k", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if isPacked := strings.Count(o.BlobID, ".") == 2; isPacked != packed { // <pack>.<offset>.<length>
			t.Fatalf("packed %v: blob %s", packed, o.BlobID)
		}
		head := make([]byte, 1000)
		if _, err := io.ReadFull(r, head); err != nil {
			t.Fatal(err)
		}
		put(repl)
		if n := countBlobs(t, b); n != 2 {
			t.Errorf("packed %v: %d blobs while the old one is read, want 2", packed, n)
		}
		rest, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(append(head, rest...), old) {
			t.Errorf("packed %v: a reader open across an overwrite read other bytes (%v)", packed, err)
		}
		var ranged bytes.Buffer
		if _, err := r.CopyRange(&ranged, 7, 100); err != nil || !bytes.Equal(ranged.Bytes(), old[7:107]) {
			t.Errorf("packed %v: range after the overwrite: %q (%v)", packed, ranged.Bytes(), err)
		}
		r.Close()
		if n := countBlobs(t, b); n != 1 {
			t.Errorf("packed %v: %d blobs after the reader closed, want 1", packed, n)
		}
		_, r, err = s.OpenObject(ctx, "b", "k", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := io.ReadAll(r); !bytes.Equal(got, repl) {
			t.Errorf("packed %v: the new object reads %d bytes", packed, len(got))
		}
		r.Close()
	})
}

// forBlobLayouts runs test twice on a fresh service without inline data:
// every blob a file, then (where the file system can punch holes) every
// blob a pack record. put writes the object "k".
func forBlobLayouts(t *testing.T, test func(s *Service, b *disk.Store, packed bool, put func([]byte))) {
	t.Helper()
	for _, packed := range []bool{false, true} {
		s, b := newTestService(t, 0)
		if packed && !b.Packing {
			t.Log("file system cannot punch holes: no packs")
			continue
		}
		if !packed {
			b.PackMax = 0
		}
		put := func(data []byte) {
			t.Helper()
			if _, err := s.PutObject(t.Context(), PutInput{Bucket: "b", Key: "k", Body: bytes.NewReader(data), Size: int64(len(data))}); err != nil {
				t.Fatal(err)
			}
		}
		test(s, b, packed, put)
	}
}
