package disk

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"
	"syscall"
	"testing"

	"github.com/jogstore/jog/internal/blob"
)

// TestNoSpace: a full file system (ENOSPC, EDQUOT) and the Reserve check
// are blob.ErrNoSpace, with their own message and errno kept; other
// errors are not.
func TestNoSpace(t *testing.T) {
	for _, err := range []error{
		&fs.PathError{Op: "write", Path: "/data/tmp/x", Err: syscall.ENOSPC},
		fmt.Errorf("fsync blob: %w", &fs.PathError{Op: "sync", Path: "x", Err: syscall.ENOSPC}),
		syscall.EDQUOT,
	} {
		got := noSpace(err)
		if !errors.Is(got, blob.ErrNoSpace) || got.Error() != err.Error() || !errors.Is(got, err) {
			t.Errorf("noSpace(%v) = %v: not blob.ErrNoSpace keeping the error", err, got)
		}
	}
	for _, err := range []error{nil, syscall.EIO, fs.ErrNotExist} {
		if got := noSpace(err); got != err {
			t.Errorf("noSpace(%v) = %v", err, got)
		}
	}

	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w, err := s.Create(ctx, -1) // before the reserve goes up
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Abort() }()
	if _, _, ok := fsSpace(s.root); !ok {
		t.Skip("free space unknown on this platform: no reserve")
	}
	s.Reserve = math.MaxInt64 / 2 // more than any file system has free
	full := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, blob.ErrNoSpace) || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "kept in reserve") {
			t.Errorf("%s over the reserve: %v, want blob.ErrNoSpace", what, err)
		}
	}
	full("CheckSpace", s.CheckSpace(1))
	_, err = s.Create(ctx, 10)
	full("Create", err)
	_, err = w.Write([]byte("x"))
	full("Write", err)
}
