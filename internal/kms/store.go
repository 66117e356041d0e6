package kms

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/jogstore/jog/internal/datadir"
)

// Record is a named key as a Store keeps it. Its versions' material is
// sealed by the master key (Builtin), so a Store never holds a key in
// plain text.
type Record struct {
	ID          string    `json:"id"`
	Description string    `json:"description,omitempty"`
	Enabled     bool      `json:"enabled"`
	Created     time.Time `json:"created"`
	// Versions, oldest first; the last is the one new data keys are
	// sealed under. Versions are numbered from 1 and never removed.
	Versions []Version `json:"versions"`
}

// Version is one version of a key's material.
type Version struct {
	N       uint32    `json:"n"`
	Created time.Time `json:"created"`
	Sealed  []byte    `json:"sealed"`
}

// newest returns the key's newest version.
func (r *Record) newest() Version { return r.Versions[len(r.Versions)-1] }

// version returns version n of the key.
func (r *Record) version(n uint32) (Version, bool) {
	i := slices.IndexFunc(r.Versions, func(v Version) bool { return v.N == n })
	if i < 0 {
		return Version{}, false
	}
	return r.Versions[i], true
}

// Store keeps the records of the named keys. FileStore keeps them in a
// file in the data dir; a store shared by many gateways (rows in the
// metadata store) is the next session's. Get and Update fail with an
// error matching ErrNotFound for an ID it does not hold, Create with
// ErrExists for one it does.
type Store interface {
	Get(ctx context.Context, id string) (Record, error)
	// List returns every record, sorted by ID.
	List(ctx context.Context) ([]Record, error)
	Create(ctx context.Context, r Record) error
	// Update applies fn to the record of id and keeps the result, atomically
	// with respect to the store's other writers; an error from fn keeps
	// nothing and is returned.
	Update(ctx context.Context, id string, fn func(*Record) error) error
}

// KeysFile is the file in the data dir where FileStore keeps the keys
// (JSON; the key material in it sealed by the master key; mode 0600).
const KeysFile = "kms-keys.json"

// FileStore is a Store in one JSON file, rewritten whole (temporary file,
// fsync, rename) on each change. Writers from several processes on one
// data dir (the server, `jog admin kms`) take a lock file beside it;
// readers see another process's change at their next call (a stat of the
// file per call). It is safe for concurrent use.
type FileStore struct {
	path string

	mu   sync.Mutex
	stat fs.FileInfo // of the file when keys were read; nil when absent
	keys map[string]Record
}

var _ Store = (*FileStore)(nil)

// OpenFileStore returns the FileStore of dataDir's KeysFile; the file is
// created at the first Create.
func OpenFileStore(dataDir string) (*FileStore, error) {
	s := &FileStore{path: filepath.Join(dataDir, KeysFile)}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s, s.refresh()
}

// lockWait bounds the wait for another process's write.
const lockWait = 10 * time.Second

// refresh rereads the file when it changed since it was read. s.mu is held.
func (s *FileStore) refresh() error {
	fi, err := os.Stat(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		s.stat, s.keys = nil, map[string]Record{}
		return nil
	}
	if err != nil {
		return err
	}
	if s.stat != nil && os.SameFile(s.stat, fi) && s.stat.ModTime().Equal(fi.ModTime()) && s.stat.Size() == fi.Size() {
		return nil
	}
	b, err := os.ReadFile(s.path)
	if err != nil {
		return err
	}
	var list []Record
	if err := json.Unmarshal(b, &list); err != nil {
		return fmt.Errorf("kms: %s: %w", s.path, err)
	}
	keys := make(map[string]Record, len(list))
	for _, r := range list {
		keys[r.ID] = r
	}
	s.stat, s.keys = fi, keys
	return nil
}

// Get returns the record of id.
func (s *FileStore) Get(_ context.Context, id string) (Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refresh(); err != nil {
		return Record{}, err
	}
	r, ok := s.keys[id]
	if !ok {
		return Record{}, keyErr(KindNotFound, id)
	}
	return r, nil
}

// List returns every record, sorted by ID.
func (s *FileStore) List(context.Context) ([]Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refresh(); err != nil {
		return nil, err
	}
	return s.sorted(), nil
}

func (s *FileStore) sorted() []Record {
	list := make([]Record, 0, len(s.keys))
	for _, r := range s.keys {
		list = append(list, r)
	}
	slices.SortFunc(list, func(a, b Record) int { return cmp.Compare(a.ID, b.ID) })
	return list
}

// Create adds r.
func (s *FileStore) Create(ctx context.Context, r Record) error {
	return s.write(ctx, func(keys map[string]Record) error {
		if _, ok := keys[r.ID]; ok {
			return keyErr(KindExists, r.ID)
		}
		keys[r.ID] = r
		return nil
	})
}

// Update applies fn to the record of id.
func (s *FileStore) Update(ctx context.Context, id string, fn func(*Record) error) error {
	return s.write(ctx, func(keys map[string]Record) error {
		r, ok := keys[id]
		if !ok {
			return keyErr(KindNotFound, id)
		}
		r.Versions = slices.Clone(r.Versions)
		if err := fn(&r); err != nil {
			return err
		}
		keys[id] = r
		return nil
	})
}

// write changes the keys under the lock file, from the file as it is now,
// and writes them back.
func (s *FileStore) write(ctx context.Context, change func(map[string]Record) error) error {
	return s.locked(ctx, func() error {
		keys := make(map[string]Record, len(s.keys)+1)
		for id, r := range s.keys {
			keys[id] = r
		}
		if err := change(keys); err != nil {
			return err
		}
		return s.replace(keys)
	})
}

// locked runs fn holding s.mu and the lock file, s.keys as the file is
// now.
func (s *FileStore) locked(ctx context.Context, fn func() error) (err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	release, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if rerr := release(); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}()
	if err := s.refresh(); err != nil {
		return err
	}
	return fn()
}

// replace makes keys the store's and writes them; s.keys is unchanged
// when the write fails. s.mu and the lock file are held.
func (s *FileStore) replace(keys map[string]Record) error {
	prev := s.keys
	s.keys = keys
	if err := s.save(); err != nil {
		s.keys = prev
		return err
	}
	return nil
}

// lock takes the lock file beside the keys file, waiting for another
// process's write to end.
func (s *FileStore) lock(ctx context.Context) (func() error, error) {
	deadline := time.Now().Add(lockWait)
	for {
		release, err := datadir.LockPath(s.path + ".lock")
		if !errors.Is(err, datadir.ErrLocked) || time.Now().After(deadline) {
			return release, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// save writes s.keys to the file: a temporary file (0600), synced and
// renamed into place, the directory synced.
func (s *FileStore) save() error {
	b, err := json.MarshalIndent(s.sorted(), "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.path)
	f, err := os.CreateTemp(dir, "."+KeysFile+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, werr := f.Write(append(b, '\n'))
	if err := errors.Join(werr, f.Chmod(0o600), f.Sync(), f.Close()); err != nil {
		return err
	}
	if err := os.Rename(tmp, s.path); err != nil {
		return err
	}
	if err := datadir.SyncDir(dir); err != nil {
		return err
	}
	fi, err := os.Stat(s.path)
	if err != nil {
		return err
	}
	s.stat = fi
	return nil
}
