package disk

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jogstore/jog/internal/blob"
)

// Packs hold small blobs of known size as records appended to shared files
// (ADR 0007):
//
//	<root>/packs/<pack id>   records at 4 KiB-aligned offsets
//
// A record is a header (packHeaderSize bytes: magic, CRC-32C of the rest,
// the pack's ID, the data length, a time) followed by the data, padded to
// the next 4 KiB boundary. The header is written when the record is
// reserved, with that time, and again at its commit with the commit's: the
// time a walk reports, which the orphan sweep's grace counts from (a slow
// client must not make a just-committed record look old). A packed blob's
// ID names its place: "<pack id>.<offset hex>.<length hex>". Writers
// reserve a range at the pack's tail and write it with pwrite, in
// parallel; commits share one fdatasync of the pack (group sync). Deleting
// a blob punches a hole over its range, which frees its blocks at once; a
// pack left with no data is removed. Records are never moved, so no
// compaction is needed.
//
// A process appends only to packs it created, each held with a shared
// flock until its last writer finishes; walks (recovery, fsck) and the
// removal of an empty pack take the lock exclusively, so they never touch a
// pack that may still receive records. A pack's ID starts with the ID of
// the gateway that created it (gateway.go), so that the packs of several
// gateways sharing a data dir are told apart by name; its other 64 bits are
// random, and the file is created with O_EXCL, so no two gateways ever
// append to one pack.
const (
	packAlign      = 4096
	packHeaderSize = 48
	// packFileMax is the size at which a pack stops taking new records.
	packFileMax = 256 << 20
	// defaultPackStripes is how many packs take records at once.
	defaultPackStripes = 4
	// largeRecord is the size from which records spread over packs.
	largeRecord = 256 << 10
)

// packLimit is PackFileMax, or packFileMax where it is not set.
func (s *Store) packLimit() int64 {
	if s.PackFileMax > 0 {
		return s.PackFileMax
	}
	return packFileMax
}

// DefaultPackMax is the largest blob, in bytes, that goes into a pack.
const DefaultPackMax = 1 << 20

var packMagic = [4]byte{'J', 'O', 'G', 'P'}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// pack is a pack file this process appends to.
type pack struct {
	id      string
	raw     [16]byte
	f       *os.File // read-write, holding a shared flock
	tail    int64    // next free offset (under Store.packMu)
	writers int      // reserved ranges not yet committed or aborted (packMu)
	retired bool     // takes no more reservations (packMu)
	sync    groupSync
}

func alignUp(n int64) int64 { return (n + packAlign - 1) &^ (packAlign - 1) }

// recordLen is the space a record of size data bytes takes in its pack.
func recordLen(size int64) int64 { return alignUp(packHeaderSize + size) }

func (s *Store) packPath(id string) string { return filepath.Join(s.root, "packs", id) }

// packs reports whether a blob of size bytes goes into a pack.
func (s *Store) packs(size int64) bool {
	return s.Packing && size > 0 && size <= s.PackMax
}

// createPacked reserves a record for size bytes and writes its header.
func (s *Store) createPacked(size int64) (*packWriter, error) {
	p, off, err := s.reserve(size)
	if err != nil {
		return nil, err
	}
	w := &packWriter{s: s, p: p, off: off, size: size}
	hdr := p.header(size, time.Now())
	if _, err := p.f.WriteAt(hdr[:], off); err != nil {
		_ = w.Abort()
		return nil, fmt.Errorf("write pack %s: %w", p.id, err)
	}
	return w, nil
}

// reserve takes the next record's range in one of the active packs,
// starting a new pack when that one is full. Records of 256 KiB and more
// take turns over the packs after the first, so that their fdatasyncs run
// side by side (parallel writers get more from a disk than one); smaller
// ones all go to the first, where more of them share each fdatasync.
func (s *Store) reserve(size int64) (*pack, int64, error) {
	n := recordLen(size)
	s.packMu.Lock()
	defer s.packMu.Unlock()
	if s.active == nil {
		s.active = make([]*pack, s.packStripes())
	}
	i := 0
	if len(s.active) > 1 && size >= largeRecord {
		i = 1 + s.turn%(len(s.active)-1)
		s.turn++
	}
	if p := s.active[i]; p != nil && p.tail > 0 && p.tail+n > s.packLimit() {
		s.retire(p)
		s.active[i] = nil
	}
	if s.active[i] == nil {
		p, err := s.newPack()
		if err != nil {
			return nil, 0, err
		}
		s.active[i] = p
	}
	p := s.active[i]
	off := p.tail
	p.tail += n
	p.writers++
	return p, off, nil
}

