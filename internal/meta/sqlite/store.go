package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"net/url"
	"os"
	"runtime"
	"strconv"

	"github.com/jogstore/jog/internal/meta"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Store is the SQLite metadata store.
type Store struct {
	w  *sql.DB // exactly one connection: the single writer path
	r  *sql.DB // read-only pool
	wc *stmtCache
	rd pool // r through cached prepared statements
	gc *committer
	// path is the database file, for CommitStats (its WAL); file is
	// what it was when opened (nil for a database not in a file), which
	// every commit checks it still is (stillThere).
	path string
	file os.FileInfo

	buckets bucketCache
	memo    writerMemo // the writer's: see writerMemo
}

var _ meta.Store = (*Store)(nil)

// Options tune a Store.
type Options struct {
	// NoSync sets synchronous=OFF: commits are not flushed to stable
	// storage. Only for throwaway data (tests, benchmarks).
	NoSync bool
	// Log receives the upgrade of an existing database's schema; nil
	// discards it.
	Log *slog.Logger
	// NoCheckpoint turns the writer's automatic WAL checkpoints off, for
	// Litestream to run them (ADR 0021): a checkpoint Litestream did not
	// see could restart the WAL under it.
	NoCheckpoint bool
}

// Open opens (creating if needed) the database file at path and brings its
// schema up to date.
func Open(ctx context.Context, path string) (*Store, error) {
	return OpenWith(ctx, path, Options{})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, path string, opts Options) (*Store, error) {
	w, err := sql.Open("sqlite", dsn(path, false, opts))
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := migrate(ctx, w, log); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sql.Open("sqlite", dsn(path, true, opts))
	if err != nil {
		w.Close()
		return nil, err
	}
	n := 2 * runtime.GOMAXPROCS(0)
	if n < 4 {
		n = 4
	}
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	s := &Store{w: w, r: r, wc: newStmtCache(w), rd: pool{newStmtCache(r)}, path: path}
	s.file, _ = os.Stat(path)
	s.startCommitter()
	return s, nil
}

// stillThere reports meta.ErrStoreGone when the database file is no longer
// the one opened at path (the data dir deleted or moved under the running
// server): SQLite would go on writing into the unlinked file, and every
// write acknowledged since would be lost with it. A stat per commit batch.
func (s *Store) stillThere() error {
	if s.file == nil {
		return nil
	}
	if fi, err := os.Stat(s.path); err != nil || !os.SameFile(fi, s.file) {
		return meta.ErrStoreGone
	}
	return nil
}

// walCheckpointPages is the writer's wal_autocheckpoint (ADR 0015).
const walCheckpointPages = 10000

// writerCacheKiB is the writer's page cache, in KiB (ADR 0017; 16 MiB until
// issue 41 found SQLite's page-cache truncation at each commit,
// pcache1TruncateUnsafe, growing with it: 39 µs of CPU per PUT 1 KiB at
// 16 MiB, 4 µs with the default cache; 4 MiB costs writes nothing measured
// and keeps 12 MiB out of the RSS).
const writerCacheKiB = 4 << 10

func dsn(path string, readOnly bool, opts Options) string {
	q := url.Values{}
	sync := "synchronous(FULL)" // a commit is on disk before it returns
	if opts.NoSync {
		sync = "synchronous(OFF)"
	}
	// The readers map the database file (mmap_size): pages, inline object
	// data above all, are read from a shared mapping rather than copied in
	// with a pread per page (GET of 64 KiB inline objects: +9%, ADR 0005).
	// The writer does not (ADR 0017): every page its inserts land on would
	// stay mapped, so the process's RSS would grow with the database under
	// writes (to 330 MiB in 30 s of random-key PUTs); it reads through a
	// page cache of its own, writerCacheKiB, which holds the B-trees' hot
	// pages.
	pragmas := []string{"journal_mode(WAL)", sync, "foreign_keys(1)", "busy_timeout(10000)"}
	if readOnly {
		pragmas = append(pragmas, "mmap_size(1073741824)")
	} else {
		pragmas = append(pragmas, "mmap_size(0)", "cache_size(-"+strconv.Itoa(writerCacheKiB)+")")
	}
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Set("_txlock", "immediate")
		// The writer checkpoints after walCheckpointPages WAL pages rather
		// than SQLite's 1,000 (ADR 0015): a checkpoint runs inside the
		// commit that crosses the threshold, stalling its batch.
		pages := walCheckpointPages
		if opts.NoCheckpoint {
			pages = 0
		}
		q.Add("_pragma", "wal_autocheckpoint("+strconv.Itoa(pages)+")")
	}
	return "file:" + path + "?" + q.Encode()
}

// Close closes both connection pools.
func (s *Store) Close() error {
	s.stopCommitter()
	s.rd.c.close()
	s.wc.close()
	return errors.Join(s.r.Close(), s.w.Close())
}

// JournalMode reports the database's journal mode as SQLite sees it.
func (s *Store) JournalMode(ctx context.Context) (string, error) {
	var mode string
	err := s.r.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode)
	return mode, err
}

// bucketID resolves a bucket name inside a transaction or pool.
func bucketID(ctx context.Context, q querier, name string) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, "SELECT id FROM buckets WHERE name = ?", name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, meta.ErrBucketNotFound
	}
	return id, err
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}
