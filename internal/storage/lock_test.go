//go:build unix

package storage

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/meta"
)

// TestLock: the stores hold the data dir's lock until closed, so a second
// opener (another server, jog fsck --repair) is refused; an Unlocked open
// (a read-only check) runs beside them.
func TestLock(t *testing.T) {
	cfg := testConfig(t)
	ctx := t.Context()
	s, err := Open(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := Open(ctx, cfg, nil); !errors.Is(err, datadir.ErrLocked) {
		if err == nil {
			again.Close()
		}
		t.Errorf("second Open: %v, want ErrLocked", err)
	}
	if again, err := OpenWith(ctx, cfg, nil, Options{Existing: true}); !errors.Is(err, datadir.ErrLocked) {
		if err == nil {
			again.Close()
		}
		t.Errorf("second OpenWith Existing: %v, want ErrLocked", err)
	}
	ro, err := OpenWith(ctx, cfg, nil, Options{Existing: true, Unlocked: true})
	if err != nil {
		t.Fatalf("Unlocked open beside the lock holder: %v", err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if locked, err := datadir.Locked(cfg.DataDir); !locked || err != nil {
		t.Errorf("closing an Unlocked open dropped the holder's lock: %v, %v", locked, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if locked, err := datadir.Locked(cfg.DataDir); locked || err != nil {
		t.Errorf("Locked after Close = %v, %v", locked, err)
	}
	s, err = Open(ctx, cfg, nil)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	s.Close()
}

// TestSharedLock: with a metadata store outside the data dir, gateways
// share the data dir's lock: several open at once, each with its own blob
// gateway; a tool that needs the directory alone (Exclusive) is refused
// while any runs, and gateways are refused while it holds the lock.
func TestSharedLock(t *testing.T) {
	cfg := testConfig(t)
	cfg.Meta = externalMeta(t)
	ctx := t.Context()
	a, err := Open(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, cfg, nil)
	if err != nil {
		t.Fatalf("second gateway: %v", err)
	}
	if !a.Shared || !b.Shared {
		t.Errorf("gateways' stores Shared = %v, %v; want true", a.Shared, b.Shared)
	}
	if a.Gateway == b.Gateway {
		t.Errorf("two gateways share the gateway ID %s", a.Gateway)
	}
	if ex, err := OpenWith(ctx, cfg, nil, Options{Existing: true, Exclusive: true}); !errors.Is(err, datadir.ErrLocked) {
		if err == nil {
			ex.Close()
		}
		t.Errorf("Exclusive open beside gateways: %v, want ErrLocked", err)
	}
	// A read-only check (jog fsck) opens beside them and knows others write.
	ro, err := OpenWith(ctx, cfg, nil, Options{Existing: true, Unlocked: true})
	if err != nil {
		t.Fatalf("Unlocked open beside gateways: %v", err)
	}
	if !ro.Shared {
		t.Error("an Unlocked open of a shared data dir does not report it shared")
	}
	ro.Close()
	a.Close()
	b.Close()
	ex, err := OpenWith(ctx, cfg, nil, Options{Existing: true, Exclusive: true})
	if err != nil {
		t.Fatalf("Exclusive open once the gateways left: %v", err)
	}
	if ex.Shared {
		t.Error("an Exclusive open reports a shared data dir")
	}
	if g, err := Open(ctx, cfg, nil); !errors.Is(err, datadir.ErrLocked) {
		if err == nil {
			g.Close()
		}
		t.Errorf("gateway beside an Exclusive holder: %v, want ErrLocked", err)
	}
	ex.Close()
	// SQLite keeps the exclusive lock.
	cfg.Meta = "sqlite"
	s, err := Open(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Shared {
		t.Error("SQLite stores report a shared data dir")
	}
	if locked, err := datadir.Locked(cfg.DataDir); !locked || err != nil {
		t.Errorf("Locked beside a SQLite server = %v, %v", locked, err)
	}
}

// externalMeta stands in, for the test, for the PostgreSQL backend: a
// store outside the data dir (SQLite elsewhere), and returns a --meta
// value that selects it.
func externalMeta(t *testing.T) string {
	dbDir := t.TempDir()
	saved := metaBackends["postgres"]
	metaBackends["postgres"] = metaBackend{
		check: func(context.Context, config.Config) error { return nil },
		open: func(ctx context.Context, cfg config.Config, log *slog.Logger) (meta.Store, func(context.Context) error, error) {
			cfg.DataDir = dbDir
			return openSQLite(ctx, cfg, log)
		},
	}
	t.Cleanup(func() { metaBackends["postgres"] = saved })
	return "postgres://external-test/jog"
}
