package durq

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// TargetStats count one target's records since the start.
type TargetStats struct {
	Queued    uint64 // records stored by Enqueue
	Delivered uint64 // sent and taken
	Failures  uint64 // failed attempts
}

// Stats are the queue's counters, read by the metrics at scrape time.
type Stats struct {
	Targets       map[string]TargetStats // by target
	Bytes         int64                  // of the segments on disk
	EnqueueErrors uint64                 // Enqueue calls that failed
}

// Stats returns the queue's counters now.
func (q *Queue) Stats() Stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := Stats{Targets: make(map[string]TargetStats, len(q.stats)), Bytes: q.bytes, EnqueueErrors: q.enqueueErrors}
	for name, t := range q.stats {
		s.Targets[name] = *t
	}
	return s
}

// Start starts one delivery worker per target, and the adoption of ended
// gateways' queues every Options.AdoptEvery; Close stops them.
func (q *Queue) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	q.stop = cancel
	names := make([]string, 0, len(q.opts.Targets))
	for name := range q.opts.Targets {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		q.wg.Add(1)
		go func() {
			defer q.wg.Done()
			q.work(ctx, name, q.opts.Targets[name])
		}()
	}
	q.wg.Add(1)
	go func() {
		defer q.wg.Done()
		t := time.NewTicker(q.opts.AdoptEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := q.Adopt(); err != nil {
					q.log.Warn(q.opts.Name+": adopting ended gateways' queues", "err", err)
				}
			}
		}
	}()
}

// work sends target its records in order until ctx ends.
func (q *Queue) work(ctx context.Context, target string, s Sender) {
	q.mu.Lock()
	r := &reader{q: q, target: target, pos: q.cursors[target]}
	q.mu.Unlock()
	r.saved = r.pos
	defer r.close()
	unsaved := 0
	for {
		record, idle, err := r.next(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil { // a disk error: try again later, from the same place
			q.log.Error(q.opts.Name+": reading", "target", target, "err", err)
			r.close()
			r.pos = r.last
			if !sleep(ctx, q.opts.MaxBackoff) {
				return
			}
			continue
		}
		if idle { // caught up: save the cursor (past other targets' lines too)
			q.advance(target, r.pos, true)
			r.saved, unsaved = r.pos, 0
			continue
		}
		if !q.send(ctx, target, s, record) {
			return
		}
		unsaved++
		q.advance(target, r.pos, unsaved >= persistEvery)
		if unsaved >= persistEvery {
			r.saved, unsaved = r.pos, 0
		}
	}
}

// send sends one record until the target takes it (true) or ctx ends
// (false), waiting between attempts from MinBackoff doubling up to
// MaxBackoff; unless Quiet it logs the first failure and the recovery
// only.
func (q *Queue) send(ctx context.Context, target string, s Sender, record []byte) bool {
	wait := q.opts.MinBackoff
	var failedSince time.Time
	for attempt := 1; ; attempt++ {
		err := s.Send(ctx, record)
		if ctx.Err() != nil {
			return false
		}
		q.mu.Lock()
		if err == nil {
			q.stats[target].Delivered++
		} else {
			q.stats[target].Failures++
		}
		q.mu.Unlock()
		if err == nil {
			if attempt > 1 && !q.opts.Quiet {
				q.log.Info(q.opts.Name+": target recovered", "target", target, "attempts", attempt,
					"down_for", time.Since(failedSince).Round(time.Millisecond))
			}
			return true
		}
		if attempt == 1 {
			failedSince = time.Now()
			if !q.opts.Quiet {
				q.log.Warn(q.opts.Name+": target failing: retrying with backoff", "target", target, "err", err)
			}
		}
		if !sleep(ctx, wait/2+rand.N(wait/2+1)) { // jittered
			return false
		}
		wait = min(wait*2, q.opts.MaxBackoff)
	}
}

// sleep waits for d, or until ctx ends (false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// reader reads one target's lines from its cursor on.
type reader struct {
	q      *Queue
	target string
	pos    position // after the last line read
	last   position // before it
	saved  position // the cursor last written
	f      *os.File
	br     *bufio.Reader
}

// next returns the next record bound for the reader's target,
// waiting for one; when nothing is readable now and the cursor moved
// since it was last written, it returns idle instead of waiting.
func (r *reader) next(ctx context.Context) (record []byte, idle bool, err error) {
	for {
		r.q.mu.Lock()
		limit, active, next := r.q.segment(r.pos.Seg)
		more := r.q.more
		r.q.mu.Unlock()
		if r.pos.Off < limit {
			line, err := r.line()
			if err != nil {
				return nil, false, err
			}
			target, data, ok := bytes.Cut(bytes.TrimSuffix(line, []byte("\n")), []byte("\t"))
			if !ok || !bytes.HasSuffix(line, []byte("\n")) || string(target) != r.target {
				continue // another target's, or torn by a crash
			}
			return data, false, nil
		}
		if !active {
			r.close()
			r.pos = position{Seg: next}
			continue
		}
		if r.pos != r.saved {
			return nil, true, nil
		}
		select {
		case <-ctx.Done():
			return nil, false, ctx.Err()
		case <-more:
		}
	}
}

// line reads the line at r.pos (opening its segment) and moves past it.
func (r *reader) line() ([]byte, error) {
	r.last = r.pos
	if r.f == nil {
		f, err := os.Open(filepath.Join(r.q.dir, segName(r.pos.Seg)))
		if err != nil {
			return nil, err
		}
		if _, err := f.Seek(r.pos.Off, io.SeekStart); err != nil {
			f.Close()
			return nil, err
		}
		r.f, r.br = f, bufio.NewReaderSize(f, 64<<10)
	}
	line, err := r.br.ReadBytes('\n')
	r.pos.Off += int64(len(line))
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return line, nil
}

func (r *reader) close() {
	if r.f != nil {
		r.f.Close()
		r.f, r.br = nil, nil
	}
}
