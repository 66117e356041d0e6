package postgres

import (
	"context"
	"embed"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jogstore/jog/internal/meta"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationLock is the advisory lock key under which a gateway migrates:
// gateways starting together upgrade the schema once.
const migrationLock = 0x6a6f67 // "jog"

// fills are the steps of migrations that SQL alone cannot take, keyed by
// the migration's number; each runs after that migration's SQL, in the
// same transaction.
var fills = map[int]func(context.Context, pgx.Tx) error{
	1: fillIAMState,
}

// migrate applies, in order, every embedded migration newer than the
// database's schema version (table jog_schema), each in its own
// transaction, holding the migration lock throughout.
func migrate(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
		return fmt.Errorf("postgres: migration lock: %w", err)
	}
	defer func() { _, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLock) }()
	if _, err := conn.Exec(ctx, "CREATE TABLE IF NOT EXISTS jog_schema (version integer NOT NULL)"); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	var current int
	if err := conn.QueryRow(ctx, "SELECT COALESCE(MAX(version), 0) FROM jog_schema").Scan(&current); err != nil {
		return fmt.Errorf("postgres: read schema version: %w", err)
	}
	pending, err := meta.PendingMigrations(migrationFS, "migrations/*.sql", current, -1, log)
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	for _, m := range pending {
		started := time.Now()
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			if fill := fills[m.Number]; fill != nil {
				if err := fill(ctx, tx); err != nil {
					return err
				}
			}
			_, err := tx.Exec(ctx, fmt.Sprintf("DELETE FROM jog_schema; INSERT INTO jog_schema (version) VALUES (%d)", m.Number))
			return err
		})
		if err != nil {
			return fmt.Errorf("postgres: migration %s: %w", m.Name, err)
		}
		if current > 0 {
			log.Info("metadata schema migrated", "migration", m.Name, "took", time.Since(started).Round(time.Millisecond))
		}
	}
	return nil
}

// fillIAMState chooses the account ID and starts the IAM change counter.
func fillIAMState(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, "INSERT INTO iam_state (id, account_id, generation) VALUES (1, $1, 1)", meta.NewAccountID())
	return err
}
