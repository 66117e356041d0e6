package bench

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"sync/atomic"
	"syscall"
	"time"
)

// Op is an operation kind with its own statistics.
type Op uint8

// The operation kinds. OpPart is one UploadPart inside OpMultipart, or one
// ranged GET of a parallel download; it is reported on its own and left out
// of the totals. OpList is a ListObjectsV2 page, OpListVersions a
// ListObjectVersions page.
const (
	OpPut Op = iota
	OpGet
	OpStat
	OpDelete
	OpList
	OpMultipart
	OpPart
	OpListVersions
	numOps
)

var opNames = [numOps]string{"PUT", "GET", "STAT", "DELETE", "LIST", "MULTIPART", "PART", "LIST-VERSIONS"}

func (o Op) String() string { return opNames[o] }

// opStats is one worker's record of one operation kind.
type opStats struct {
	lat, ttfb         Histogram
	ops, errs, nbytes int64
	entries           int64            // listings: keys, prefixes, versions and delete markers listed
	codes             map[string]int64 // errors by code
}

// liveCounters are read by the progress printer while the worker runs;
// padded to a cache line so workers do not share one.
type liveCounters struct {
	ops, bytes, errs atomic.Int64
	_                [40]byte
}

// Worker is one load-generating goroutine. Its statistics are its own (no
// locks on the hot path) and are merged when the run ends.
type Worker struct {
	ID   int
	Rand *rand.Rand
	Env  *Env

	ctx        context.Context
	state      any // a workload's per-worker state (a list cursor, say)
	seq        int64
	stats      [numOps]*opStats
	errSamples []string
	queue      Histogram // how late requests started (rate mode)
	live       liveCounters
}

func newWorker(ctx context.Context, id int, env *Env, seed uint64) *Worker {
	return &Worker{
		ID:   id,
		Rand: rand.New(rand.NewPCG(seed, uint64(id))),
		Env:  env,
		ctx:  ctx,
	}
}

// NewKey returns a fresh key under the run's prefix, in the run's key shape
// (--keys).
func (w *Worker) NewKey() string {
	w.seq++
	return shapedKey(w.Env.Cfg.Keys, w.Env.Prefix, w.ID, w.seq, w.Rand.Uint64)
}

// Record adds one operation that began at start. A failure caused by the
// run itself being cancelled is dropped.
func (w *Worker) Record(op Op, start time.Time, ttfb time.Duration, nbytes int64, err error) {
	w.RecordDuration(op, time.Since(start), ttfb, nbytes, err)
}

// RecordDuration adds one operation that took d.
func (w *Worker) RecordDuration(op Op, d, ttfb time.Duration, nbytes int64, err error) {
	if err != nil && w.ctx.Err() != nil {
		return
	}
	s := w.stats[op]
	if s == nil {
		s = &opStats{codes: map[string]int64{}}
		w.stats[op] = s
	}
	if err != nil {
		s.errs++
		s.codes[ErrorCode(err)]++
		if len(w.errSamples) < 3 {
			w.errSamples = append(w.errSamples, op.String()+": "+err.Error())
		}
		if op != OpPart {
			w.live.errs.Add(1)
		}
		return
	}
	s.ops++
	s.nbytes += nbytes
	s.lat.Record(d)
	if op == OpGet {
		s.ttfb.Record(ttfb)
	}
	if op != OpPart {
		w.live.ops.Add(1)
		w.live.bytes.Add(nbytes)
	}
}

// RecordListed adds one listing page that took d and held n entries.
func (w *Worker) RecordListed(op Op, d time.Duration, n int, err error) {
	w.RecordDuration(op, d, 0, 0, err)
	if s := w.stats[op]; err == nil && s != nil {
		s.entries += int64(n)
	}
}

// ErrorCode names the kind of a failure for the error table: the S3 error
// code, or a short name for a client-side failure.
func ErrorCode(err error) string {
	var s3 *S3Error
	var ne net.Error
	switch {
	case errors.As(err, &s3):
		return s3.Code
	case errors.Is(err, errVerify):
		return "VerifyFailed"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "Timeout"
	case errors.Is(err, context.Canceled):
		return "Canceled"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "ConnectionRefused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "ConnectionReset"
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return "AddressNotAvailable" // out of local ports
	}
	return "ClientError"
}
