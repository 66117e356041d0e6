//go:build unix

package backend

import (
	"errors"
	"testing"

	"github.com/jogstore/jog/internal/datadir"
)

// TestLock: the stores hold the data dir's lock until closed, so a second
// opener (another server, jog fsck --repair) is refused; an Unlocked open
// (a read-only check) runs beside them.
func TestLock(t *testing.T) {
	cfg := testConfig(t)
	ctx := t.Context()
	s, err := Open(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := Open(ctx, cfg, nil); !errors.Is(err, datadir.ErrLocked) {
		if err == nil {
			again.Close()
		}
		t.Errorf("second Open: %v, want ErrLocked", err)
	}
	if again, err := OpenWith(ctx, cfg, nil, Options{Existing: true}); !errors.Is(err, datadir.ErrLocked) {
		if err == nil {
			again.Close()
		}
		t.Errorf("second OpenWith Existing: %v, want ErrLocked", err)
	}
	ro, err := OpenWith(ctx, cfg, nil, Options{Existing: true, Unlocked: true})
	if err != nil {
		t.Fatalf("Unlocked open beside the lock holder: %v", err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if locked, err := datadir.Locked(cfg.DataDir); !locked || err != nil {
		t.Errorf("closing an Unlocked open dropped the holder's lock: %v, %v", locked, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if locked, err := datadir.Locked(cfg.DataDir); locked || err != nil {
		t.Errorf("Locked after Close = %v, %v", locked, err)
	}
	s, err = Open(ctx, cfg, nil)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	s.Close()
}
