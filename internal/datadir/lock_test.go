//go:build unix

package datadir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
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
	_ = again()
}

// TestLockShared: gateways share the lock with each other, never with an
// exclusive holder, and Locked sees a shared holder too.
func TestLockShared(t *testing.T) {
	dir := t.TempDir()
	a, err := LockShared(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LockShared(dir)
	if err != nil {
		t.Fatalf("second LockShared: %v", err)
	}
	if _, err := Lock(dir); !errors.Is(err, ErrLocked) {
		t.Errorf("Lock beside gateways: %v, want ErrLocked", err)
	}
	if locked, err := Locked(dir); !locked || err != nil {
		t.Errorf("Locked while shared = %v, %v", locked, err)
	}
	_ = a()
	if _, err := Lock(dir); !errors.Is(err, ErrLocked) {
		t.Errorf("Lock beside one gateway: %v, want ErrLocked", err)
	}
	_ = b()
	if locked, err := Locked(dir); locked || err != nil {
		t.Errorf("Locked after the gateways left = %v, %v", locked, err)
	}
	ex, err := Lock(dir)
	if err != nil {
		t.Fatalf("Lock after the gateways left: %v", err)
	}
	if _, err := LockShared(dir); !errors.Is(err, ErrLocked) {
		t.Errorf("LockShared beside an exclusive holder: %v, want ErrLocked", err)
	}
	_ = ex()
	c, err := LockShared(dir)
	if err != nil {
		t.Fatalf("LockShared after the exclusive holder left: %v", err)
	}
	_ = c()
}

// TestLockPath: a lock on any file, as blob stores mark live gateways.
func TestLockPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.lock")
	if locked, err := PathLocked(path); locked || err != nil {
		t.Fatalf("PathLocked of no file = %v, %v", locked, err)
	}
	release, err := LockPath(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockPath(path); !errors.Is(err, ErrLocked) {
		t.Errorf("second LockPath: %v, want ErrLocked", err)
	}
	if locked, err := PathLocked(path); !locked || err != nil {
		t.Errorf("PathLocked while held = %v, %v", locked, err)
	}
	_ = release()
	if locked, err := PathLocked(path); locked || err != nil {
		t.Errorf("PathLocked after release = %v, %v", locked, err)
	}
}

// TestEndedGateways: the gateway directories whose lock is free, less
// self's and files.
func TestEndedGateways(t *testing.T) {
	root := t.TempDir()
	for _, g := range []string{"self", "live", "ended", "never-locked"} {
		if err := os.Mkdir(filepath.Join(root, g), 0o750); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.WriteFile(filepath.Join(root, "a-file"), nil, 0o640)
	live, err := LockPath(filepath.Join(root, "live", "lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = live() }()
	ended, err := LockPath(filepath.Join(root, "ended", "lock"))
	if err != nil {
		t.Fatal(err)
	}
	_ = ended()
	got, err := EndedGateways(root, "self", "lock")
	if err != nil || strings.Join(got, " ") != "ended never-locked" {
		t.Errorf("EndedGateways = %v, %v; want [ended never-locked]", got, err)
	}
}

// TestLockGatewayDirRace: gateways open their directories while another
// adopts ended ones as the bucket log spool does (EndedGateways, then
// its lock file and the directory removed). No gateway's directory may
// be taken for an ended one while it is being opened: each opens, holds
// its lock and writes a file in it. Seen in the crash harness with two
// gateways started at once (one failed to start: its spool's directory
// was gone).
func TestLockGatewayDirRace(t *testing.T) {
	root := t.TempDir()
	done := make(chan struct{})
	var adopters sync.WaitGroup
	var adopted atomic.Int64
	for range 3 {
		adopters.Add(1)
		go func() {
			defer adopters.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				ended, _ := EndedGateways(root, "adopter", "lock")
				for _, g := range ended {
					os.Remove(filepath.Join(root, g, "lock"))
					if os.Remove(filepath.Join(root, g)) == nil {
						adopted.Add(1)
					}
				}
			}
		}()
	}
	defer adopters.Wait()
	defer close(done)
	const gateways = 300
	for i := range gateways {
		dir, release, err := LockGatewayDir(root, fmt.Sprintf("g%05d", i), "lock")
		if err != nil {
			t.Fatalf("gateway %d: %v", i, err)
		}
		if locked, err := PathLocked(filepath.Join(dir, "lock")); !locked || err != nil {
			t.Errorf("gateway %d: its lock held = %v, %v", i, locked, err)
		}
		if err := os.WriteFile(filepath.Join(dir, "current"), nil, 0o640); err != nil {
			t.Errorf("gateway %d: %v", i, err)
		}
		os.Remove(filepath.Join(dir, "current"))
		_ = release()
	}
	t.Logf("%d gateways opened, %d ended ones adopted meanwhile", gateways, adopted.Load())
}