// packStripes is how many packs take records at once.
func (s *Store) packStripes() int {
	if s.stripes > 0 {
		return s.stripes
	}
	return defaultPackStripes
}

// newPack creates an empty pack file, durable in packs/, and locks it. Its
// ID is the gateway's and 64 random bits.
func (s *Store) newPack() (*pack, error) {
	p := &pack{}
	hexDecode(p.raw[:gatewayIDLen/2], s.gateway)
	rand.Read(p.raw[gatewayIDLen/2:])
	p.id = hex.EncodeToString(p.raw[:])
	f, err := os.OpenFile(s.packPath(p.id), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		return nil, err
	}
	if err := lockShared(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("lock pack: %w", err)
	}
	if !s.NoSync {
		if err := syncDir(filepath.Dir(f.Name())); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
	}
	p.f = f
	if s.own == nil {
		s.own = make(map[string]bool)
	}
	s.own[p.id] = true
	return p, nil
}

// close closes a retired pack whose last writer has finished. Called with
// packMu held.
func (s *Store) close(p *pack) {
	p.f.Close()
	delete(s.own, p.id)
}

// owns reports whether this store appends to pack id.
func (s *Store) owns(id string) bool {
	s.packMu.Lock()
	defer s.packMu.Unlock()
	return s.own[id]
}

// retire stops reservations in p; its file closes (and its lock goes)
// when its last writer finishes. Called with packMu held.
func (s *Store) retire(p *pack) {
	p.retired = true
	if p.writers == 0 {
		s.close(p)
	}
}

// Close stops appending to the active packs; their locks go once their
// last writers finish, and walks (recovery, fsck) of other processes may
// then check them. A shared store's gateway ends (its lock file goes), so
// other gateways may then remove what its writes left in tmp/. The store
// still reads and deletes; it should write no more.
func (s *Store) Close() error {
	s.packMu.Lock()
	defer s.packMu.Unlock()
	for _, p := range s.active {
		if p != nil {
			s.retire(p)
		}
	}
	s.active = nil
	return s.leave()
}

// finish ends a writer's use of p.
func (s *Store) finish(p *pack) {
	s.packMu.Lock()
	defer s.packMu.Unlock()
	p.writers--
	if p.retired && p.writers == 0 {
		s.close(p)
	}
}

// header returns the record header for size bytes.
func (p *pack) header(size int64, created time.Time) [packHeaderSize]byte {
	var h [packHeaderSize]byte
	copy(h[0:4], packMagic[:])
	copy(h[8:24], p.raw[:])
	binary.LittleEndian.PutUint64(h[24:32], uint64(size))
	binary.LittleEndian.PutUint64(h[32:40], uint64(created.UnixNano()))
	binary.LittleEndian.PutUint32(h[4:8], crc32.Checksum(h[8:], castagnoli))
	return h
}

// parseHeader returns the data length and creation time of a record
// header of the pack raw, or ok false when h is not one.
func parseHeader(h []byte, raw [16]byte) (size int64, created time.Time, ok bool) {
	if len(h) < packHeaderSize || [4]byte(h[0:4]) != packMagic ||
		binary.LittleEndian.Uint32(h[4:8]) != crc32.Checksum(h[8:packHeaderSize], castagnoli) ||
		[16]byte(h[8:24]) != raw {
		return 0, time.Time{}, false
	}
	size = int64(binary.LittleEndian.Uint64(h[24:32]))
	if size < 0 {
		return 0, time.Time{}, false
	}
	return size, time.Unix(0, int64(binary.LittleEndian.Uint64(h[32:40]))), true
}

