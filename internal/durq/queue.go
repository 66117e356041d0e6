package durq

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jogstore/jog/internal/datadir"
)

// Names inside a gateway's queue directory.
const (
	lockFile    = "lock"         // held while the gateway lives
	cursorsFile = "cursors.json" // each target's position: {target: {seg, off}}
	segPrefix   = "seg-"         // seg-<16 hex digits>: records, one per line
)

// Defaults of Options.
const (
	DefaultMaxBytes     = 1 << 30
	defaultSegmentBytes = 8 << 20
	defaultAdoptEvery   = 5 * time.Minute
	defaultMinBackoff   = 100 * time.Millisecond
	defaultMaxBackoff   = 30 * time.Second
	defaultName         = "queue"
	persistEvery        = 256 // records between cursor writes while busy
)

// Errors of Enqueue, wrapped with the queue's Options.Name.
var (
	// ErrFull: the queue holds Options.MaxBytes (its targets are down or
	// slower than the writes); the records were not stored.
	ErrFull = errors.New("full")
	// ErrClosed: the queue was closed.
	ErrClosed = errors.New("closed")
)

// Sender sends one record to a target, exactly as it was enqueued; nil
// means the target took it.
type Sender interface {
	Send(ctx context.Context, record []byte) error
}

// Record is one record bound for one target. Data must not contain a
// newline, nor Target a tab or a newline (a record is a line of a
// segment: target, tab, data, newline).
type Record struct {
	Target string
	Data   []byte
}

// Options of Open.
type Options struct {
	// Name is what log lines and errors call the queue ("notification
	// queue"; "queue" when empty).
	Name string
	// Quiet: no log line per target going down and recovering (the
	// caller's Senders log their own).
	Quiet bool
	// LimitFlag names the setting of MaxBytes in ErrFull's message
	// ("--notify-queue-max").
	LimitFlag string
	// Targets are the configured targets by name.
	Targets map[string]Sender
	// MaxBytes bounds the bytes of the queue's segments (DefaultMaxBytes
	// when 0).
	MaxBytes int64
	// SegmentBytes is the size at which a segment is ended and a new one
	// begun: delivered segments are removed whole.
	SegmentBytes int64
	// NoSync skips the fsyncs (--fsync never).
	NoSync bool
	// AdoptEvery is how often Start looks for the queues of ended
	// gateways (Adopt looks once, when called).
	AdoptEvery time.Duration
	// MinBackoff and MaxBackoff bound the waits between a failing
	// target's attempts (doubling from the first to the second).
	MinBackoff, MaxBackoff time.Duration
	Log                    *slog.Logger
}

// position is a place in the queue: a segment and an offset in it.
type position struct {
	Seg uint64 `json:"seg"`
	Off int64  `json:"off"`
}

func (p position) before(o position) bool {
	return p.Seg < o.Seg || p.Seg == o.Seg && p.Off < o.Off
}

// Queue is one gateway's durable queue.
type Queue struct {
	root, dir, gateway string
	opts               Options
	log                *slog.Logger
	unlock             func() error

	mu   sync.Mutex
	cond *sync.Cond // signalled when a sync ends
	f    *os.File   // the active segment
	// active is the active segment; size its bytes written, synced those
	// fsynced (what workers may read); segs the sizes of the ended ones.
	active        uint64
	size, synced  int64
	segs          map[uint64]int64
	syncing       bool
	written, done uint64 // bytes ever written, and fsynced
	syncErr       error  // of the last sync
	bytes         int64  // of all segments
	more          chan struct{}
	closed        bool
	cursors       map[string]position
	stats         map[string]*TargetStats
	enqueueErrors uint64

	syncs      int64  // fsyncs of appended lines (group commit: fewer than appends)
	beforeSync func() // a test's hook, called by the syncing writer

	persistMu sync.Mutex // one cursor write at a time
	stop      context.CancelFunc
	wg        sync.WaitGroup
}

// Open opens gateway's queue in root/gateway, holding its lock (root is
// the directory of all the gateways' queues of one kind: <data-dir>/notify).
// It adopts nothing: Adopt does, and Start every Options.AdoptEvery. Start
// starts the delivery.
func Open(root, gateway string, opts Options) (*Queue, error) {
	if opts.Name == "" {
		opts.Name = defaultName
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.SegmentBytes <= 0 {
		opts.SegmentBytes = min(defaultSegmentBytes, max(opts.MaxBytes/8, 4096))
	}
	if opts.AdoptEvery <= 0 {
		opts.AdoptEvery = defaultAdoptEvery
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = defaultMinBackoff
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = defaultMaxBackoff
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(root, 0o750); err != nil {
		return nil, err
	}
	dir, unlock, err := datadir.LockGatewayDir(root, gateway, lockFile)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opts.Name, err)
	}
	q := &Queue{root: root, dir: dir, gateway: gateway, opts: opts, log: opts.Log, unlock: unlock,
		segs: map[uint64]int64{}, more: make(chan struct{}), cursors: map[string]position{}, stats: map[string]*TargetStats{}}
	q.cond = sync.NewCond(&q.mu)
	if err := q.load(); err != nil {
		_ = unlock()
		return nil, err
	}
	return q, nil
}

