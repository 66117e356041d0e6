package sqlite

import (
	"errors"

	"github.com/jogstore/jog/internal/meta"
	driver "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// noSpace marks err as meta.ErrNoSpace when SQLite reports a full disk
// (SQLITE_FULL, "database or disk is full"; extended result codes keep it
// in their low byte). Other errors, and nil, pass unchanged.
func noSpace(err error) error {
	if err == nil { // first: no allocation on the path of every commit
		return nil
	}
	var se *driver.Error
	if !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_FULL {
		return err
	}
	return meta.MarkNoSpace(err)
}
