package bucketlog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jogstore/jog/internal/accesslog"
	"github.com/jogstore/jog/internal/datadir"
)

// Dir is the spool's directory in a data dir: a subdirectory per gateway.
const Dir = "bucketlog"

// Names inside a gateway's spool directory.
const (
	currentFile  = "current"   // records being appended
	lockFile     = "lock"      // held while the gateway lives
	sealedPrefix = "sealed-"   // sealed-<unix nanos>[-<gateway>]: awaiting delivery
	heldPrefix   = "held-"     // held-<id>_<target>: one failing target's records (held.go)
	tempPrefix   = "tmp-"      // a held file being written
	spoolMax     = 16 << 20    // records held in memory while the disk is slow
	flushEvery   = time.Second // the most a record waits in memory
	groupMax     = 32 << 20    // the largest log object a delivery writes
)

// Spool is one gateway's spool of records awaiting delivery. Append is
// safe for concurrent use; Seal, Adopt and the delivery run from one
// goroutine.
type Spool struct {
	root    string // <data-dir>/bucketlog
	dir     string // root/<gateway>
	gateway string
	w       *accesslog.Writer
	unlock  func() error
	log     *slog.Logger
	closing sync.Once
	// max bounds the bytes of records on disk (--bucket-log-spool-max):
	// stored (the sealed and held files, as the delivery last counted
	// them, with the files sealed since) and current (appended since the
	// current file was sealed).
	max     int64
	stored  atomic.Int64
	current atomic.Int64
	count   counters
}

// OpenSpool opens gateway's spool under dataDir, holding its lock (so
// that other gateways leave it alone while this one lives). max bounds
// the bytes of records it keeps on disk (--bucket-log-spool-max): past it
// new records are dropped (DropSpoolFull), and the delivery keeps the
// records of failing targets within half of it (DropEvicted).
func OpenSpool(dataDir, gateway string, max int64, log *slog.Logger) (*Spool, error) {
	if max <= 0 {
		return nil, fmt.Errorf("bucket log spool: a bound of %d bytes", max)
	}
	root := filepath.Join(dataDir, Dir)
	if err := os.MkdirAll(root, 0o750); err != nil {
		return nil, err
	}
	dir, unlock, err := datadir.LockGatewayDir(root, gateway, lockFile)
	if err != nil {
		return nil, fmt.Errorf("bucket log spool: %w", err)
	}
	w, err := accesslog.OpenFile(filepath.Join(dir, currentFile), accesslog.WriterOptions{
		FlushInterval: flushEvery, MaxBuffer: spoolMax, Sync: true,
		Errors: func(err error) { log.Error("bucket log spool", "err", err) },
	})
	if err != nil {
		_ = unlock()
		return nil, err
	}
	return &Spool{root: root, dir: dir, gateway: gateway, w: w, unlock: unlock, log: log, max: max}, nil
}

// Append queues one record of a request on bucket source, for target and
// prefix: the record is what record appends (no newline). A spool line is
// target, prefix (quoted), source and the record, tab-separated: bucket
// names hold no tab, a quoted prefix none, and a record's fields none
// (quoted escapes them). A spool at its bound drops the record.
func (s *Spool) Append(target, prefix, source string, record func([]byte) []byte) {
	if s.Bytes() >= s.max {
		s.count.dropped[DropSpoolFull].Add(1)
		return
	}
	n := 0
	if s.w.AppendFunc(func(b []byte) []byte {
		b = appendLineHead(b, target, prefix, source)
		b = append(record(b), '\n')
		n = len(b)
		return b
	}) {
		s.current.Add(int64(n))
	}
}

// appendLineHead appends a spool line's target, prefix and source, each
// followed by a tab.
func appendLineHead(b []byte, target, prefix, source string) []byte {
	b = append(b, target...)
	b = append(b, '\t')
	b = strconv.AppendQuote(b, prefix)
	b = append(b, '\t')
	b = append(b, source...)
	return append(b, '\t')
}

// Bytes is the bytes of records on the spool's disk (and about to be:
// those queued in memory).
func (s *Spool) Bytes() int64 { return s.stored.Load() + s.current.Load() }

// Flush writes out (with fsync) the records queued now.
func (s *Spool) Flush() error { return s.w.Flush() }

// Seal ends the current file: what it holds (flushed first) becomes
// sealed-<now>, awaiting delivery, and records go to a new current file.
func (s *Spool) Seal() error {
	return s.w.Rotate(func(path string) error {
		n, err := sealFile(path, filepath.Join(s.dir, sealedName(time.Now(), "")))
		if err == nil {
			// Restarted rather than lessened by n: bytes counted but never
			// written (a write error) do not stay counted for good.
			s.stored.Add(n)
			s.current.Store(0)
		}
		return err
	})
}

// sealedName names a sealed file made at t; from names the gateway an
// adopted file came from.
func sealedName(t time.Time, from string) string {
	n := sealedPrefix + strconv.FormatInt(t.UnixNano(), 10)
	if from != "" {
		n += "-" + from
	}
	return n
}

