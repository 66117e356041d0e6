package replicate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/benbjohnson/litestream"
)

// CheckpointPages is the WAL size, in pages, past which Litestream runs a
// PASSIVE checkpoint (its MinCheckpointPageN): the threshold the server's
// writer uses when it checkpoints itself (ADR 0015), so a checkpoint
// still copies a page written many times between two of them once.
const CheckpointPages = 10000

// Options tune a Replicator.
type Options struct {
	// SyncInterval is how often Litestream copies new WAL frames into
	// its local LTX files, which are then uploaded: the most a replica
	// lags behind a commit, upload time aside. 0: one second.
	SyncInterval time.Duration
}

// Replicator streams one SQLite database to its Target until Close.
type Replicator struct {
	db    *litestream.DB
	store *litestream.Store
}

// Start begins replicating the database at dbPath (open, in WAL mode,
// with automatic checkpoints off) to t. It checks that the target
// answers before it returns; replication itself runs in the background
// and retries while the target is unreachable. Litestream keeps its
// state in a directory beside the database (MetaDir).
func Start(ctx context.Context, dbPath string, t Target, opts Options, log *slog.Logger) (*Replicator, error) {
	client, err := t.client()
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("component", "replicate")
	client.SetLogger(log)
	if err := reachable(ctx, client, t); err != nil {
		return nil, fmt.Errorf("replicate to %s: %w", t.URL, err)
	}
	db := litestream.NewDB(dbPath)
	db.Replica = litestream.NewReplicaWithClient(db, client)
	db.MinCheckpointPageN = CheckpointPages
	if opts.SyncInterval > 0 {
		db.MonitorInterval = opts.SyncInterval
		db.Replica.SyncInterval = opts.SyncInterval
	}
	store := litestream.NewStore([]*litestream.DB{db}, litestream.DefaultCompactionLevels)
	store.Logger = log
	db.SetLogger(log)
	if err := store.Open(ctx); err != nil {
		store.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("replicate to %s: %w", t.URL, err)
	}
	log.Info("replicating metadata", "to", t.URL, "endpoint", t.Endpoint)
	return &Replicator{db: db, store: store}, nil
}

// reachable lists the replica's first files: it fails when the endpoint
// does not answer, the bucket is missing or the keys are refused, which
// Litestream would otherwise only log, retrying, once the server runs.
func reachable(ctx context.Context, c litestream.ReplicaClient, t Target) error {
	if err := initClient(ctx, c, t); err != nil {
		return err
	}
	itr, err := c.LTXFiles(ctx, 0, 0, false)
	if err != nil {
		return err
	}
	defer itr.Close()
	itr.Next()
	return itr.Err()
}

// Close copies what the WAL holds beyond the replica, uploads it (retrying
// up to Litestream's shutdown timeout, 30 s) and stops. Call it while the
// database is still open and no longer written.
func (r *Replicator) Close(ctx context.Context) error {
	err := r.store.Close(ctx)
	if errors.Is(err, litestream.ErrShutdownInterrupted) {
		return fmt.Errorf("replica not brought up to date on shutdown: %w", err)
	}
	return err
}

// MetaDir is the directory Litestream keeps its local state in for the
// database at dbPath (".jog.db-litestream" beside jog.db).
func MetaDir(dbPath string) string { return litestream.NewDB(dbPath).MetaPath() }
