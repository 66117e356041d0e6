// Package disk stores blobs as files on a local (or shared) filesystem:
//
//	<root>/blobs/ab/cd/abcd…   committed blobs, named by a random 128-bit ID
//	<root>/tmp/<gateway>-<id>  blobs being written (gateway.go)
//	<root>/packs/<id>          small blobs of known size, as records (pack.go)
//
// Several processes (gateways) may share root: each writes only files
// named for it, removes another's only once that one has ended
// (gateway.go), and defers what it deletes (trash.go).
//
// Commit order: write the temp file, fsync it, rename it into blobs/, fsync
// the directory that received it. Only then may metadata refer to the ID.
// Blob bytes go through the page cache; the writer starts their writeback
// early, so that the fsync has little left to do (writeback.go).
package disk

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/datadir"
)

// Store is a blob.Store on a directory tree.
type Store struct {
	root string
	// gateway is this store's random ID (gateway.go); unlock, for a store
	// opened with OpenShared, releases its lock file. Such a store moves
	// what it deletes to the trash (trash.go).
	gateway string
	unlock  func() error
	shared  bool
	// NoSync skips fsync; only for tests and benchmarks that say so.
	NoSync bool
	// Reserve is the free space, in bytes, blob writes leave on the file
	// system: a write that would go below it fails with ENOSPC. The
	// metadata database shares the file system, so when blobs have filled
	// it, deletes can still commit and free space. Open sets it to 1% of
	// the file system, at most MaxReserve; 0 turns it off.
	Reserve int64
	// Packing puts blobs of known size up to PackMax bytes into pack files
	// (pack.go). Open sets it when the file system can punch holes, and
	// PackMax to DefaultPackMax.
	Packing bool
	PackMax int64
	// PackFileMax is the size at which a pack stops taking new records;
	// Open sets it to 256 MiB.
	PackFileMax int64

	packMu  sync.Mutex
	active  []*pack         // the packs taking new records (nil entries: none yet)
	turn    int             // which of active takes the next record
	stripes int             // len(active); 0 means defaultPackStripes
	own     map[string]bool // packs this store appends to (active or with writers)
	clock   syncClock       // time in fsync calls of blob data
	count   counters        // blobs committed and deleted (stats.go)
	space   spaceGauge      // the free space checkSpace reads
}

// MaxReserve caps the default Reserve.
const MaxReserve = 64 << 20

var (
	_ blob.Store        = (*Store)(nil)
	_ blob.SpaceChecker = (*Store)(nil)
	_ blob.GatewayNamer = (*Store)(nil)
	_ blob.TrashEmptier = (*Store)(nil)
	_ blob.SyncTimer    = (*Store)(nil)
)

// Open prepares root (creating blobs/, tmp/ and packs/) and returns the
// store, for a process that has root to itself: one gateway, which needs
// no lock file (gateway.go).
func Open(root string) (*Store, error) {
	return open(root, false)
}

// OpenShared is Open for one of several gateways sharing root: the store
// holds its gateway's lock file until Close, so that the others' CleanTemp
// leaves its writes in progress alone.
func OpenShared(root string) (*Store, error) {
	return open(root, true)
}

func open(root string, shared bool) (*Store, error) {
	for _, d := range []string{datadir.BlobsDir, datadir.TempDir, "packs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o750); err != nil {
			return nil, err
		}
	}
	s := &Store{root: root, gateway: newGatewayID(), shared: shared, PackMax: DefaultPackMax, PackFileMax: packFileMax,
		space: spaceGauge{statfs: fsSpace}}
	if shared {
		if err := s.announce(); err != nil {
			return nil, err
		}
	}
	s.Packing = probePacks(filepath.Join(root, "tmp"), s.gateway+"-probe-*")
	if _, total, ok := fsSpace(root); ok {
		s.Reserve = min(MaxReserve, total/100)
	}
	return s, nil
}

// CheckSpace implements blob.SpaceChecker: it fails with ENOSPC (as
// blob.ErrNoSpace) when n more bytes would not fit above the Reserve, so
// writers that know a body's size can refuse it before reading.
func (s *Store) CheckSpace(n int64) error { return s.checkSpace(n) }

// checkSpace refuses a write of n more bytes that would leave less than
// Reserve free.
func (s *Store) checkSpace(n int64) error {
	if s.Reserve <= 0 {
		return nil
	}
	if free, ok := s.space.room(s.root, n, s.Reserve); ok && free-n < s.Reserve {
		return noSpace(fmt.Errorf("%w: %d bytes free, %d kept in reserve for metadata", syscall.ENOSPC, free, s.Reserve))
	}
	return nil
}

// newID returns 32 lowercase hex characters of crypto randomness.
func newID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func validID(id string) bool {
	if len(id) != 32 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil
}

func (s *Store) path(id string) string {
	return filepath.Join(s.root, datadir.BlobsDir, id[0:2], id[2:4], id)
}

// Create implements blob.Store. Blobs of known size up to PackMax go into
// a pack; others into a file of their own. A full file system is
// blob.ErrNoSpace, here and from the writer's Write and Commit.
func (s *Store) Create(ctx context.Context, size int64) (blob.Writer, error) {
	if err := s.checkSpace(max(size, 0)); err != nil { // even an empty object's row needs room
		return nil, err
	}
	if s.packs(size) {
		w, err := s.createPacked(size)
		if err != nil {
			return nil, noSpace(err)
		}
		return w, nil
	}
	id := newID()
	f, err := os.OpenFile(s.tempPath(id), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		return nil, noSpace(err)
	}
	return &writer{s: s, id: id, f: f}, nil
}

