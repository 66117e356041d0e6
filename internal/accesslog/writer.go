package accesslog

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of WriterOptions.
const (
	DefaultFlushInterval = time.Second
	DefaultFlushSize     = 64 << 10
	DefaultMaxBuffer     = 4 << 20
)

// WriterOptions tune a Writer; the zero value means the defaults.
type WriterOptions struct {
	// FlushInterval is the longest a line waits in memory.
	FlushInterval time.Duration
	// FlushSize is the buffered size that wakes the writer early.
	FlushSize int
	// MaxBuffer bounds the bytes held in memory while a write is under
	// way: lines beyond it are dropped and counted.
	MaxBuffer int
	// Sync makes every flush of a file end with fsync (the bucket log
	// spool: what a flush wrote survives power loss).
	Sync bool
	// Errors, when set, hears of write errors and drops (from the
	// writer's goroutine, never from Append).
	Errors func(error)
}

// Writer appends lines to a file (or any io.Writer) from a background
// goroutine. Append never waits on the disk. Safe for concurrent use.
type Writer struct {
	opts    WriterOptions
	mu      sync.Mutex // guards buf
	buf     []byte
	dropped atomic.Int64
	kick    chan struct{}

	fileMu   sync.Mutex // guards out, file, spare and reported: held by flush
	out      io.Writer
	file     *os.File // nil unless opened from path
	path     string
	spare    []byte
	reported int64 // drops already reported
	closed   bool  // Close was called: Rotate does nothing

	stop    chan struct{}
	done    chan struct{}
	closing sync.Once
	lines   sync.Pool // *[]byte: AppendFunc's buffers
}

// NewWriter returns a Writer to out (os.Stderr, say); Reopen does nothing
// on it.
func NewWriter(out io.Writer, opts WriterOptions) *Writer {
	return start(&Writer{out: out}, opts)
}

// OpenFile opens path for appending (creating it, mode 0640) and returns
// a Writer to it.
func OpenFile(path string, opts WriterOptions) (*Writer, error) {
	f, err := openAppend(path)
	if err != nil {
		return nil, err
	}
	return start(&Writer{out: f, file: f, path: path}, opts), nil
}

func openAppend(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
}

func start(w *Writer, opts WriterOptions) *Writer {
	if opts.FlushInterval <= 0 {
		opts.FlushInterval = DefaultFlushInterval
	}
	if opts.FlushSize <= 0 {
		opts.FlushSize = DefaultFlushSize
	}
	if opts.MaxBuffer <= 0 {
		opts.MaxBuffer = DefaultMaxBuffer
	}
	w.opts = opts
	w.kick = make(chan struct{}, 1)
	w.stop, w.done = make(chan struct{}), make(chan struct{})
	go w.loop()
	return w
}

// Append queues line (which should end in a newline) for writing: it
// copies it, so the caller may reuse line at once. It reports false when
// the line was dropped because MaxBuffer bytes already wait.
func (w *Writer) Append(line []byte) bool {
	w.mu.Lock()
	if len(w.buf)+len(line) > w.opts.MaxBuffer {
		w.mu.Unlock()
		w.dropped.Add(1)
		return false
	}
	w.buf = append(w.buf, line...)
	full := len(w.buf) >= w.opts.FlushSize
	w.mu.Unlock()
	if full {
		select {
		case w.kick <- struct{}{}:
		default:
		}
	}
	return true
}

// AppendFunc appends the line format appends to the buffer it is given
// (empty, from a pool: no allocation per line once warm), as Append does.
func (w *Writer) AppendFunc(format func(b []byte) []byte) bool {
	bp, _ := w.lines.Get().(*[]byte)
	if bp == nil {
		b := make([]byte, 0, 512)
		bp = &b
	}
	line := format((*bp)[:0])
	ok := w.Append(line)
	if cap(line) <= 64<<10 { // a key near 1 KiB is fine; a huge one is not kept
		*bp = line
		w.lines.Put(bp)
	}
	return ok
}

// Dropped returns how many lines were dropped since the Writer started.
func (w *Writer) Dropped() int64 { return w.dropped.Load() }

func (w *Writer) loop() {
	defer close(w.done)
	t := time.NewTicker(w.opts.FlushInterval)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
		case <-w.kick:
		}
		if err := w.Flush(); err != nil && w.opts.Errors != nil {
			w.opts.Errors(err)
		}
	}
}

// Flush writes out what is queued now, and syncs a file with Sync.
func (w *Writer) Flush() error {
	w.fileMu.Lock()
	defer w.fileMu.Unlock()
	return w.flushLocked()
}

func (w *Writer) flushLocked() error {
	w.mu.Lock()
	w.buf, w.spare = w.spare[:0], w.buf
	w.mu.Unlock()
	var err error
	if len(w.spare) > 0 {
		_, err = w.out.Write(w.spare)
		if err == nil && w.opts.Sync && w.file != nil {
			err = w.file.Sync()
		}
	}
	if len(w.spare) > w.opts.MaxBuffer { // do not keep a large buffer alive for good
		w.spare = nil
	}
	if d := w.dropped.Load(); d > w.reported {
		err = errors.Join(err, fmt.Errorf("%d lines dropped: the log could not be written fast enough (%d in all)", d-w.reported, d))
		w.reported = d
	}
	return err
}

// Reopen writes out what is queued, closes the file and opens its path
// again: after logrotate renamed it, a new file is created there. It does
// nothing on a Writer from NewWriter.
func (w *Writer) Reopen() error {
	return w.Rotate(nil)
}

// Rotate writes out what is queued and closes the file, calls moved (when
// not nil; it may rename the file), then opens the path again. Lines
// appended meanwhile wait in memory.
func (w *Writer) Rotate(moved func(path string) error) error {
	w.fileMu.Lock()
	defer w.fileMu.Unlock()
	if w.closed {
		return nil
	}
	if w.path == "" {
		return w.flushLocked()
	}
	err := w.flushLocked()
	if w.file != nil {
		if cerr := w.file.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}
	if moved != nil {
		if merr := moved(w.path); merr != nil {
			err = errors.Join(err, merr)
		}
	}
	f, oerr := openAppend(w.path)
	if oerr != nil {
		// Keep writing somewhere rather than nowhere: lines go to the
		// void until a later Reopen succeeds.
		w.out, w.file = io.Discard, nil
		return errors.Join(err, oerr)
	}
	w.out, w.file = f, f
	return err
}

// Close stops the writer's goroutine, writes out what is queued and
// closes the file.
func (w *Writer) Close() error {
	var err error
	w.closing.Do(func() {
		close(w.stop)
		<-w.done
		w.fileMu.Lock()
		defer w.fileMu.Unlock()
		w.closed = true
		err = w.flushLocked()
		if w.file != nil {
			err = errors.Join(err, w.file.Close())
			w.file, w.out = nil, io.Discard
		}
	})
	return err
}
