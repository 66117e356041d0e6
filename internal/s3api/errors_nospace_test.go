package s3api

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"path/filepath"
	"syscall"
	"testing"

	_ "modernc.org/sqlite"
)

type codedErr int

func (e codedErr) Error() string { return fmt.Sprintf("sqlite error %d", int(e)) }
func (e codedErr) Code() int     { return int(e) }

// A full file system — ENOSPC or EDQUOT from a blob write, SQLITE_FULL
// (plain or extended) from the metadata store — is 507 InsufficientStorage;
// other coded errors are not.
func TestNoSpaceIsInsufficientStorage(t *testing.T) {
	for _, err := range []error{
		&fs.PathError{Op: "write", Path: "/data/tmp/x", Err: syscall.ENOSPC},
		fmt.Errorf("fsync blob: %w", &fs.PathError{Op: "sync", Path: "x", Err: syscall.ENOSPC}),
		fmt.Errorf("create blob: %w", syscall.EDQUOT),
		fmt.Errorf("commit: %w", codedErr(13)),
		codedErr(13 | 3<<8),
	} {
		ae, known := toAPIError(err)
		if !known || ae.Status != http.StatusInsufficientStorage || ae.Code != "InsufficientStorage" {
			t.Errorf("toAPIError(%v) = %+v, %v; want 507 InsufficientStorage", err, ae, known)
		}
	}
	for _, err := range []error{codedErr(5), codedErr(14), syscall.EIO} {
		if ae, _ := toAPIError(err); ae.Status == http.StatusInsufficientStorage {
			t.Errorf("toAPIError(%v) = %+v", err, ae)
		}
	}
	// The SQLite driver's errors carry their result code the way isNoSpace
	// reads it (here SQLITE_ERROR, 1, for bad SQL).
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.Exec("NOT SQL")
	var coded interface{ Code() int }
	if !errors.As(err, &coded) || coded.Code() != 1 {
		t.Fatalf("SQLite error %v (%T) does not carry its result code", err, err)
	}
}

type failingBody struct{ err error }

func (b failingBody) Read([]byte) (int, error) { return 0, b.err }
func (failingBody) Close() error               { return nil }

// A client that hangs up mid-body is IncompleteBody, not an internal error;
// EOF and ErrUnexpectedEOF reach readers unchanged.
func TestClientBodyErrors(t *testing.T) {
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	_, err := clientBody{failingBody{reset}}.Read(make([]byte, 1))
	if ae, known := toAPIError(err); !known || ae.Code != "IncompleteBody" || ae.Status != http.StatusBadRequest {
		t.Errorf("connection reset while reading the body: %+v, %v", ae, known)
	}
	for _, e := range []error{io.EOF, io.ErrUnexpectedEOF} {
		if _, err := (clientBody{failingBody{e}}).Read(make([]byte, 1)); err != e {
			t.Errorf("clientBody turned %v into %v", e, err)
		}
	}
}
