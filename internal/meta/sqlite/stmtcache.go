package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache keeps one prepared statement per query text for a pool, so hot
// queries are parsed and planned once per connection, not per call.
type stmtCache struct {
	db *sql.DB
	mu sync.RWMutex
	m  map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB) *stmtCache { return &stmtCache{db: db, m: make(map[string]*sql.Stmt)} }

// lookup returns the cached statement for q, or nil.
func (c *stmtCache) lookup(q string) *sql.Stmt {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.m[q]
}

// get returns the prepared statement for q, preparing it on a miss, or nil
// if preparing failed (the caller then runs q unprepared, which reports the
// same error). It needs a free connection of the pool.
func (c *stmtCache) get(ctx context.Context, q string) *sql.Stmt {
	if st := c.lookup(q); st != nil {
		return st
	}
	// Prepare without holding the lock: it may wait for a free connection.
	st, err := c.db.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev := c.m[q]; prev != nil || c.m == nil {
		st.Close() //nolint:sqlclosecheck // lost the race to prepare q: not cached, so closed now
		return prev
	}
	c.m[q] = st
	return st
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}

// pool runs queries on the read pool through cached statements.
type pool struct{ c *stmtCache }

// QueryRowContext runs a point read without ctx's cancellation: a row
// read by key takes microseconds, while a cancellable context costs
// database/sql and the driver a watcher goroutine each per query (a GET of
// 1 KiB: 2 goroutines and ~25 allocations of its ~180). Scans that may run
// long (QueryContext) keep ctx.
func (p pool) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	ctx = context.WithoutCancel(ctx)
	if st := p.c.get(ctx, q); st != nil { //nolint:sqlclosecheck // a cached statement, closed with the cache
		return st.QueryRowContext(ctx, args...)
	}
	return p.c.db.QueryRowContext(ctx, q, args...)
}

func (p pool) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := p.c.get(ctx, q); st != nil { //nolint:sqlclosecheck // a cached statement, closed with the cache
		return st.QueryContext(ctx, args...)
	}
	return p.c.db.QueryContext(ctx, q, args...)
}

func (p pool) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if st := p.c.get(ctx, q); st != nil { //nolint:sqlclosecheck // a cached statement, closed with the cache
		return st.ExecContext(ctx, args...)
	}
	return p.c.db.ExecContext(ctx, q, args...)
}

// wtx runs queries in a write transaction through the writer's cached
// statements. The writer has one connection, held by the transaction, so a
// statement cannot be prepared on the pool now: misses run unprepared and
// are noted in missed, to be prepared once the transaction has ended.
type wtx struct {
	tx     *sql.Tx
	c      *stmtCache
	missed *[]string
	stmts  map[string]*sql.Stmt // a batch's own statements, made once; nil: one write
	memo   *writerMemo
}

// newWtx begins running a batch of writes in tx.
func newWtx(tx *sql.Tx, c *stmtCache, missed *[]string, memo *writerMemo, writes int) wtx {
	t := wtx{tx: tx, c: c, missed: missed, memo: memo}
	if writes > 1 { // the batch runs its writes' statements many times
		t.stmts = map[string]*sql.Stmt{}
	}
	return t
}

// Statements of a write transaction run under the batch, not under the
// caller's context: one caller giving up must not interrupt a transaction
// other writes share (write() still waits for the outcome).

func (t wtx) stmt(ctx context.Context, q string) *sql.Stmt {
	if st := t.stmts[q]; st != nil {
		return st
	}
	if st := t.c.lookup(q); st != nil {
		st = t.tx.StmtContext(ctx, st)
		if t.stmts != nil {
			t.stmts[q] = st
		}
		return st
	}
	*t.missed = append(*t.missed, q)
	return nil
}

func (t wtx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	ctx = context.WithoutCancel(ctx)
	t.forget(q)
	if st := t.stmt(ctx, q); st != nil { //nolint:sqlclosecheck // the transaction's statement, closed when it ends
		return st.QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, q, args...)
}

func (t wtx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	ctx = context.WithoutCancel(ctx)
	t.forget(q)
	if st := t.stmt(ctx, q); st != nil { //nolint:sqlclosecheck // the transaction's statement, closed when it ends
		return st.QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, q, args...)
}

func (t wtx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	ctx = context.WithoutCancel(ctx)
	t.forget(q)
	if st := t.stmt(ctx, q); st != nil { //nolint:sqlclosecheck // the transaction's statement, closed when it ends
		return st.ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, q, args...)
}

// forget empties what the writer's memo holds that statement q may change.
func (t wtx) forget(q string) {
	if t.memo != nil {
		t.memo.forget(q)
	}
}