// sealTime is when the sealed file name was sealed.
func sealTime(name string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(name, sealedPrefix)
	if !ok {
		return time.Time{}, false
	}
	return idTime(rest)
}

// idTime is the time a sealed file's name starts with: unix nanos.
func idTime(id string) (time.Time, bool) {
	ns, _, _ := strings.Cut(id, "-")
	n, err := strconv.ParseInt(ns, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(0, n).UTC(), true
}

// sealFile renames a non-empty spool file to sealed (an empty one is
// removed), and syncs the directory: the rename survives a crash. It
// returns the file's size.
func sealFile(path, sealed string) (int64, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if fi.Size() == 0 {
		return 0, os.Remove(path)
	}
	if err := os.Rename(path, sealed); err != nil {
		return 0, err
	}
	return fi.Size(), datadir.SyncDir(filepath.Dir(sealed))
}

// Adopt takes over the spools of ended gateways (their lock is free):
// their sealed files and current file become sealed files of this one,
// their held files held files of this one, and their directories go. A
// rename is atomic, so two gateways adopting at once each get a file or
// nothing.
func (s *Spool) Adopt() error {
	ended, err := datadir.EndedGateways(s.root, s.gateway, lockFile)
	if err != nil {
		return err
	}
	var errs []error
	for _, g := range ended {
		dir := filepath.Join(s.root, g)
		files, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue // another gateway adopted it
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, f := range files {
			from := filepath.Join(dir, f.Name())
			switch {
			case f.Name() == currentFile:
				t := time.Now()
				if fi, err := f.Info(); err == nil {
					t = fi.ModTime()
				}
				_, err = sealFile(from, filepath.Join(s.dir, sealedName(t, g)))
			case strings.HasPrefix(f.Name(), sealedPrefix):
				err = s.adoptFile(from, f.Name()+"-"+g)
			case strings.HasPrefix(f.Name(), heldPrefix):
				if id, target, ok := parseHeld(f.Name()); ok {
					err = s.adoptFile(from, heldName(id+"-"+g, target))
				}
			case strings.HasPrefix(f.Name(), tempPrefix): // a held file the gateway did not finish
				err = os.Remove(from)
			}
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
		os.Remove(filepath.Join(dir, lockFile))
		os.Remove(dir) // fails while anything is left: tried again next time
	}
	return errors.Join(errs...)
}

// adoptFile renames an ended gateway's file into this spool as name.
func (s *Spool) adoptFile(from, name string) error {
	if err := os.Rename(from, filepath.Join(s.dir, name)); err != nil {
		return err
	}
	return datadir.SyncDir(s.dir)
}

// Sealed lists the sealed files awaiting delivery, oldest first.
func (s *Spool) Sealed() ([]string, error) {
	l, err := s.list()
	return l.sealed, err
}

// listing is what a spool directory holds awaiting delivery.
type listing struct {
	sealed []string   // oldest first
	held   []heldFile // oldest first
	bytes  int64      // of both
}

// list reads the spool directory.
func (s *Spool) list() (listing, error) {
	var l listing
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return l, err
	}
	for _, e := range entries {
		name := e.Name()
		_, sealed := sealTime(name)
		id, target, held := parseHeld(name)
		if e.IsDir() || !sealed && !held {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // gone meanwhile
		}
		l.bytes += fi.Size()
		if sealed {
			l.sealed = append(l.sealed, name)
		} else {
			t, _ := idTime(id)
			l.held = append(l.held, heldFile{name: name, target: target, time: t, size: fi.Size()})
		}
	}
	slices.SortFunc(l.sealed, func(a, b string) int {
		ta, _ := sealTime(a)
		tb, _ := sealTime(b)
		if c := ta.Compare(tb); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	slices.SortFunc(l.held, func(a, b heldFile) int {
		if c := a.time.Compare(b.time); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	return l, nil
}

// Close writes out what is queued and releases the spool's lock (once:
// later calls do nothing).
func (s *Spool) Close() error {
	var err error
	s.closing.Do(func() { err = errors.Join(s.w.Close(), s.unlock()) })
	return err
}

// spoolLine is one parsed line of a sealed file.
type spoolLine struct {
	target, prefix, source string
	record                 []byte
}

// readLines calls fn for each well-formed line of a sealed file; a line
// it cannot parse (a torn write at a crash) is skipped and counted.
func readLines(r io.Reader, fn func(spoolLine) error) (skipped int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), "\t", 4)
		if len(parts) != 4 {
			skipped++
			continue
		}
		prefix, err := strconv.Unquote(parts[1])
		if err != nil || parts[0] == "" || parts[2] == "" {
			skipped++
			continue
		}
		if err := fn(spoolLine{parts[0], prefix, parts[2], []byte(parts[3])}); err != nil {
			return skipped, err
		}
	}
	return skipped, sc.Err()
}
