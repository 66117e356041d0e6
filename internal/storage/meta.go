package storage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/meta/sqlite"
)

// metaBackend opens one kind of metadata store.
type metaBackend struct {
	// check fails with an error wrapping datadir.ErrNotDataDir when cfg
	// names no such store (Options.Existing), creating nothing.
	check func(ctx context.Context, cfg config.Config) error
	// open opens (creating if needed) the store cfg names, and returns
	// how to ask whether it answers (Stores.Ready).
	open func(ctx context.Context, cfg config.Config, log *slog.Logger) (meta.Store, func(context.Context) error, error)
}

// metaBackends are the metadata backends by --meta name: the same names as
// config.MetaBackends.
var metaBackends = map[string]metaBackend{
	"sqlite":   {check: checkSQLite, open: openSQLite},
	"postgres": {check: checkPostgres, open: openPostgres},
}

// checkSQLite requires <data-dir>/jog.db, so that checking a wrong
// directory does not create a database there. A dir with blobs but no
// jog.db is how the data dir of gateways sharing a PostgreSQL store
// looks: the error says to pass their --meta.
func checkSQLite(_ context.Context, cfg config.Config) error {
	dir := cfg.DataDir
	_, err := os.Stat(filepath.Join(dir, datadir.DBFile))
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if st, err := os.Stat(filepath.Join(dir, datadir.BlobsDir)); err == nil && st.IsDir() {
		return fmt.Errorf("%s: %w of the embedded SQLite store (no %s, but %s/): it looks like a PostgreSQL gateway's data dir; "+
			"pass the gateways' --meta (--meta postgres://… or JOG_META)", dir, datadir.ErrNotDataDir, datadir.DBFile, datadir.BlobsDir)
	}
	return fmt.Errorf("%s: %w (no %s)", dir, datadir.ErrNotDataDir, datadir.DBFile)
}

// openSQLite opens <data-dir>/jog.db; --fsync never turns off SQLite's
// synchronous commits too.
func openSQLite(ctx context.Context, cfg config.Config, log *slog.Logger) (meta.Store, func(context.Context) error, error) {
	path := filepath.Join(cfg.DataDir, datadir.DBFile)
	m, err := sqlite.OpenWith(ctx, path, sqlite.Options{NoSync: cfg.Fsync.Off(), Log: log, NoCheckpoint: cfg.LeaveCheckpoints()})
	if err != nil {
		return nil, nil, err
	}
	ready := func(ctx context.Context) error {
		_, err := m.JournalMode(ctx)
		return err
	}
	return m, ready, nil
}
