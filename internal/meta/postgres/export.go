package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/jogstore/jog/internal/meta"
)

// Export and import of the store's rows for jog migrate (meta.Exporter,
// meta.Importer). buckets.used_bytes is not copied: it is kept only while
// a bucket has a quota (quota.go), and Commit computes it for those. Rows
// go in with COPY, which writes the identity columns (buckets.id,
// inline_data.id, the IAM IDs) as given; Commit moves each identity's
// sequence past the largest ID copied.

var (
	_ meta.Exporter = (*Store)(nil)
	_ meta.Importer = (*Store)(nil)
)

// identityTables are the tables whose id is GENERATED ALWAYS AS IDENTITY.
var identityTables = []string{"buckets", "inline_data", "iam_policies", "iam_entities"}

// BeginExport implements meta.Exporter: a read-only REPEATABLE READ
// transaction, one snapshot for every table.
func (s *Store) BeginExport(ctx context.Context) (meta.Export, error) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, err
	}
	return &export{tx: tx}, nil
}

type export struct{ tx pgx.Tx }

func (e *export) Rows(ctx context.Context, t meta.Table, fn func(meta.Row) error) error {
	rows, err := e.tx.Query(ctx, "SELECT "+strings.Join(t.ColumnNames(), ", ")+" FROM "+t.Name+" ORDER BY "+t.OrderBy(` COLLATE "C"`))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return err
		}
		row := make(meta.Row, len(vals))
		for i, c := range t.Columns {
			if row[i], err = c.Value(vals[i]); err != nil {
				return fmt.Errorf("%s: %w", t.Name, err)
			}
		}
		if err := fn(row); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (e *export) Close() error { return e.tx.Rollback(context.Background()) }

// BeginImport implements meta.Importer: one transaction for the whole
// import.
func (s *Store) BeginImport(ctx context.Context) (meta.Import, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	im := &importer{tx: tx, quotas: map[int64]int64{}}
	if err := im.checkEmpty(ctx); err != nil {
		tx.Rollback(ctx)
		return nil, err
	}
	// The migration's account ID and counter give way to the source's.
	if _, err := tx.Exec(ctx, "DELETE FROM iam_state"); err != nil {
		tx.Rollback(ctx)
		return nil, err
	}
	return im, nil
}

type importer struct {
	tx pgx.Tx
	// quotas are the buckets' quotas, set by Commit: a bucket goes in
	// without one, so that the usage triggers do not update its row once
	// per version copied.
	quotas map[int64]int64
}

// checkEmpty fails with meta.ErrNotEmpty when a table that Tables copies
// (but iam_state, which every store has a row of) holds a row.
func (im *importer) checkEmpty(ctx context.Context) error {
	for _, t := range meta.Tables {
		if t.Name == "iam_state" {
			continue
		}
		var has bool
		if err := im.tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+t.Name+")").Scan(&has); err != nil {
			return err
		}
		if has {
			return fmt.Errorf("%w: table %s has rows", meta.ErrNotEmpty, t.Name)
		}
	}
	return nil
}

func (im *importer) Write(ctx context.Context, t meta.Table, rows []meta.Row) error {
	src := make([][]any, len(rows))
	for i, r := range rows {
		if err := storable(t, r); err != nil {
			return err
		}
		src[i] = r
	}
	if t.Name == "buckets" {
		q := columnIndex(t, "quota_bytes")
		for i, r := range rows {
			im.quotas[r[0].(int64)] = r[q].(int64)
			src[i] = append([]any(nil), r...)
			src[i][q] = int64(0)
		}
	}
	_, err := im.tx.CopyFrom(ctx, pgx.Identifier{t.Name}, t.ColumnNames(), pgx.CopyFromRows(src))
	if err != nil {
		return fmt.Errorf("%s: %w", t.Name, err)
	}
	return nil
}

// storable refuses a row with a text value PostgreSQL cannot hold (a key
// with a NUL byte or invalid UTF-8, which SQLite keeps) with
// meta.ErrUnstorableKey, naming the row by its primary key.
func storable(t meta.Table, r meta.Row) error {
	for i, c := range t.Columns {
		if v, ok := r[i].(string); ok && !representable(v) {
			key := make([]string, len(t.Key))
			for j, k := range t.Key {
				key[j] = fmt.Sprintf("%s=%q", k, r[columnIndex(t, k)])
			}
			return fmt.Errorf("%s (%s): column %s %q: %w", t.Name, strings.Join(key, ", "), c.Name, v, meta.ErrUnstorableKey)
		}
	}
	return nil
}

// columnIndex is the position of column name in t.
func columnIndex(t meta.Table, name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	panic("postgres: no column " + name + " in " + t.Name)
}

// Commit moves the identity sequences past the copied IDs, sets the
// buckets' quotas with their usage, and commits.
func (im *importer) Commit(ctx context.Context) error {
	for _, t := range identityTables {
		if _, err := im.tx.Exec(ctx, "SELECT setval(pg_get_serial_sequence($1, 'id'), max(id)) FROM "+t+" HAVING max(id) IS NOT NULL", t); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
	}
	for id, quota := range im.quotas {
		if quota == 0 {
			continue
		}
		if _, err := im.tx.Exec(ctx, "UPDATE buckets SET quota_bytes = $2::bigint, used_bytes = "+usageOf("$1")+" WHERE id = $1",
			id, quota); err != nil {
			return err
		}
	}
	return im.tx.Commit(ctx)
}

func (im *importer) Rollback() error {
	err := im.tx.Rollback(context.Background())
	if errors.Is(err, pgx.ErrTxClosed) {
		return nil
	}
	return err
}
