package disk

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/datadir"
)

// Gateways. Several processes ("gateways") may share one data dir, each
// with its own metadata connection (docs/RELIABILITY.md, "Several gateways
// on one data directory"). Every Store is one gateway, with a random ID
// chosen at Open, and everything it writes carries that ID:
//
//	<root>/tmp/<gateway>-<blob id>     its writes in progress
//	<root>/packs/<gateway><random>     the packs it creates (only it appends)
//	<root>/tmp/<gateway>.lock          shared stores only: flock held for
//	                                   as long as the gateway lives
//
// A store opened with OpenShared announces itself with the lock file
// (datadir.LockPath: flock, where the platform has it). The file is
// created under a staging name (<gateway>.locking), locked, and only then
// renamed into place, so that it never shows unlocked while its
// gateway lives: a gateway whose lock file is missing or free is gone
// (gatewayGone), and CleanTemp may remove what its writes left. A store
// opened with Open has the data dir to itself (the server holds the data
// dir's exclusive lock), so every other gateway's files are a dead
// process's leftovers and it needs no lock file.

// gatewayIDLen is the length of a gateway ID: 16 hex characters (64 random
// bits). A pack ID is a gateway ID and 64 more random bits, so that it stays
// a 128-bit ID (validID) and packs are named by the gateway that appends
// to them.
const gatewayIDLen = 16

const (
	lockSuffix    = ".lock"
	lockingSuffix = ".locking"
)

func newGatewayID() string {
	var b [gatewayIDLen / 2]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func validGateway(g string) bool {
	if len(g) != gatewayIDLen {
		return false
	}
	_, err := hex.DecodeString(g)
	return err == nil
}

// Gateway returns the store's gateway ID.
func (s *Store) Gateway() string { return s.gateway }

// tempPath is the tmp/ file of blob id's write in progress.
func (s *Store) tempPath(id string) string {
	return filepath.Join(s.root, "tmp", s.gateway+"-"+id)
}

// TempOwner returns the gateway whose file name (in tmp/) is, and whether
// it is the gateway's lock file; owner is "" for a name without a gateway
// (written before gateways had IDs).
func TempOwner(name string) (owner string, lock bool) {
	if g, ok := strings.CutSuffix(name, lockSuffix); ok && validGateway(g) {
		return g, true
	}
	if g, ok := strings.CutSuffix(name, lockingSuffix); ok && validGateway(g) {
		return g, false
	}
	if g, _, ok := strings.Cut(name, "-"); ok && validGateway(g) {
		return g, false
	}
	return "", false
}

// announce creates and locks tmp/<gateway>.lock (OpenShared).
func (s *Store) announce() error {
	dir := filepath.Join(s.root, "tmp")
	staged := filepath.Join(dir, s.gateway+lockingSuffix)
	unlock, err := datadir.LockPath(staged)
	if err != nil {
		os.Remove(staged)
		return fmt.Errorf("lock gateway %s: %w", s.gateway, err)
	}
	if err := os.Rename(staged, filepath.Join(dir, s.gateway+lockSuffix)); err != nil {
		_ = unlock()
		os.Remove(staged)
		return err
	}
	s.unlock = unlock
	return nil
}

// leave removes the gateway's lock file, then drops the lock (Close).
func (s *Store) leave() error {
	if s.unlock == nil {
		return nil
	}
	err := os.Remove(filepath.Join(s.root, "tmp", s.gateway+lockSuffix))
	err = errors.Join(err, s.unlock())
	s.unlock = nil
	return err
}

// gatewayGone reports whether gateway g has ended: its lock file is
// missing, or no process holds it. This store's own gateway never is.
func (s *Store) gatewayGone(g string) bool {
	if g == s.gateway {
		return false
	}
	locked, err := datadir.PathLocked(filepath.Join(s.root, "tmp", g+lockSuffix))
	return err == nil && !locked // an error: cannot tell, keep its files
}

// CleanTemp implements blob.Store: it removes files in tmp/ last changed
// before the given time whose gateway has ended (or that name none), and
// the lock files of ended gateways. This store's own files and those of a
// live gateway stay, however old: they are writes in progress.
func (s *Store) CleanTemp(ctx context.Context, before time.Time) (int, error) {
	dir := filepath.Join(s.root, "tmp")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	gone := make(map[string]bool)
	isGone := func(g string) bool {
		v, ok := gone[g]
		if !ok {
			v = s.gatewayGone(g)
			gone[g] = v
		}
		return v
	}
	n := 0
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		owner, lock := TempOwner(e.Name())
		if e.IsDir() || owner != "" && !isGone(owner) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if lock {
			os.Remove(path) // an ended gateway's: not a write's leftover
			continue
		}
		info, err := e.Info()
		if err != nil || !info.ModTime().Before(before) {
			continue
		}
		if err := os.Remove(path); err == nil {
			n++
		}
	}
	return n, nil
}

// WalkTemp calls fn for every file in tmp/ but gateways' lock files: writes
// in progress, or what an interrupted write left. Info.ID is the file's
// name there.
func (s *Store) WalkTemp(ctx context.Context, fn func(blob.Info) error) error {
	entries, err := os.ReadDir(filepath.Join(s.root, "tmp"))
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, lock := TempOwner(e.Name()); lock || e.IsDir() {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if err := fn(blob.Info{ID: e.Name(), Size: info.Size(), ModTime: info.ModTime()}); err != nil {
			return err
		}
	}
	return nil
}