// packedID is the place of a packed blob.
type packedID struct {
	pack      string
	off, size int64
}

func (r packedID) String() string {
	return r.pack + "." + strconv.FormatInt(r.off, 16) + "." + strconv.FormatInt(r.size, 16)
}

// parsePackedID parses "<pack>.<offset hex>.<length hex>".
func parsePackedID(id string) (packedID, bool) {
	pk, rest, ok := strings.Cut(id, ".")
	if !ok || !validID(pk) {
		return packedID{}, false
	}
	o, n, ok := strings.Cut(rest, ".")
	if !ok {
		return packedID{}, false
	}
	off, err1 := strconv.ParseInt(o, 16, 64)
	size, err2 := strconv.ParseInt(n, 16, 64)
	if err1 != nil || err2 != nil || off < 0 || off%packAlign != 0 || size <= 0 || strconv.FormatInt(off, 16) != o || strconv.FormatInt(size, 16) != n {
		return packedID{}, false
	}
	return packedID{pk, off, size}, true
}

// packWriter writes one record's data.
type packWriter struct {
	s         *Store
	p         *pack
	off, size int64
	n         int64 // bytes received, including any past size
	done      bool
}

// Write writes at most the declared size; bytes past it are counted, not
// stored, and make Commit fail.
func (w *packWriter) Write(b []byte) (int, error) {
	if room := w.size - w.n; room > 0 {
		m := int64(len(b))
		if m > room {
			m = room
		}
		if _, err := w.p.f.WriteAt(b[:m], w.off+packHeaderSize+w.n); err != nil {
			return 0, noSpace(fmt.Errorf("write pack %s: %w", w.p.id, err))
		}
	}
	w.n += int64(len(b))
	return len(b), nil
}

func (w *packWriter) Commit() (string, error) {
	if w.done {
		return "", errors.New("blob: commit after commit or abort")
	}
	if w.n != w.size {
		err := fmt.Errorf("blob: %d bytes written, %d declared", w.n, w.size)
		_ = w.Abort()
		return "", err
	}
	hdr := w.p.header(w.size, time.Now()) // the commit's time (see the top)
	if _, err := w.p.f.WriteAt(hdr[:], w.off); err != nil {
		_ = w.Abort()
		return "", noSpace(fmt.Errorf("write pack %s: %w", w.p.id, err))
	}
	if !w.s.NoSync {
		if err := w.p.sync.sync(w.p.f, &w.s.clock); err != nil {
			_ = w.Abort()
			return "", noSpace(fmt.Errorf("fdatasync pack %s: %w", w.p.id, err))
		}
	}
	w.done = true
	w.s.finish(w.p)
	w.s.count.committed(w.size, true)
	return packedID{w.p.id, w.off, w.size}.String(), nil
}

func (w *packWriter) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	err := punchHole(w.p.f, w.off, recordLen(w.size))
	w.s.finish(w.p)
	return err
}

// groupSync shares fdatasync calls between writers: each waits for one
// that started after its own write, and one call serves all who waited.
// After a failed sync every later one fails too: the kernel may have
// dropped the pages it could not write.
type groupSync struct {
	mu      sync.Mutex
	cond    sync.Cond
	running bool
	started uint64
	done    uint64
	err     error
}

func (g *groupSync) sync(f *os.File, clock *syncClock) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cond.L == nil {
		g.cond.L = &g.mu
	}
	want := g.started + 1
	for g.done < want && g.err == nil {
		if g.running {
			g.cond.Wait()
			continue
		}
		g.running = true
		g.started++
		n := g.started
		g.mu.Unlock()
		err := clock.sync(func() error { return fdatasync(f) })
		g.mu.Lock()
		g.running, g.done = false, n
		if err != nil {
			g.err = err
		}
		g.cond.Broadcast()
	}
	return g.err
}

