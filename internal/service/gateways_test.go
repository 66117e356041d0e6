//go:build unix

package service

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/blob/disk"
	"github.com/jogstore/jog/internal/meta"
)

// refs answers UnreferencedBlobs as a metadata store shared by gateways
// would: a blob is referenced once the metadata of its write has
// committed. The sweep asks the metadata store nothing else.
type refs struct {
	meta.Store
	mu  sync.Mutex
	ids map[string]bool
}

func newRefs() *refs { return &refs{ids: make(map[string]bool)} }

func (r *refs) UnreferencedBlobs(_ context.Context, ids []string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, id := range ids {
		if !r.ids[id] {
			out = append(out, id)
		}
	}
	return out, nil
}

// commit is a write's metadata commit.
func (r *refs) commit(id string) {
	r.mu.Lock()
	r.ids[id] = true
	r.mu.Unlock()
}

// gateway opens one gateway's blob store over dir.
func gateway(t *testing.T, dir string) *disk.Store {
	t.Helper()
	b, err := disk.OpenShared(dir)
	if err != nil {
		t.Fatal(err)
	}
	b.NoSync = true
	t.Cleanup(func() { b.Close() })
	return b
}

func seededBytes(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 24))
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(rng.Uint32())
	}
	return p
}

// writeBlob writes data as a blob of declared size size (-1: unknown) and
// commits it, without metadata.
func writeBlob(ctx context.Context, b blob.Store, data []byte, size int64) (string, error) {
	w, err := b.Create(ctx, size)
	if err != nil {
		return "", err
	}
	for p := data; len(p) > 0; {
		n := min(len(p), 64<<10)
		if _, err := w.Write(p[:n]); err != nil {
			_ = w.Abort()
			return "", err
		}
		p = p[n:]
	}
	return w.Commit()
}

func mustRead(t *testing.T, b blob.Store, id string, want []byte) {
	t.Helper()
	r, err := b.Open(t.Context(), id)
	if err != nil {
		t.Errorf("blob %s: %v", id, err)
		return
	}
	defer r.Close()
	if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, want) {
		t.Errorf("blob %s reads %d bytes (%v), want its %d", id, len(got), err, len(want))
	}
}

// TestRecoveryBefore: a process alone on its data dir removes what came
// before its start; a gateway sharing it, only what is blob.Grace older.
func TestRecoveryBefore(t *testing.T) {
	started := time.Now()
	if got := RecoveryBefore(started, false); !got.Equal(started) {
		t.Errorf("alone: %v, want the start %v", got, started)
	}
	if got := RecoveryBefore(started, true); started.Sub(got) != blob.Grace {
		t.Errorf("shared: %v before the start, want blob.Grace (%v)", started.Sub(got), blob.Grace)
	}
}

