package sqlite

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jogstore/jog/internal/hist"
)

// Group commit: every write transaction goes through one goroutine, which
// gathers the writes waiting at that moment (up to maxBatch) into one SQLite
// transaction, so many concurrent writes share one commit and one WAL fsync.
// Each write of a batch runs inside its own SAVEPOINT: one that fails (a
// failed condition, a missing bucket) is rolled back alone and its caller
// gets its error; the others commit. A lone write runs without savepoints,
// so an idle server pays nothing for batching.

// maxBatch bounds the writes committed together.
const maxBatch = 128

var errClosed = errors.New("sqlite: store closed")

type writeReq struct {
	fn   func(tx querier) error
	done chan error
}

type committer struct {
	mu      sync.RWMutex // held for reading while submitting; Close takes it to close reqs
	closed  bool
	reqs    chan *writeReq
	stopped chan struct{}
	// batches and commits are each batch's size and the time it took,
	// from BEGIN to COMMIT (ns), for Stats.
	batches, commits hist.Log2
}

func (s *Store) startCommitter() {
	s.gc = &committer{reqs: make(chan *writeReq, maxBatch), stopped: make(chan struct{})}
	go s.commitLoop()
}

// write runs fn in a write transaction on the single writer connection and
// returns once that transaction has committed (or fn's error). A full disk
// is meta.ErrNoSpace.
func (s *Store) write(ctx context.Context, fn func(tx querier) error) error {
	req := &writeReq{fn: fn, done: make(chan error, 1)}
	c := s.gc
	c.mu.RLock()
	if c.closed {
		c.mu.RUnlock()
		return errClosed
	}
	select {
	case c.reqs <- req:
	case <-ctx.Done():
		c.mu.RUnlock()
		return ctx.Err()
	}
	c.mu.RUnlock()
	// Once submitted, wait for the outcome even if ctx ends: the caller
	// must know whether its write committed.
	return noSpace(<-req.done)
}

func (s *Store) commitLoop() {
	defer close(s.gc.stopped)
	for req := range s.gc.reqs {
		batch := []*writeReq{req}
	gather:
		for len(batch) < maxBatch {
			select {
			case r, ok := <-s.gc.reqs:
				if !ok {
					break gather
				}
				batch = append(batch, r)
			default:
				break gather
			}
		}
		s.commitBatch(batch)
	}
}

// commitBatch runs a batch of writes in one transaction and reports each
// write's outcome.
func (s *Store) commitBatch(batch []*writeReq) {
	ctx := context.Background()
	errs := make([]error, len(batch))
	var missed []string
	start := time.Now()
	defer func() {
		// Counted before any writer hears its outcome, so that a
		// scrape after a write sees the write's commit.
		s.gc.commits.Observe(int64(time.Since(start)))
		s.gc.batches.Observe(int64(len(batch)))
		for i, r := range batch {
			r.done <- errs[i]
		}
		for _, q := range missed { // the writer connection is free again
			s.wc.get(ctx, q)
		}
	}()
	fail := func(err error) {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
	}
	if err := s.stillThere(); err != nil {
		fail(err)
		return
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		fail(fmt.Errorf("begin: %w", err))
		return
	}
	q := newWtx(tx, s.wc, &missed, &s.memo, len(batch))
	// rollback ends the transaction unkept, and with it what the
	// writer's memo learnt inside it.
	rollback := func(err error) {
		tx.Rollback()
		s.memo.clear()
		fail(err)
	}
	if len(batch) == 1 {
		if errs[0] = batch[0].fn(q); errs[0] != nil {
			rollback(nil)
			return
		}
	} else {
		for i, r := range batch {
			if _, err := q.ExecContext(ctx, "SAVEPOINT w"); err != nil {
				rollback(err)
				return
			}
			if errs[i] = r.fn(q); errs[i] != nil {
				s.memo.clear()
				if _, err := q.ExecContext(ctx, "ROLLBACK TO w"); err != nil {
					rollback(err)
					return
				}
			}
			if _, err := q.ExecContext(ctx, "RELEASE w"); err != nil {
				rollback(err)
				return
			}
		}
	}
	if err := tx.Commit(); err != nil {
		s.memo.clear()
		fail(fmt.Errorf("commit: %w", err))
	}
}

// stopCommitter refuses new writes, lets queued ones finish and waits for
// the writer goroutine to end.
func (s *Store) stopCommitter() {
	c := s.gc
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		close(c.reqs)
	}
	c.mu.Unlock()
	<-c.stopped
}
