package sqlite

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/meta"
	driver "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// TestNoSpace fills a database capped with max_page_count: the write that
// does not fit fails with SQLITE_FULL, marked meta.ErrNoSpace with
// SQLite's message kept, and nothing of it is stored; other errors are
// not marked.
func TestNoSpace(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	ctx := t.Context()
	if err := s.CreateBucket(ctx, meta.Bucket{Name: "b", CreatedAt: meta.Now()}); err != nil {
		t.Fatal(err)
	}
	var pages int
	if err := s.w.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages+8)); err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 8<<10)
	var err error
	i := 0
	for ; i < 100 && err == nil; i++ {
		_, err = s.PutObject(ctx, meta.Object{Bucket: "b", Key: fmt.Sprint("k", i), Inline: data, Size: int64(len(data)),
			ETag: "e", LastModified: meta.Now()}, meta.Condition{})
	}
	if !errors.Is(err, meta.ErrNoSpace) {
		t.Fatalf("write #%d into a full database: %v, want meta.ErrNoSpace", i, err)
	}
	if _, gerr := s.GetObject(ctx, "b", fmt.Sprint("k", i-1), ""); !errors.Is(gerr, meta.ErrObjectNotFound) {
		t.Errorf("the refused write is there: %v", gerr)
	}
	var se *driver.Error
	if !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_FULL || !strings.Contains(err.Error(), se.Error()) {
		t.Errorf("%v: SQLite's SQLITE_FULL error not kept", err)
	}

	_, err = s.w.ExecContext(ctx, "NOT SQL")
	if err == nil || noSpace(err) != err {
		t.Errorf("a syntax error (%v) became %v", err, noSpace(err))
	}
}
