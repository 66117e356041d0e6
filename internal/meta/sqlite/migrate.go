package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"log/slog"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// fills are the steps of migrations that SQL alone cannot take, keyed by
// the migration's number (its position, from 1); each runs after that
// migration's SQL, in the same transaction.
var fills = map[int]func(context.Context, *sql.Tx) error{
	4:  fillDirs,
	11: fillIAM,
}

// migrate applies, in order, every embedded migration newer than the
// database's PRAGMA user_version, each in its own transaction.
func migrate(ctx context.Context, db *sql.DB, log *slog.Logger) error {
	return migrateTo(ctx, db, -1, log)
}

// migrateTo is migrate up to schema version last (-1: the newest); tests
// build older databases with it. Upgrading an existing database is logged:
// a migration with a Go step can take a while on a large one.
func migrateTo(ctx context.Context, db *sql.DB, last int, log *slog.Logger) error {
	var current int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&current); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	pending, err := meta.PendingMigrations(migrationFS, "migrations/*.sql", current, last, log)
	if err != nil {
		return err
	}
	for _, m := range pending {
		started := time.Now()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
		if fill := fills[m.Number]; fill != nil {
			if err := fill(ctx, tx); err != nil {
				tx.Rollback()
				return fmt.Errorf("migration %s: %w", m.Name, err)
			}
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.Number)); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
		if current > 0 {
			log.Info("metadata schema migrated", "migration", m.Name, "took", time.Since(started).Round(time.Millisecond))
		}
	}
	return nil
}
