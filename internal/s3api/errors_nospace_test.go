package s3api

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"syscall"
	"testing"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/meta"
)

// A full store — blob.ErrNoSpace from the blob store, meta.ErrNoSpace from
// the metadata store, however wrapped — is 507 InsufficientStorage; other
// storage errors are not. Which backend errors are "full" is each backend's
// to say (blob/disk, meta/sqlite test theirs).
func TestNoSpaceIsInsufficientStorage(t *testing.T) {
	for _, err := range []error{
		blob.ErrNoSpace,
		blob.MarkNoSpace(&fs.PathError{Op: "write", Path: "/data/tmp/x", Err: syscall.ENOSPC}),
		fmt.Errorf("create blob: %w", blob.MarkNoSpace(syscall.EDQUOT)),
		meta.ErrNoSpace,
		fmt.Errorf("commit: %w", meta.MarkNoSpace(errors.New("database or disk is full"))),
	} {
		ae, known := toAPIError(err)
		if !known || ae.Status != http.StatusInsufficientStorage || ae.Code != "InsufficientStorage" {
			t.Errorf("toAPIError(%v) = %+v, %v; want 507 InsufficientStorage", err, ae, known)
		}
	}
	for _, err := range []error{syscall.EIO, fmt.Errorf("fsync blob: %w", syscall.EIO), errors.New("disk I/O error")} {
		if ae, _ := toAPIError(err); ae.Status == http.StatusInsufficientStorage {
			t.Errorf("toAPIError(%v) = %+v", err, ae)
		}
	}
}

type failingBody struct{ err error }

func (b failingBody) Read([]byte) (int, error) { return 0, b.err }
func (failingBody) Close() error               { return nil }

// A client that hangs up mid-body is IncompleteBody, not an internal error;
// EOF and ErrUnexpectedEOF reach readers unchanged.
func TestClientBodyErrors(t *testing.T) {
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	_, err := clientBody{ReadCloser: failingBody{reset}}.Read(make([]byte, 1))
	if ae, known := toAPIError(err); !known || ae.Code != "IncompleteBody" || ae.Status != http.StatusBadRequest {
		t.Errorf("connection reset while reading the body: %+v, %v", ae, known)
	}
	for _, e := range []error{io.EOF, io.ErrUnexpectedEOF} {
		if _, err := (clientBody{ReadCloser: failingBody{e}}).Read(make([]byte, 1)); err != e {
			t.Errorf("clientBody turned %v into %v", e, err)
		}
	}
}
