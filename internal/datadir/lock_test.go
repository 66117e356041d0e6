//go:build unix

package datadir

import (
	"errors"
	"testing"
)

func TestLock(t *testing.T) {
	dir := t.TempDir()
	if locked, err := Locked(dir); locked || err != nil {
		t.Fatalf("Locked before any lock = %v, %v", locked, err)
	}
	release, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(dir); !errors.Is(err, ErrLocked) {
		t.Errorf("second Lock: %v, want ErrLocked", err)
	}
	if locked, err := Locked(dir); !locked || err != nil {
		t.Errorf("Locked while held = %v, %v", locked, err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := release(); err != nil {
		t.Errorf("second release: %v", err)
	}
	if locked, err := Locked(dir); locked || err != nil {
		t.Errorf("Locked after release = %v, %v", locked, err)
	}
	again, err := Lock(dir)
	if err != nil {
		t.Fatalf("Lock after release: %v", err)
	}
	again()
}