// load reads the directory: the segments there (a gateway's own, when it
// reopens), the cursors, and begins a new active segment.
func (q *Queue) load() error {
	segs, err := listSegments(q.dir)
	if err != nil {
		return err
	}
	for _, s := range segs {
		q.segs[s.seq] = s.size
		q.bytes += s.size
		q.active = max(q.active, s.seq)
	}
	saved, err := readCursors(q.dir)
	if err != nil {
		return err
	}
	first := position{Seg: q.active + 1}
	if len(segs) > 0 {
		first = position{Seg: segs[0].seq}
	}
	for t := range q.opts.Targets {
		q.stats[t] = &TargetStats{}
		q.cursors[t] = first
		if p, ok := saved[t]; ok {
			q.cursors[t] = p
		}
	}
	return q.begin(q.active + 1)
}

// begin creates segment seq as the active one (q.mu held, or at Open);
// on an error nothing changes.
func (q *Queue) begin(seq uint64) error {
	f, err := os.OpenFile(filepath.Join(q.dir, segName(seq)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		return err
	}
	if !q.opts.NoSync {
		if err := datadir.SyncDir(q.dir); err != nil {
			f.Close()
			os.Remove(f.Name())
			return err
		}
	}
	q.f, q.active, q.size, q.synced = f, seq, 0, 0
	return nil
}

// Target reports whether name names a configured target.
func (q *Queue) Target(name string) bool {
	_, ok := q.opts.Targets[name]
	return ok
}

// Enqueue stores rs durably: it returns once they are fsynced, with
// those of concurrent callers. It refuses them all, storing none, when
// one is bound for no configured target or cannot be a line (see Record).
func (q *Queue) Enqueue(_ context.Context, rs []Record) error {
	if len(rs) == 0 {
		return nil
	}
	var buf []byte
	for _, r := range rs {
		switch {
		case !q.Target(r.Target):
			return fmt.Errorf("%s: no target %q", q.opts.Name, r.Target)
		case strings.ContainsAny(r.Target, "\t\n"):
			return fmt.Errorf("%s: a tab or a newline in target %q", q.opts.Name, r.Target)
		case bytes.IndexByte(r.Data, '\n') >= 0:
			return fmt.Errorf("%s: a newline in a record for %q", q.opts.Name, r.Target)
		}
		buf = appendLine(buf, r.Target, r.Data)
	}
	err := q.append(buf)
	q.mu.Lock()
	if err != nil {
		q.enqueueErrors++
	} else {
		for _, r := range rs {
			q.stats[r.Target].Queued++
		}
	}
	q.mu.Unlock()
	return err
}

// appendLine appends a record's line: its target (no tab in it), a tab,
// its data (no newline in it) and a newline.
func appendLine(b []byte, target string, data []byte) []byte {
	b = append(b, target...)
	b = append(b, '\t')
	b = append(b, data...)
	return append(b, '\n')
}

// append writes lines to the active segment and waits until they are
// fsynced: the first waiter whose bytes are not synced yet syncs all
// written so far while the others wait for it (group commit).
func (q *Queue) append(lines []byte) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return q.closedErr()
	}
	if q.bytes+int64(len(lines)) > q.opts.MaxBytes {
		limit := q.opts.LimitFlag
		if limit == "" {
			limit = "limit"
		}
		return fmt.Errorf("%s %w: %d bytes queued, %s %d", q.opts.Name, ErrFull, q.bytes, limit, q.opts.MaxBytes)
	}
	for q.size >= q.opts.SegmentBytes {
		if q.syncing {
			q.cond.Wait() // the active segment is being synced: end it after
			continue
		}
		if q.closed {
			return q.closedErr()
		}
		if err := q.roll(); err != nil {
			return err
		}
	}
	if q.closed { // while waiting above
		return q.closedErr()
	}
	n, err := q.f.Write(lines)
	q.size += int64(n)
	q.bytes += int64(n)
	q.written += uint64(n)
	if err != nil {
		q.size = q.opts.SegmentBytes // a torn line ends the segment: the next write rolls
		return err
	}
	mine := q.written
	for q.done < mine {
		if q.syncing {
			q.cond.Wait()
			continue
		}
		q.syncing = true
		upto, size, f := q.written, q.size, q.f
		q.mu.Unlock()
		if q.beforeSync != nil {
			q.beforeSync()
		}
		var err error
		if !q.opts.NoSync {
			err = f.Sync()
		}
		q.mu.Lock()
		q.syncing = false
		q.syncs++
		q.syncErr = err
		if err == nil {
			q.done, q.synced = upto, size
			q.wake()
		}
		q.cond.Broadcast()
		if err != nil {
			return fmt.Errorf("%s: fsync: %w", q.opts.Name, err)
		}
	}
	return nil
}

// closedErr is ErrClosed, named.
func (q *Queue) closedErr() error { return fmt.Errorf("%s %w", q.opts.Name, ErrClosed) }

