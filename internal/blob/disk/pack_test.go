package disk

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/blob"
)

// packStore opens a store that packs blobs up to 1 MiB, or skips the test
// where the file system cannot punch holes.
func packStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !s.Packing {
		t.Skip("file system cannot punch holes: no packs")
	}
	return s
}

func randBytes(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 11))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// putPacked writes data as a blob of declared size len(data), in pieces.
func putPacked(t *testing.T, s *Store, data []byte) string {
	t.Helper()
	w, err := s.Create(context.Background(), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := w.(*packWriter); !ok {
		t.Fatalf("a %d-byte blob of known size is not packed", len(data))
	}
	for p := data; len(p) > 0; {
		n := min(len(p), 1+len(p)/3)
		if _, err := w.Write(p[:n]); err != nil {
			t.Fatal(err)
		}
		p = p[n:]
	}
	id, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func readBlob(t *testing.T, s *Store, id string) ([]byte, error) {
	t.Helper()
	r, err := s.Open(context.Background(), id)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

func walkIDs(t *testing.T, s *Store) []string {
	t.Helper()
	var ids []string
	if err := s.Walk(context.Background(), func(b blob.Info) error { ids = append(ids, b.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	return ids
}

// TestPackRoundTrip writes records of sizes around the 4 KiB alignment
// (with the header) and reads each back whole, by ranges, and through the
// file range that sendfile uses; unknown and large sizes still get files.
func TestPackRoundTrip(t *testing.T) {
	s := packStore(t)
	sizes := []int{1, packAlign - packHeaderSize - 1, packAlign - packHeaderSize, packAlign - packHeaderSize + 1,
		packAlign, 100_000, int(s.PackMax)}
	ids := map[string][]byte{}
	for i, size := range sizes {
		data := randBytes(uint64(i), size)
		id := putPacked(t, s, data)
		p, ok := parsePackedID(id)
		if !ok || p.size != int64(size) || p.off%packAlign != 0 {
			t.Fatalf("id %q for %d bytes", id, size)
		}
		ids[id] = data
	}
	for id, data := range ids {
		got, err := readBlob(t, s, id)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: read %d bytes (%v), want %d", id, len(got), err, len(data))
		}
		r, _ := s.Open(context.Background(), id)
		off := int64(len(data) / 2)
		if _, err := r.Seek(off, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		f, left, err := r.(blob.FileRanger).FileRange()
		if err != nil || left != int64(len(data))-off {
			t.Fatalf("file range: %d left (%v), want %d", left, err, int64(len(data))-off)
		}
		rest, err := io.ReadAll(io.LimitReader(f, left))
		if err != nil || !bytes.Equal(rest, data[off:]) {
			t.Errorf("%s: file range from %d differs", id, off)
		}
		if n, _ := r.Seek(0, io.SeekEnd); n != int64(len(data)) {
			t.Errorf("%s: size by seek %d, want %d", id, n, len(data))
		}
		r.Close()
	}
	if got := walkIDs(t, s); len(got) != len(ids) {
		t.Errorf("walk found %d blobs, want %d: %v", len(got), len(ids), got)
	}
	for _, size := range []int64{-1, s.PackMax + 1, 0} {
		w, err := s.Create(context.Background(), size)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := w.(*writer); !ok {
			t.Errorf("a blob of size %d went into a pack", size)
		}
		_ = w.Abort()
	}
}

// TestPackRefusesWrongLength: a record that gets more or fewer bytes than
// declared does not commit, and its range is freed without touching its
// neighbours.
func TestPackRefusesWrongLength(t *testing.T) {
	s := packStore(t)
	before := randBytes(1, 5000)
	beforeID := putPacked(t, s, before)
	for _, n := range []int{4999, 5001} {
		w, err := s.Create(context.Background(), 5000)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(randBytes(2, n)); err != nil {
			t.Fatal(err)
		}
		if id, err := w.Commit(); err == nil {
			t.Fatalf("%d bytes for a 5000-byte record committed as %s", n, id)
		}
	}
	after := randBytes(3, 7000)
	afterID := putPacked(t, s, after)
	if got := walkIDs(t, s); !slices.Equal(got, sortedIDs(beforeID, afterID)) {
		t.Errorf("walk: %v, want only the two committed records", got)
	}
	for id, want := range map[string][]byte{beforeID: before, afterID: after} {
		if got, err := readBlob(t, s, id); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s damaged by a refused neighbour (%v)", id, err)
		}
	}
}

func sortedIDs(ids ...string) []string { slices.Sort(ids); return ids }

// TestPackDelete: a deleted record's blocks are freed and it no longer
// opens; aborting frees a record in progress; a pack no process appends
// to is removed once its last record goes, the active one never.
func TestPackDelete(t *testing.T) {
	s := packStore(t)
	s.PackFileMax = 3 * packAlign // three one-block records per pack
	s.stripes = 1
	var ids []string
	for i := range 7 {
		ids = append(ids, putPacked(t, s, randBytes(uint64(i), 1000)))
	}
	w, err := s.Create(context.Background(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write(randBytes(99, 1000))
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	packs := func() []string {
		entries, _ := os.ReadDir(filepath.Join(s.root, "packs"))
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	if n := len(packs()); n != 3 {
		t.Fatalf("%d packs for 8 one-block records at 3 per pack, want 3", n)
	}
	if got := walkIDs(t, s); !slices.Equal(got, sortedIDs(slices.Clone(ids)...)) {
		t.Fatalf("walk after an abort: %v, want %v", got, ids)
	}
	first, _ := parsePackedID(ids[0])
	for _, id := range ids[:3] { // the whole first pack
		if err := s.Delete(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Open(context.Background(), id); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("deleted %s opens: %v", id, err)
		}
	}
	if _, err := os.Stat(s.packPath(first.pack)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an emptied pack is still there: %v", err)
	}
	last, _ := parsePackedID(ids[6])
	if err := s.Delete(context.Background(), ids[6]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.packPath(last.pack)); err != nil {
		t.Errorf("the active pack was removed when it had no data: %v", err)
	}
	for i, id := range ids[3:6] {
		if got, err := readBlob(t, s, id); err != nil || !bytes.Equal(got, randBytes(uint64(i+3), 1000)) {
			t.Errorf("%s damaged by deletes in other packs (%v)", id, err)
		}
	}
	if err := s.Delete(context.Background(), ids[0]); err != nil {
		t.Errorf("deleting a blob twice: %v", err)
	}
}

// TestPackWalk: walks report records with their creation times, skip
// blocks without a header (a crash lost it) and packs another process
// still appends to.
func TestPackWalk(t *testing.T) {
	s := packStore(t)
	s.stripes = 1
	start := time.Now().Add(-time.Second)
	a := putPacked(t, s, randBytes(1, 10_000))
	// Garbage where the next record would go: data a crash left without
	// its header.
	pa, _ := parsePackedID(a)
	garbageAt := pa.off + recordLen(pa.size)
	f, err := os.OpenFile(s.packPath(pa.pack), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xAB}, 2*packAlign), garbageAt); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s.active[0].tail = garbageAt + 2*packAlign
	b := putPacked(t, s, randBytes(2, 300))

	var infos []blob.Info
	if err := s.Walk(context.Background(), func(i blob.Info) error { infos = append(infos, i); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(infos) != 2 || infos[0].ID != a || infos[1].ID != b || infos[0].Size != 10_000 || infos[1].Size != 300 {
		t.Fatalf("walk: %+v, want %s and %s", infos, a, b)
	}
	if infos[0].ModTime.Before(start) || infos[0].ModTime.After(time.Now()) {
		t.Errorf("record time %v, want about now", infos[0].ModTime)
	}

	// Another store over the same directory (as another process would be)
	// does not walk a pack this one appends to.
	other, err := Open(s.root)
	if err != nil {
		t.Fatal(err)
	}
	if got := walkIDs(t, other); len(got) != 0 {
		t.Errorf("walk of a pack another store appends to: %v", got)
	}
	s.Close()
	if got := walkIDs(t, other); !slices.Equal(got, sortedIDs(a, b)) {
		t.Errorf("walk after the writer retired the pack: %v, want %v", got, sortedIDs(a, b))
	}
}

// TestPackConcurrentCommits: writers share fdatasync calls and rotate
// packs; every record reads back.
func TestPackConcurrentCommits(t *testing.T) {
	s := packStore(t)
	s.PackFileMax = 1 << 20
	const writers, each = 8, 40
	var mu sync.Mutex
	ids := map[string]uint64{}
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				seed := uint64(g*1000 + i)
				data := randBytes(seed, 1+int(seed*7919%60_000))
				w, err := s.Create(context.Background(), int64(len(data)))
				if err == nil {
					_, err = w.Write(data)
				}
				var id string
				if err == nil {
					id, err = w.Commit()
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				ids[id] = seed
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(ids) != writers*each {
		t.Fatalf("%d distinct ids for %d records", len(ids), writers*each)
	}
	for id, seed := range ids {
		want := randBytes(seed, 1+int(seed*7919%60_000))
		if got, err := readBlob(t, s, id); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: %d bytes (%v), want %d", id, len(got), err, len(want))
		}
	}
	if got := walkIDs(t, s); len(got) != len(ids) {
		t.Errorf("walk found %d records, want %d", len(got), len(ids))
	}
}

// TestPackedIDs: only well-formed IDs parse; a record's header must name
// its own pack, so data shaped like a header elsewhere is not a record.
func TestPackedIDs(t *testing.T) {
	good := packedID{pack: newID(), off: 3 * packAlign, size: 0x1234}
	if p, ok := parsePackedID(good.String()); !ok || p != good {
		t.Errorf("round trip of %s: %+v %v", good, p, ok)
	}
	for _, bad := range []string{"", newID(), newID() + ".0", newID() + ".1000.0", newID() + ".1001.10",
		newID() + ".01000.10", newID() + ".1000.010", newID() + ".-1000.10", "zz" + newID()[2:] + ".0.1", newID() + ".0.1.2"} {
		if p, ok := parsePackedID(bad); ok {
			t.Errorf("%q parses as %+v", bad, p)
		}
	}
	var a, b pack
	hexDecode(a.raw[:], newID())
	hexDecode(b.raw[:], newID())
	h := a.header(77, time.Now())
	if n, _, ok := parseHeader(h[:], a.raw); !ok || n != 77 {
		t.Errorf("own header: %d %v", n, ok)
	}
	if _, _, ok := parseHeader(h[:], b.raw); ok {
		t.Error("a header of another pack parses")
	}
	h[30] ^= 1
	if _, _, ok := parseHeader(h[:], a.raw); ok {
		t.Error("a damaged header parses")
	}
}