// TestSweepSparesInFlightCommit: a blob gateway B has committed, whose
// metadata commit is still on its way, survives gateway A's sweep with the
// shared bound, though A's walk reaches it (its pack is retired, or it is
// a file); with the bound of a process alone on the data dir (its start),
// the same sweep removes such a blob — what the grace is there for.
func TestSweepSparesInFlightCommit(t *testing.T) {
	for _, packed := range []bool{false, true} {
		dir := t.TempDir()
		a, b := gateway(t, dir), gateway(t, dir)
		if packed && !b.Packing {
			t.Log("file system cannot punch holes: no packs")
			continue
		}
		if !packed {
			b.PackMax = 0
		}
		b.PackFileMax = 1 // every reservation retires the pack before it
		ctx := t.Context()
		m := newRefs()
		svcA := NewWith(m, a, slog.New(slog.DiscardHandler), Options{})
		x, y := seededBytes(1, 5000), seededBytes(2, 7000)
		idX, err := writeBlob(ctx, b, x, int64(len(x)))
		if err != nil {
			t.Fatal(err)
		}
		idY, err := writeBlob(ctx, b, y, int64(len(y))) // retires X's pack
		if err != nil {
			t.Fatal(err)
		}

		rep, err := svcA.SweepOrphans(ctx, RecoveryBefore(time.Now(), true))
		if err != nil || rep.BlobsScanned == 0 || rep.OrphansRemoved != 0 {
			t.Errorf("packed %v: shared sweep: %+v, %v; want X scanned, nothing removed", packed, rep, err)
		}
		mustRead(t, a, idX, x)
		m.commit(idX) // X's metadata commits after the sweep

		b.Close() // Y's pack retires too
		rep, err = svcA.SweepOrphans(ctx, RecoveryBefore(time.Now().Add(time.Second), false))
		if err != nil || rep.OrphansRemoved != 1 {
			t.Errorf("packed %v: sweep with a bound past Y's commit: %+v, %v; want Y removed", packed, rep, err)
		}
		mustRead(t, a, idX, x)
		if _, err := a.EmptyTrash(ctx, time.Now().Add(2*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if r, err := a.Open(ctx, idY); err == nil {
			r.Close()
			t.Errorf("packed %v: Y, unreferenced, survived the unbounded sweep", packed)
		}
	}
}

// TestGatewaysShareDataDir: two gateways write blobs into one data dir at
// once — packed and file blobs, of known and unknown size, each referenced
// by a (fake) metadata commit a moment after the blob's — while gateway A
// runs start-up recovery and the orphan sweep again and again with the
// shared bound. Nothing either gateway writes is removed, writes in
// progress of B (made to look hours old) commit after it all, and what an
// ended gateway left hours ago (orphans, temp files) is removed.
func TestGatewaysShareDataDir(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	m := newRefs()

	// Gateway D ended long ago, leaving three orphan blobs and two temp
	// files of interrupted writes.
	d, err := disk.OpenShared(dir)
	if err != nil {
		t.Fatal(err)
	}
	d.NoSync, d.PackMax = true, 0
	var stale []string
	for i := range 3 {
		id, err := writeBlob(ctx, d, seededBytes(uint64(100+i), 3000), 3000)
		if err != nil {
			t.Fatal(err)
		}
		stale = append(stale, d.Path(id))
	}
	for range 2 {
		w, err := d.Create(ctx, -1)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte("interrupted"))
	}
	d.Close()
	stale = append(stale, tempOf(t, dir, d.Gateway())...)
	for _, p := range stale {
		old := time.Now().Add(-2 * blob.Grace)
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}

	a, b := gateway(t, dir), gateway(t, dir)
	a.PackFileMax, b.PackFileMax = 256<<10, 256<<10 // packs retire often
	svcA := NewWith(m, a, slog.New(slog.DiscardHandler), Options{})

	// B's long writes: in progress across every sweep, their files made
	// to look idle for hours.
	long := [][]byte{seededBytes(7, 300_000), seededBytes(8, 2_000_000)}
	var longW []blob.Writer
	for _, data := range long {
		w, err := b.Create(ctx, -1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data[:len(data)/2]); err != nil {
			t.Fatal(err)
		}
		longW = append(longW, w)
	}
	for _, p := range tempOf(t, dir, b.Gateway()) {
		old := time.Now().Add(-3 * blob.Grace)
		_ = os.Chtimes(p, old, old)
	}

	type seeded struct {
		seed uint64
		n    int
	}
	var mu sync.Mutex
	written := make(map[string]seeded)
	var wg sync.WaitGroup
	for gi, g := range []*disk.Store{a, b} {
		for w := range 3 {
			wg.Go(func() {
				for i := range 16 {
					seed := uint64(gi*10_000 + w*100 + i)
					n := []int{200, 40_000, 700_000, 1_200_000}[i%4]
					size := int64(n)
					if i%5 == 0 {
						size = -1
					}
					data := seededBytes(seed, n)
					id, err := writeBlob(ctx, g, data, size)
					if err != nil {
						t.Error(err)
						return
					}
					time.Sleep(time.Millisecond) // the metadata commit on its way
					m.commit(id)
					mu.Lock()
					written[id] = seeded{seed, n}
					mu.Unlock()
				}
			})
		}
	}
	var cleaned, swept int
	wg.Go(func() {
		for range 5 {
			before := RecoveryBefore(time.Now(), true)
			n, err := a.CleanTemp(ctx, before)
			if err != nil {
				t.Error(err)
				return
			}
			rep, err := svcA.SweepOrphans(ctx, before)
			if err != nil {
				t.Error(err)
				return
			}
			cleaned += n
			swept += rep.OrphansRemoved
		}
	})
	wg.Wait()

	if cleaned != 2 || swept != 3 {
		t.Errorf("recovery removed %d temp files and %d orphans, want D's 2 and 3", cleaned, swept)
	}
	for _, p := range stale {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s, left by the ended gateway hours ago, is still there", p)
		}
	}
	for i, w := range longW {
		if _, err := w.Write(long[i][len(long[i])/2:]); err != nil {
			t.Fatalf("B's long write %d after the sweeps: %v", i, err)
		}
		id, err := w.Commit()
		if err != nil {
			t.Fatalf("B's long write %d after the sweeps: %v", i, err)
		}
		mustRead(t, a, id, long[i])
	}
	if len(written) != 2*3*16 {
		t.Fatalf("%d blobs written, want %d", len(written), 2*3*16)
	}
	for id, w := range written {
		mustRead(t, b, id, seededBytes(w.seed, w.n))
	}
}

// tempOf returns the paths of gateway g's files in tmp/.
func tempOf(t *testing.T, dir, g string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "tmp"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), g+"-") {
			out = append(out, filepath.Join(dir, "tmp", e.Name()))
		}
	}
	return out
}