// roll ends the active segment (fsynced, so all written is synced) and
// begins the next (q.mu held, no sync running).
func (q *Queue) roll() error {
	if q.f != nil { // nil: the last roll could not begin the next segment
		if !q.opts.NoSync {
			if err := q.f.Sync(); err != nil {
				return fmt.Errorf("%s: fsync: %w", q.opts.Name, err)
			}
		}
		if err := q.f.Close(); err != nil {
			return err
		}
		q.f = nil
		q.segs[q.active] = q.size
		q.done = q.written
	}
	err := q.begin(q.active + 1)
	q.wake()
	return err
}

// wake tells the workers more may be readable (q.mu held).
func (q *Queue) wake() {
	close(q.more)
	q.more = make(chan struct{})
}

// segment tells a reader at segment seq how far it may read and what
// comes next: limit is the bytes readable, active whether more may come,
// next the following segment (q.mu held).
func (q *Queue) segment(seq uint64) (limit int64, active bool, next uint64) {
	if seq == q.active {
		return q.synced, true, 0
	}
	size, ok := q.segs[seq]
	if !ok {
		size = 0 // removed or never made: skip to the next
	}
	next = q.active
	for s := range q.segs {
		if s > seq && s < next {
			next = s
		}
	}
	return size, false, next
}

// advance sets target's cursor, writes the cursors when persist says so,
// and removes the segments every cursor has passed.
func (q *Queue) advance(target string, p position, persist bool) {
	q.mu.Lock()
	q.cursors[target] = p
	q.mu.Unlock()
	if persist {
		if err := q.persist(); err != nil {
			q.log.Warn(q.opts.Name+": writing cursors", "err", err)
			return
		}
		q.removeDelivered()
	}
}

// persist writes the cursors (temp file, fsync, rename): a crash leaves
// the old or the new ones.
func (q *Queue) persist() error {
	q.persistMu.Lock()
	defer q.persistMu.Unlock()
	q.mu.Lock()
	data, err := json.Marshal(q.cursors)
	q.mu.Unlock()
	if err != nil {
		return err
	}
	return writeFileSync(filepath.Join(q.dir, cursorsFile), data, !q.opts.NoSync)
}

// removeDelivered removes the ended segments before every target's
// cursor (after persist wrote the cursors).
func (q *Queue) removeDelivered() {
	q.mu.Lock()
	low := q.active
	for _, p := range q.cursors {
		low = min(low, p.Seg)
	}
	var gone []uint64
	for s, size := range q.segs {
		if s < low {
			gone = append(gone, s)
			delete(q.segs, s)
			q.bytes -= size
		}
	}
	q.mu.Unlock()
	for _, s := range gone {
		if err := os.Remove(filepath.Join(q.dir, segName(s))); err != nil {
			q.log.Warn(q.opts.Name+": removing a delivered segment", "err", err)
		}
	}
}

// Close stops the delivery (a send in progress is abandoned: it is sent
// again at the next start), writes the cursors, ends the active segment
// and releases the lock. Later Enqueues fail with ErrClosed.
func (q *Queue) Close() error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return nil
	}
	q.closed = true
	q.mu.Unlock()
	if q.stop != nil {
		q.stop()
	}
	q.wg.Wait()
	q.mu.Lock()
	for q.syncing {
		q.cond.Wait()
	}
	var syncErr, closeErr error
	if q.f != nil {
		if !q.opts.NoSync {
			syncErr = q.f.Sync()
		}
		closeErr = q.f.Close()
	}
	if syncErr == nil { // what waiters wrote is synced now
		q.done = q.written
	}
	errs := []error{syncErr, closeErr}
	q.cond.Broadcast()
	q.mu.Unlock()
	errs = append(errs, q.persist(), q.unlock())
	return errors.Join(errs...)
}

// segName names segment seq.
func segName(seq uint64) string { return fmt.Sprintf("%s%016x", segPrefix, seq) }

type segFile struct {
	seq  uint64
	size int64
}

// listSegments lists dir's segments, oldest first.
func listSegments(dir string) ([]segFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []segFile
	for _, e := range entries {
		hex, ok := strings.CutPrefix(e.Name(), segPrefix)
		if !ok || e.IsDir() {
			continue
		}
		seq, err := strconv.ParseUint(hex, 16, 64)
		if err != nil {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			return nil, err
		}
		out = append(out, segFile{seq, fi.Size()})
	}
	slices.SortFunc(out, func(a, b segFile) int { return cmp.Compare(a.seq, b.seq) })
	return out, nil
}

// readCursors reads dir's cursors; none when there is no file.
func readCursors(dir string) (map[string]position, error) {
	data, err := os.ReadFile(filepath.Join(dir, cursorsFile))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]position{}, nil
	}
	if err != nil {
		return nil, err
	}
	var c map[string]position
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, cursorsFile), err)
	}
	return c, nil
}

// writeFileSync replaces path with data: a temp file, fsynced when sync,
// renamed over it.
func writeFileSync(path string, data []byte, sync bool) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