// writer writes a blob into tmp/ through the page cache, starting the
// writeback of every writebackChunk as it goes (writeback.go).
type writer struct {
	s       *Store
	id      string
	f       *os.File
	done    bool
	n       int64 // bytes written
	flushed int64 // bytes whose writeback has been started
}

func (w *writer) Write(p []byte) (int, error) {
	if err := w.s.checkSpace(int64(len(p))); err != nil {
		return 0, fmt.Errorf("write %s: %w", w.f.Name(), err)
	}
	n, err := w.f.Write(p)
	w.n += int64(n)
	if err == nil && !w.s.NoSync && w.n-w.flushed >= writebackChunk {
		// A hint only: an error here comes back from the fsync at Commit.
		_ = w.s.clock.time(func() error { return startWriteback(w.f, w.flushed, w.n-w.flushed) })
		w.flushed = w.n
	}
	return n, noSpace(err)
}

func (w *writer) Commit() (string, error) {
	id, err := w.commit()
	return id, noSpace(err)
}

func (w *writer) commit() (string, error) {
	if w.done {
		return "", errors.New("blob: commit after commit or abort")
	}
	w.done = true
	tmp := w.f.Name()
	if !w.s.NoSync {
		if err := w.s.clock.sync(w.f.Sync); err != nil {
			w.f.Close()
			os.Remove(tmp)
			return "", fmt.Errorf("fsync blob: %w", err)
		}
	}
	if err := w.f.Close(); err != nil {
		os.Remove(tmp)
		return "", err
	}
	dst := w.s.path(w.id)
	if err := os.Rename(tmp, dst); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			os.Remove(tmp)
			return "", err
		}
		if err := w.s.mkdirs(filepath.Dir(dst)); err != nil {
			os.Remove(tmp)
			return "", err
		}
		if err := os.Rename(tmp, dst); err != nil {
			os.Remove(tmp)
			return "", err
		}
	}
	if !w.s.NoSync {
		if err := w.s.clock.sync(func() error { return syncDir(filepath.Dir(dst)) }); err != nil {
			return "", err
		}
	}
	w.s.count.committed(w.n, false)
	return w.id, nil
}

func (w *writer) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	w.f.Close()
	return os.Remove(w.f.Name())
}

// mkdirs creates the fan-out directories of dir and makes their entries
// durable in their parents.
func (s *Store) mkdirs(dir string) error {
	parent := filepath.Dir(dir)
	if err := os.Mkdir(parent, 0o750); err == nil {
		if !s.NoSync {
			if err := syncDir(filepath.Dir(parent)); err != nil {
				return err
			}
		}
	} else if !errors.Is(err, fs.ErrExist) {
		return err
	}
	if err := os.Mkdir(dir, 0o750); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil
		}
		return err
	}
	if s.NoSync {
		return nil
	}
	return syncDir(parent)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync dir %s: %w", dir, err)
	}
	return nil
}

// Open implements blob.Store. The returned value is an *os.File, so copying
// it to a network connection uses sendfile.
func (s *Store) Open(ctx context.Context, id string) (io.ReadSeekCloser, error) {
	if p, ok := parsePackedID(id); ok {
		return s.openPacked(p)
	}
	if !validID(id) {
		return nil, fmt.Errorf("blob %q: %w", id, fs.ErrNotExist)
	}
	f, err := os.Open(s.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		if t, terr := s.openTrashed(id); terr == nil {
			return t, nil
		}
	}
	return f, err
}

// Delete implements blob.Store. A shared store moves the blob to the trash
// (trash.go), where readers of other gateways still find it until
// EmptyTrash.
func (s *Store) Delete(ctx context.Context, id string) error {
	p, packed := parsePackedID(id)
	if !packed && !validID(id) {
		return nil
	}
	var err error
	switch {
	case s.shared:
		err = noSpace(s.trash(id, packed))
	case packed:
		err = noSpace(s.deletePacked(p)) // punching a hole may need a block
	default:
		err = os.Remove(s.path(id))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	if err == nil {
		s.count.deleted.Add(1)
	}
	return err
}

// Walk implements blob.Store: the records of pack files (except packs
// another process still appends to, and records in the trash), then the
// blob files.
func (s *Store) Walk(ctx context.Context, fn func(blob.Info) error) error {
	trashed, err := s.trashedRecords()
	if err != nil {
		return err
	}
	err = s.walkPacks(func(id string, size int64, created time.Time) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if trashed[id] {
			return nil
		}
		return fn(blob.Info{ID: id, Size: size, ModTime: created})
	})
	if err != nil {
		return err
	}
	return filepath.WalkDir(filepath.Join(s.root, datadir.BlobsDir), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() || !validID(d.Name()) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		return fn(blob.Info{ID: d.Name(), Size: info.Size(), ModTime: info.ModTime()})
	})
}

// Path returns the file name of blob id (which may not exist): for a
// packed blob, its pack's.
func (s *Store) Path(id string) string {
	if p, ok := parsePackedID(id); ok {
		return s.packPath(p.pack)
	}
	if !validID(id) {
		return ""
	}
	return s.path(id)
}

// RemoveTemp removes the file name from tmp/ (a name WalkTemp reported).
func (s *Store) RemoveTemp(name string) error {
	if name == "" || name != filepath.Base(name) || name == "." || name == ".." {
		return fmt.Errorf("temp file %q: %w", name, fs.ErrInvalid)
	}
	err := os.Remove(filepath.Join(s.root, "tmp", name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// fileControl calls fn with f's descriptor.
func fileControl(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}
