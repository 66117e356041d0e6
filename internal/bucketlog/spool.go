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
	spoolMax     = 16 << 20    // records held in memory while the disk is slow
	flushEvery   = time.Second // the most a record waits in memory
	groupMax     = 32 << 20    // the largest log object a delivery writes
	nameTime     = "2006-01-02-15-04-05"
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
}

// OpenSpool opens gateway's spool under dataDir, holding its lock (so
// that other gateways leave it alone while this one lives).
func OpenSpool(dataDir, gateway string, log *slog.Logger) (*Spool, error) {
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
		unlock()
		return nil, err
	}
	return &Spool{root: root, dir: dir, gateway: gateway, w: w, unlock: unlock, log: log}, nil
}

// Append queues one record of a request on bucket source, for target and
// prefix: the record is what record appends (no newline). A spool line is
// target, prefix (quoted), source and the record, tab-separated: bucket
// names hold no tab, a quoted prefix none, and a record's fields none
// (quoted escapes them).
func (s *Spool) Append(target, prefix, source string, record func([]byte) []byte) {
	s.w.AppendFunc(func(b []byte) []byte {
		b = append(b, target...)
		b = append(b, '\t')
		b = strconv.AppendQuote(b, prefix)
		b = append(b, '\t')
		b = append(b, source...)
		b = append(b, '\t')
		return append(record(b), '\n')
	})
}

// Dropped is how many records were dropped because the spool's disk
// could not take them fast enough.
func (s *Spool) Dropped() int64 { return s.w.Dropped() }

// Flush writes out (with fsync) the records queued now.
func (s *Spool) Flush() error { return s.w.Flush() }

// Seal ends the current file: what it holds (flushed first) becomes
// sealed-<now>, awaiting delivery, and records go to a new current file.
func (s *Spool) Seal() error {
	return s.w.Rotate(func(path string) error {
		return sealFile(path, filepath.Join(s.dir, sealedName(time.Now(), "")))
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
	ns, _, _ := strings.Cut(rest, "-")
	n, err := strconv.ParseInt(ns, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(0, n).UTC(), true
}

// sealFile renames a non-empty spool file to sealed (an empty one is
// removed), and syncs the directory: the rename survives a crash.
func sealFile(path, sealed string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Size() == 0 {
		return os.Remove(path)
	}
	if err := os.Rename(path, sealed); err != nil {
		return err
	}
	return datadir.SyncDir(filepath.Dir(sealed))
}

// Adopt takes over the spools of ended gateways (their lock is free):
// their sealed files and current file become sealed files of this one,
// and their directories go. A rename is atomic, so two gateways adopting
// at once each get a file or nothing.
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
				err = sealFile(from, filepath.Join(s.dir, sealedName(t, g)))
			case strings.HasPrefix(f.Name(), sealedPrefix):
				err = os.Rename(from, filepath.Join(s.dir, f.Name()+"-"+g))
				if err == nil {
					err = datadir.SyncDir(s.dir)
				}
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

// Sealed lists the sealed files awaiting delivery, oldest first.
func (s *Spool) Sealed() ([]string, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if _, ok := sealTime(e.Name()); ok && !e.IsDir() {
			out = append(out, e.Name())
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		ta, _ := sealTime(a)
		tb, _ := sealTime(b)
		if c := ta.Compare(tb); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return out, nil
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
