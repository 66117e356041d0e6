package meta

import (
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"sort"
)

// Migration is one step of a store's schema, embedded in the binary as
// migrations/NNNN_name.sql; Number is its position from 1, the schema
// version once it is applied.
type Migration struct {
	Number int
	Name   string // the file's base name
	SQL    string
}

// PendingMigrations returns the migrations in fsys matching glob (in name
// order) that a database at schema version current has not applied, up to
// version last (-1: the newest). A database newer than this binary is an
// error; upgrading an existing database is logged, since a migration can
// take a while on a large one.
func PendingMigrations(fsys fs.FS, glob string, current, last int, log *slog.Logger) ([]Migration, error) {
	names, err := fs.Glob(fsys, glob)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	if last >= 0 && last < len(names) {
		names = names[:last]
	}
	if current > len(names) {
		return nil, fmt.Errorf("database schema version %d is newer than this jog (%d)", current, len(names))
	}
	if current > 0 && current < len(names) {
		log.Info("upgrading the metadata schema", "from", current, "to", len(names))
	}
	var ms []Migration
	for i := current; i < len(names); i++ {
		body, err := fs.ReadFile(fsys, names[i])
		if err != nil {
			return nil, err
		}
		ms = append(ms, Migration{Number: i + 1, Name: path.Base(names[i]), SQL: string(body)})
	}
	return ms, nil
}
