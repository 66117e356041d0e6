package replicate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/benbjohnson/litestream"

	"github.com/jogstore/jog/internal/datadir"
)

// ErrNoReplica reports a target that holds no replica to restore.
var ErrNoReplica = errors.New("no replica at the target")

// ErrExists reports a database Restore would replace without
// RestoreOptions.Replace.
var ErrExists = errors.New("a database is already there")

// RestoreOptions choose what Restore rebuilds.
type RestoreOptions struct {
	// Timestamp, when set, restores the database as it was at that time
	// (the latest replicated transaction not after it) instead of the
	// latest.
	Timestamp time.Time
	// Replace replaces a database at the path (with its -wal and -shm
	// files) once the restored one is complete.
	Replace bool
}

// walFiles are the files SQLite keeps beside a database in WAL mode.
var walFiles = []string{"-wal", "-shm"}

// Restore writes the database replicated at t to dbPath and checks it
// (SQLite's integrity_check: Litestream 0.5 has open reports of restores
// that fail it, ADR 0021). It fails with ErrExists when a database (or its
// WAL) is at dbPath, unless opts.Replace; it builds the new one beside it
// and replaces the old one only once it is complete. It also removes
// Litestream's local state beside dbPath (MetaDir), which belonged to the
// database replaced: a server started on the restored database resumes
// replicating from the replica's position. The caller holds the data dir
// (no server may have the database open).
func Restore(ctx context.Context, dbPath string, t Target, opts RestoreOptions, log *slog.Logger) error {
	if !opts.Replace {
		if err := absent(dbPath); err != nil {
			return err
		}
	}
	client, err := t.client()
	if err != nil {
		return err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	client.SetLogger(log)
	if err := reachable(ctx, client, t); err != nil {
		return fmt.Errorf("replica %s: %w", t.URL, err)
	}
	tmp := dbPath + ".restore"
	if err := removeDB(tmp); err != nil { // what an interrupted restore left
		return err
	}
	defer func() { _ = removeDB(tmp) }()
	// Litestream's replica logs (its restore's progress) through its
	// database's logger, else slog.Default: a database handle, never
	// opened, carries log so that its lines are JOG's.
	ldb := litestream.NewDB(tmp)
	ldb.SetLogger(log)
	r := litestream.NewReplicaWithClient(ldb, client)
	opt := litestream.NewRestoreOptions()
	opt.OutputPath = tmp
	opt.Timestamp = opts.Timestamp
	opt.IntegrityCheck = litestream.IntegrityCheckFull
	if err := r.Restore(ctx, opt); err != nil {
		if errors.Is(err, litestream.ErrTxNotAvailable) || errors.Is(err, litestream.ErrNoSnapshots) {
			return fmt.Errorf("%s: %w (%v)", t.URL, ErrNoReplica, err)
		}
		return err
	}
	// The old WAL goes before the new database takes the old one's name:
	// SQLite would replay a WAL left beside it onto the restored file.
	if err := removeDB(dbPath); err != nil {
		return err
	}
	if err := os.Rename(tmp, dbPath); err != nil {
		return err
	}
	if err := os.RemoveAll(MetaDir(dbPath)); err != nil {
		return err
	}
	return datadir.SyncDir(filepath.Dir(dbPath))
}

// absent fails with ErrExists when dbPath or its WAL files exist.
func absent(dbPath string) error {
	for _, suffix := range append([]string{""}, walFiles...) {
		if _, err := os.Stat(dbPath + suffix); err == nil {
			return fmt.Errorf("%s: %w", dbPath+suffix, ErrExists)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// removeDB removes a database's WAL files, then the database.
func removeDB(path string) error {
	for _, suffix := range append(walFiles, "") {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
