package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jogstore/jog/internal/meta"
)

// Export and import of the store's rows for jog migrate (meta.Exporter,
// meta.Importer). The columns and tables this store derives from the
// others are not copied: objects.parent and objects.is_latest (always 1
// in the live view), buckets.has_versions, buckets.used_bytes and
// buckets.object_count (kept by the triggers of migrations 0015 and 0016
// as the rows go in) and the dirs table,
// rebuilt per bucket by Commit.

var (
	_ meta.Exporter = (*Store)(nil)
	_ meta.Importer = (*Store)(nil)
)

// BeginExport implements meta.Exporter: a read transaction of the read
// pool, whose first query fixes the snapshot every table is read from.
func (s *Store) BeginExport(ctx context.Context) (meta.Export, error) {
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return &export{tx: tx}, nil
}

type export struct{ tx *sql.Tx }

func (e *export) Rows(ctx context.Context, t meta.Table, fn func(meta.Row) error) error {
	q := "SELECT " + strings.Join(t.ColumnNames(), ", ") + " FROM " + t.Name + " ORDER BY " + t.OrderBy(" COLLATE BINARY")
	vals := make([]any, len(t.Columns))
	ptrs := make([]any, len(t.Columns))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	return queryEach(ctx, e.tx, q, nil, func(rows *sql.Rows) error {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		row := make(meta.Row, len(vals))
		for i, c := range t.Columns {
			v, err := c.Value(vals[i])
			if err != nil {
				return fmt.Errorf("%s: %w", t.Name, err)
			}
			row[i] = v
		}
		return fn(row)
	})
}

func (e *export) Close() error { return e.tx.Rollback() }

// BeginImport implements meta.Importer: one write transaction, on the
// writer's connection, for the whole import.
func (s *Store) BeginImport(ctx context.Context) (meta.Import, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	if err := checkEmpty(ctx, tx); err != nil {
		tx.Rollback()
		return nil, err
	}
	// The migration's account ID and counter give way to the source's.
	if _, err := tx.ExecContext(ctx, "DELETE FROM iam_state"); err != nil {
		tx.Rollback()
		return nil, err
	}
	return &importer{s: s, tx: tx, stmts: map[string]*sql.Stmt{}}, nil
}

// checkEmpty fails with meta.ErrNotEmpty when a table that Tables copies
// (but iam_state, which every store has a row of) holds a row.
func checkEmpty(ctx context.Context, tx *sql.Tx) error {
	for _, t := range meta.Tables {
		if t.Name == "iam_state" {
			continue
		}
		var n int
		err := tx.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM "+t.Name+" LIMIT 1)").Scan(&n)
		if err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("%w: table %s has rows", meta.ErrNotEmpty, t.Name)
		}
	}
	return nil
}

type importer struct {
	s     *Store
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

// derived are the values this store adds to a row of a table: objects'
// live-view flag and directory.
var derived = map[string]struct {
	cols []string
	vals func(t meta.Table, r meta.Row) []any
}{
	"objects": {cols: []string{"is_latest", "parent"}, vals: func(t meta.Table, r meta.Row) []any {
		return []any{1, parentOf(r[1].(string))}
	}},
}

func (im *importer) Write(ctx context.Context, t meta.Table, rows []meta.Row) error {
	st, ok := im.stmts[t.Name]
	if !ok {
		cols := t.ColumnNames()
		cols = append(cols, derived[t.Name].cols...)
		q := "INSERT INTO " + t.Name + " (" + strings.Join(cols, ", ") + ") VALUES (?" + strings.Repeat(", ?", len(cols)-1) + ")"
		var err error
		if st, err = im.tx.PrepareContext(ctx, q); err != nil {
			return err
		}
		im.stmts[t.Name] = st
	}
	args := make([]any, 0, len(t.Columns)+2)
	for _, r := range rows {
		args = args[:0]
		for _, v := range r {
			if b, ok := v.(bool); ok {
				v = boolInt(b)
			}
			args = append(args, v)
		}
		if d := derived[t.Name]; d.vals != nil {
			args = append(args, d.vals(t, r)...)
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Commit writes the directory index of every bucket and marks those with
// versions, then commits.
func (im *importer) Commit(ctx context.Context) error {
	for _, st := range im.stmts {
		st.Close()
	}
	var ids []int64
	err := queryEach(ctx, im.tx, "SELECT id FROM buckets", nil, func(rows *sql.Rows) error {
		var id int64
		err := rows.Scan(&id)
		ids = append(ids, id)
		return err
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := rebuildDirs(ctx, im.tx, id); err != nil {
			return err
		}
	}
	if _, err := im.tx.ExecContext(ctx, "UPDATE buckets SET has_versions = 1 WHERE id IN (SELECT DISTINCT bucket_id FROM object_versions)"); err != nil {
		return err
	}
	im.s.memo.clear() // the import wrote buckets under the writer's memo
	return im.tx.Commit()
}

func (im *importer) Rollback() error {
	err := im.tx.Rollback()
	if err == sql.ErrTxDone {
		return nil
	}
	return err
}
