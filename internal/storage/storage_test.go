package storage

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/meta"
)

func testConfig(t *testing.T) config.Config {
	cfg := config.Default()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	cfg.Fsync = config.FsyncNever
	return cfg
}

// TestMetaBackends: --meta accepts exactly the backends Open can open.
func TestMetaBackends(t *testing.T) {
	var names []string
	for name := range metaBackends {
		names = append(names, name)
	}
	slices.Sort(names)
	want := slices.Sorted(slices.Values(config.MetaBackends))
	if !slices.Equal(names, want) {
		t.Errorf("backend opens %q, config accepts %q", names, want)
	}
}

func TestUnknownBackend(t *testing.T) {
	cfg := testConfig(t)
	cfg.Meta = "postgres"
	s, err := Open(t.Context(), cfg, nil)
	if err == nil {
		s.Close()
		t.Fatal("opened an unknown metadata backend")
	}
	if !strings.Contains(err.Error(), `--meta "postgres": unknown metadata backend`) {
		t.Errorf("error %q does not name the setting", err)
	}
	if _, err := os.Stat(cfg.DataDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("refused open created the data dir: %v", err)
	}
}

// TestOpenClose: Open creates the data dir and its stores; what they hold
// is there when the dir is opened again.
func TestOpenClose(t *testing.T) {
	cfg := testConfig(t)
	ctx := t.Context()
	s, err := Open(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Ready(ctx); err != nil {
		t.Errorf("Ready: %v", err)
	}
	if err := s.Meta.CreateBucket(ctx, meta.Bucket{Name: "b", Region: cfg.Region, CreatedAt: meta.Now()}); err != nil {
		t.Fatal(err)
	}
	w, err := s.Blobs.Create(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte("abc"))
	id, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cfg.DataDir, datadir.DBFile)); err != nil {
		t.Errorf("no database in the data dir: %v", err)
	}

	s, err = OpenWith(ctx, cfg, nil, Options{Existing: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Meta.GetBucket(ctx, "b"); err != nil {
		t.Errorf("bucket after reopening: %v", err)
	}
	r, err := s.Blobs.Open(ctx, id)
	if err != nil {
		t.Fatalf("blob %s after reopening: %v", id, err)
	}
	r.Close()
}

// TestExisting: a tool opening an existing data dir is refused anything
// else, and creates nothing there.
func TestExisting(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, file, filepath.Join(dir, "none")} {
		cfg := config.Default()
		cfg.DataDir = d
		s, err := OpenWith(t.Context(), cfg, nil, Options{Existing: true})
		if err == nil {
			s.Close()
			t.Errorf("%s opened as an existing data dir", d)
			continue
		}
		if d == filepath.Join(dir, "none") {
			if !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("missing dir: %v", err)
			}
		} else if !errors.Is(err, datadir.ErrNotDataDir) {
			t.Errorf("%s: %v, want ErrNotDataDir", d, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("refused opens left files in %s: %v", dir, entries)
	}
}

// TestBlobPowers: the stores take the gateway ID from the blob store,
// which offers it (blob.GatewayNamer) as disk does, and do without what a
// wrapper that passes on only blob.Store's methods lacks: a gateway ID of
// their own, random at each open, and no trash to empty.
func TestBlobPowers(t *testing.T) {
	s, err := Open(t.Context(), testConfig(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g, ok := s.Blobs.(blob.GatewayNamer)
	if !ok {
		t.Fatalf("the blob store (%T) names no gateway", s.Blobs)
	}
	if s.Gateway == "" || s.Gateway != g.Gateway() {
		t.Errorf("Stores.Gateway %q, the blob store's %q", s.Gateway, g.Gateway())
	}
	bare := struct{ blob.Store }{s.Blobs}
	if a, b := gatewayOf(bare), gatewayOf(bare); a == "" || a == b || a == s.Gateway {
		t.Errorf("gateway IDs without blob.GatewayNamer: %q, %q (the store's %q)", a, b, s.Gateway)
	}
	wrapped := &Stores{Blobs: bare}
	if n, err := wrapped.EmptyTrash(t.Context(), time.Now()); n != 0 || err != nil {
		t.Errorf("EmptyTrash of a store without a trash: %d, %v", n, err)
	}
}