// openPacked opens a packed blob, checking that its record is still there.
func (s *Store) openPacked(id packedID) (*packReader, error) {
	f, err := os.Open(s.packPath(id.pack))
	if err != nil {
		return nil, err
	}
	var raw [16]byte
	hexDecode(raw[:], id.pack)
	var h [packHeaderSize]byte
	if _, err := f.ReadAt(h[:], id.off); err != nil && !errors.Is(err, io.EOF) {
		f.Close()
		return nil, err
	}
	if size, _, ok := parseHeader(h[:], raw); !ok || size != id.size {
		f.Close() // punched (deleted), or never committed
		return nil, fmt.Errorf("blob %s: %w", id, fs.ErrNotExist)
	}
	return &packReader{f: f, base: id.off + packHeaderSize, size: id.size}, nil
}

// packReader reads one record's data.
type packReader struct {
	f          *os.File
	base, size int64
	pos        int64
}

func (r *packReader) Read(p []byte) (int, error) {
	if r.pos >= r.size {
		return 0, io.EOF
	}
	if rest := r.size - r.pos; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := r.f.ReadAt(p, r.base+r.pos)
	r.pos += int64(n)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF // the pack is shorter than the record
	}
	return n, err
}

func (r *packReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += r.pos
	case io.SeekEnd:
		offset += r.size
	default:
		return 0, errors.New("seek: invalid whence")
	}
	if offset < 0 {
		return 0, errors.New("seek: negative position")
	}
	r.pos = offset
	return offset, nil
}

func (r *packReader) Close() error { return r.f.Close() }

var _ blob.FileRanger = (*packReader)(nil)

// FileRange implements blob.FileRanger: it returns the pack file,
// positioned at the reader's place, and the bytes left; callers copy from
// it with io.CopyN so that network writers can use sendfile.
func (r *packReader) FileRange() (*os.File, int64, error) {
	if _, err := r.f.Seek(r.base+r.pos, io.SeekStart); err != nil {
		return nil, 0, err
	}
	return r.f, max(r.size-r.pos, 0), nil
}

// deletePacked punches the record's range out of its pack, and removes the
// pack when no data is left in it and no process appends to it.
func (s *Store) deletePacked(id packedID) error {
	f, err := os.OpenFile(s.packPath(id.pack), os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := punchHole(f, id.off, recordLen(id.size)); err != nil {
		return fmt.Errorf("free blob %s: %w", id, err)
	}
	if !tryLockExclusive(f) {
		return nil // still being appended to
	}
	if empty, err := noData(f); err == nil && empty {
		os.Remove(f.Name())
	}
	return nil
}

// walkPacks reports every record in packs no process appends to.
func (s *Store) walkPacks(fn func(id string, size int64, created time.Time) error) error {
	entries, err := os.ReadDir(filepath.Join(s.root, "packs"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !validID(e.Name()) {
			continue
		}
		if err := s.walkPack(e.Name(), fn); err != nil {
			return err
		}
	}
	return nil
}

// walkPack reports the records of one pack, skipping it while another
// process appends to it (this store's own packs are walked: their records
// in flight have headers and recent times). Blocks of data without a record header (a record whose
// header a crash lost) are skipped.
func (s *Store) walkPack(name string, fn func(id string, size int64, created time.Time) error) error {
	// Opened for writing: over NFS, flock is a byte-range lock, which is
	// exclusive only for a writer.
	f, err := os.OpenFile(s.packPath(name), os.O_RDWR, 0)
	if errors.Is(err, fs.ErrPermission) { // a check by another user
		f, err = os.Open(s.packPath(name))
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if !s.owns(name) && !tryLockExclusive(f) {
		return nil
	}
	var raw [16]byte
	hexDecode(raw[:], name)
	var h [packHeaderSize]byte
	for off := int64(0); ; {
		d, ok, err := nextData(f, off)
		if err != nil {
			return fmt.Errorf("pack %s: %w", name, err)
		}
		if !ok {
			return nil
		}
		off = d &^ (packAlign - 1)
		n, err := f.ReadAt(h[:], off)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		size, created, valid := parseHeader(h[:n], raw)
		if !valid {
			off += packAlign
			continue
		}
		if err := fn(packedID{name, off, size}.String(), size, created); err != nil {
			return err
		}
		off += recordLen(size)
	}
}

// hexDecode decodes a validID into dst.
func hexDecode(dst []byte, id string) { _, _ = hex.Decode(dst, []byte(id)) }
