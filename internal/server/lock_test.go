//go:build unix

package server

import (
	"errors"
	"testing"
)

func TestLockDataDir(t *testing.T) {
	dir := t.TempDir()
	if locked, err := DataDirLocked(dir); locked || err != nil {
		t.Fatalf("DataDirLocked before any lock = %v, %v", locked, err)
	}
	release, err := LockDataDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockDataDir(dir); !errors.Is(err, ErrDataDirLocked) {
		t.Errorf("second LockDataDir: %v, want ErrDataDirLocked", err)
	}
	if locked, err := DataDirLocked(dir); !locked || err != nil {
		t.Errorf("DataDirLocked while held = %v, %v", locked, err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := release(); err != nil {
		t.Errorf("second release: %v", err)
	}
	if locked, err := DataDirLocked(dir); locked || err != nil {
		t.Errorf("DataDirLocked after release = %v, %v", locked, err)
	}
	again, err := LockDataDir(dir)
	if err != nil {
		t.Fatalf("LockDataDir after release: %v", err)
	}
	again()
}
