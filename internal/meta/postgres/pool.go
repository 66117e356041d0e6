package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/outage"
)

// pool is the connection pool as the Store uses it: the errors of a
// server that cannot be reached (unreachable) come out marked
// meta.ErrUnavailable (the S3 edge answers them 503 with a Retry-After),
// and each failure and answer is told to outage, which logs the outage's
// start, a line per outage.Interval at most while it lasts, and its end.
// Transactions run by runLazy are checked as a whole.
type pool struct {
	*pgxpool.Pool
	outage *outage.Tracker
}

// check marks err when it is a failure to reach the server, and reports
// it or an answer to the outage tracker.
func (p *pool) check(err error) error {
	switch {
	case err == nil || errors.Is(err, pgx.ErrNoRows):
		p.outage.OK()
		return err
	case errors.Is(err, meta.ErrUnavailable):
		return err
	case unreachable(err):
		p.outage.Failed(err)
		return fmt.Errorf("%w: %w", meta.ErrUnavailable, err)
	}
	return err
}

// unreachable reports an error that says the server cannot be reached:
// no connection (refused, reset, closed under the query), or the server
// shutting down or starting (SQLSTATE class 08, 57P01-57P03). Not the end
// of the caller's context.
func unreachable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		pgconn.SafeToRetry(err) // not sent: the connection was closed before
}

func (p *pool) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	tag, err := p.Pool.Exec(ctx, sql, args...)
	return tag, p.check(err)
}

func (p *pool) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	rows, err := p.Pool.Query(ctx, sql, args...)
	if err != nil {
		return rows, p.check(err)
	}
	return checkedRows{rows, p}, nil
}

func (p *pool) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return checkedRow{p.Pool.QueryRow(ctx, sql, args...), p}
}

func (p *pool) Begin(ctx context.Context) (pgx.Tx, error) {
	tx, err := p.Pool.Begin(ctx)
	return tx, p.check(err)
}

func (p *pool) BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error) {
	tx, err := p.Pool.BeginTx(ctx, opts)
	return tx, p.check(err)
}

func (p *pool) Acquire(ctx context.Context) (*pgxpool.Conn, error) {
	c, err := p.Pool.Acquire(ctx)
	return c, p.check(err)
}

func (p *pool) Ping(ctx context.Context) error { return p.check(p.Pool.Ping(ctx)) }

// checkedRows checks the error that ends a result set.
type checkedRows struct {
	pgx.Rows
	p *pool
}

func (r checkedRows) Err() error { return r.p.check(r.Rows.Err()) }

// checkedRow checks a single row's error.
type checkedRow struct {
	row pgx.Row
	p   *pool
}

func (r checkedRow) Scan(dest ...any) error { return r.p.check(r.row.Scan(dest...)) }
