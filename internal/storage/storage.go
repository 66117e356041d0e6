package storage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/meta"
)

// Options adjust Open for tools that work on an existing data dir.
type Options struct {
	// Existing opens only a data dir that holds a metadata store: for
	// any other directory Open fails with an error wrapping
	// datadir.ErrNotDataDir and creates nothing.
	Existing bool
	// Unlocked opens without taking the data dir's lock, for a read-only
	// check beside a running server that holds it.
	Unlocked bool
	// Exclusive takes the data dir's lock exclusively even where gateways
	// share it (an external metadata store), for a tool that needs the
	// directory alone (jog fsck --repair): it fails with an error wrapping
	// datadir.ErrLocked while any gateway runs, and gateways refuse to
	// start while it holds the lock.
	Exclusive bool
}

// Stores are a data dir's open stores. Close them once.
type Stores struct {
	Meta  meta.Store
	Blobs blob.Store
	// Gateway is this open's gateway ID, which the blob store's writes
	// carry (blob.GatewayNamer) and which names the process's own files
	// elsewhere in the data dir (a notification queue, a log spool):
	// random at every open.
	Gateway string
	// Shared is true when other gateways may write to the data dir while
	// these stores are open: the metadata store is outside the data dir
	// (SharedDataDir) and this open does not hold it alone. Recovery and
	// the orphan sweep then leave alone what a live write may own
	// (service.RecoveryBefore).
	Shared bool

	ready      func(context.Context) error
	closeBlobs func() error
	unlock     func() error
}

// Open opens cfg's data dir for a server: it creates the dir if needed,
// takes its lock (failing with an error wrapping datadir.ErrLocked while
// another process holds it: exclusive with SQLite, shared among gateways
// with an external metadata store) and opens the stores cfg names. log receives
// what the stores report on opening (a schema upgrade, settings in
// effect); nil discards it.
func Open(ctx context.Context, cfg config.Config, log *slog.Logger) (*Stores, error) {
	return OpenWith(ctx, cfg, log, Options{})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, cfg config.Config, log *slog.Logger, opts Options) (*Stores, error) {
	mb, ok := metaBackends[config.MetaBackend(cfg.Meta)]
	if !ok {
		return nil, fmt.Errorf("--meta %q: unknown metadata backend", config.RedactMeta(cfg.Meta))
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Existing {
		if err := existing(ctx, cfg, mb); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(cfg.DataDir, 0o750); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	shared := SharedDataDir(cfg) && !opts.Exclusive
	unlock := func() error { return nil }
	if !opts.Unlocked {
		lock := datadir.Lock
		if shared {
			lock = datadir.LockShared
		}
		var err error
		if unlock, err = lock(cfg.DataDir); err != nil {
			return nil, err
		}
	}
	s, err := open(ctx, cfg, log, mb, shared)
	if err != nil {
		_ = unlock()
		return nil, err
	}
	s.unlock, s.Shared = unlock, shared
	return s, nil
}

// SharedDataDir reports whether cfg's data dir may be shared by several
// gateways: whether its metadata store lives outside it (any --meta but
// the embedded SQLite, which one process at a time opens).
func SharedDataDir(cfg config.Config) bool { return config.MetaBackend(cfg.Meta) != "sqlite" }

// existing checks that cfg's data dir is a directory and that the
// metadata store cfg names exists (mb.check).
func existing(ctx context.Context, cfg config.Config, mb metaBackend) error {
	st, err := os.Stat(cfg.DataDir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s: %w (not a directory)", cfg.DataDir, datadir.ErrNotDataDir)
	}
	return mb.check(ctx, cfg)
}

// open opens the stores once the data dir is there (and locked).
func open(ctx context.Context, cfg config.Config, log *slog.Logger, mb metaBackend, shared bool) (*Stores, error) {
	noSync := cfg.Fsync.Off()
	if noSync {
		log.Warn("fsync disabled: acknowledged writes may be lost on power failure")
	}
	m, ready, err := mb.open(ctx, cfg, log)
	if err != nil {
		return nil, fmt.Errorf("open metadata: %w", err)
	}
	blobs, closeBlobs, err := openBlobs(cfg, log, shared)
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("open blob store: %w", err)
	}
	return &Stores{Meta: m, Blobs: blobs, Gateway: gatewayOf(blobs), ready: ready, closeBlobs: closeBlobs}, nil
}

// Ready reports whether the metadata store answers (nil) or not.
func (s *Stores) Ready(ctx context.Context) error { return s.ready(ctx) }

// Close closes the stores and releases the data dir's lock.
func (s *Stores) Close() error {
	return errors.Join(s.closeBlobs(), s.Meta.Close(), s.unlock())
}
