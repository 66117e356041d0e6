package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// lazyTx is a transaction on a pooled connection that begins with its
// first statement: when that is a batch (startWrite's locks and reads,
// which every write of a key starts with), BEGIN goes in the batch
// (pgx.Batch.BeginTx) and costs no round trip of its own. Otherwise BEGIN
// is sent before the statement, as pgx.Conn.Begin does.
type lazyTx struct {
	conn *pgxpool.Conn
	tx   pgx.Tx // nil until begun
}

var _ pgx.Tx = (*lazyTx)(nil)

var errNested = errors.New("postgres: nested transactions are not used")

// begin begins the transaction, if not yet.
func (t *lazyTx) begin(ctx context.Context) error {
	if t.tx != nil {
		return nil
	}
	tx, err := t.conn.Begin(ctx)
	if err != nil {
		return err
	}
	t.tx = tx
	return nil
}

// SendBatch implements pgx.Tx: the first batch begins the transaction.
func (t *lazyTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if t.tx != nil {
		return t.tx.SendBatch(ctx, b)
	}
	with := &pgx.Batch{}
	with.BeginTx(pgx.TxOptions{})
	with.QueuedQueries = append(with.QueuedQueries, b.QueuedQueries...)
	br := t.conn.SendBatch(ctx, with)
	t.tx = br.Tx()
	_, _ = br.Exec() // BEGIN's result: an error shows in the queries after it
	return br
}

// Commit implements pgx.Tx; a transaction that never began has nothing
// to commit.
func (t *lazyTx) Commit(ctx context.Context) error {
	if t.tx == nil {
		return nil
	}
	return t.tx.Commit(ctx)
}

// Rollback implements pgx.Tx.
func (t *lazyTx) Rollback(ctx context.Context) error {
	if t.tx == nil {
		return nil
	}
	return t.tx.Rollback(ctx)
}

func (t *lazyTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if err := t.begin(ctx); err != nil {
		return pgconn.CommandTag{}, err
	}
	return t.tx.Exec(ctx, sql, args...)
}

func (t *lazyTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if err := t.begin(ctx); err != nil {
		return nil, err
	}
	return t.tx.Query(ctx, sql, args...)
}

func (t *lazyTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if err := t.begin(ctx); err != nil {
		return errRow{err}
	}
	return t.tx.QueryRow(ctx, sql, args...)
}

func (t *lazyTx) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	if err := t.begin(ctx); err != nil {
		return 0, err
	}
	return t.tx.CopyFrom(ctx, table, cols, src)
}

func (t *lazyTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return t.conn.Conn().Prepare(ctx, name, sql)
}

func (t *lazyTx) Begin(context.Context) (pgx.Tx, error) { return nil, errNested }

// LargeObjects implements pgx.Tx (unused: the zero value until begun).
func (t *lazyTx) LargeObjects() pgx.LargeObjects {
	if t.tx == nil {
		return pgx.LargeObjects{}
	}
	return t.tx.LargeObjects()
}

func (t *lazyTx) Conn() *pgx.Conn { return t.conn.Conn() }

// errRow is a pgx.Row that scans to an error.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// runLazy runs fn in a lazyTx on a connection of pool and commits it, as
// pgx.BeginFunc does: rolled back when fn fails or panics.
func runLazy(ctx context.Context, p *pool, fn func(pgx.Tx) error) error {
	conn, err := p.Acquire(ctx)
	if err != nil {
		return err
	}
	// A connection left in a transaction (a failed rollback) is destroyed
	// by Release, not reused.
	defer conn.Release()
	t := &lazyTx{conn: conn}
	// After a commit the rollback is a no-op (pgx.ErrTxClosed).
	defer t.Rollback(context.WithoutCancel(ctx))
	if err := fn(t); err != nil {
		return p.check(err) // the connection lost under a statement
	}
	return p.check(t.Commit(ctx))
}
