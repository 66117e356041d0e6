package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/outage"
)

// Store is the PostgreSQL metadata store.
type Store struct {
	pool  *pool // marks an unreachable server's errors (pool.go)
	log   *slog.Logger
	hints hints // BucketHint's
}

var _ meta.Store = (*Store)(nil)

// Options tune a Store.
type Options struct {
	// MaxConns bounds the connection pool (default 32).
	MaxConns int32
	// Log receives the schema upgrade and what the pool reports; nil
	// discards it.
	Log *slog.Logger
}

// Open connects to the database at url (a postgres:// URL or a libpq
// key=value string) and brings its schema up to date. Several gateways may
// open the same database at once: migrations run under an advisory lock.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	cfg.MaxConns = opts.MaxConns
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = 32
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	pgPool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := migrate(ctx, pgPool, log); err != nil {
		pgPool.Close()
		return nil, err
	}
	return &Store{pool: &pool{Pool: pgPool, outage: outage.New(log, "metadata store (PostgreSQL)", 0)}, log: log}, nil
}

// Close closes the connection pool.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

// inTx runs fn in a READ COMMITTED transaction (lazyTx: begun with its
// first statement) and commits it, retrying
// the whole of it when PostgreSQL reports a serialization failure or a
// deadlock (each transaction takes its locks in the order doc.go states,
// so deadlocks are not expected; the retry is a safety net). fn must not
// have effects outside the transaction.
func (s *Store) inTx(ctx context.Context, fn func(pgx.Tx) error) error {
	for attempt := 0; ; attempt++ {
		err := runLazy(ctx, s.pool, fn)
		if err == nil || !retryable(err) || attempt >= 10 {
			return err
		}
		s.log.Debug("postgres: transaction retried", "err", err, "attempt", attempt+1)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt+1) * time.Millisecond):
		}
	}
}

// retryable reports a serialization failure (40001) or a deadlock (40P01).
//
// It also retries PostgreSQL's internal error "new multixact has more than
// one updating member" (XX000): seen under concurrent writes to a bucket
// with a quota, where each transaction holds the bucket's row FOR KEY SHARE
// and then updates its usage (a lock upgrade PostgreSQL 15 can refuse
// this way). The transaction was rolled back, so trying again is safe.
func retryable(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	return pe.Code == "40001" || pe.Code == "40P01" ||
		(pe.Code == "XX000" && strings.Contains(pe.Message, "multixact has more than one updating member"))
}

// lockBucket locks bucket name's row in tx and returns its ID:
// exclusive (FOR UPDATE) for a change to the bucket itself, shared (FOR
// KEY SHARE) for a change to its contents. ErrBucketNotFound if there is
// no such bucket.
func lockBucket(ctx context.Context, tx pgx.Tx, name string, exclusive bool) (int64, error) {
	q := "SELECT id FROM buckets WHERE name = $1 FOR KEY SHARE"
	if exclusive {
		q = "SELECT id FROM buckets WHERE name = $1 FOR UPDATE"
	}
	var id int64
	err := tx.QueryRow(ctx, q, name).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, meta.ErrBucketNotFound
	}
	return id, err
}

// keyLockSQL takes the transaction-scoped advisory lock of a key: (the
// bucket's id as an int4, wrapped as Go's int32 wraps it, keyHash of the
// key), for the bucket named $1 and keyHash $2. Every transaction that
// reads a key's current version to replace or remove it holds it, so
// writes to one key are serial across gateways. It is a statement of its
// own (statement-level snapshots: what follows it sees what the lock's
// previous holder committed); startWrite pipelines it.
const keyLockSQL = "SELECT pg_advisory_xact_lock(" + bucketLockID + ", $2) FROM buckets WHERE name = $1"

// bucketLockID is the bucket's part of a key's lock: its id as int32(id).
const bucketLockID = "((id + 2147483648) % 4294967296 - 2147483648)::int4"

// keyHash is the key's part of its advisory lock.
func keyHash(key string) int32 {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int32(h.Sum32())
}

// bucketID resolves a bucket name without locking it.
func bucketID(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, name string) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, "SELECT id FROM buckets WHERE name = $1", name).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, meta.ErrBucketNotFound
	}
	return id, err
}

// millis and fromMillis convert the schema's Unix-millisecond times.
func millis(t time.Time) int64 { return t.UnixMilli() }

func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
