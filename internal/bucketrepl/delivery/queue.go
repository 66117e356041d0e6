package delivery

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/jogstore/jog/internal/bucketrepl"
	"github.com/jogstore/jog/internal/cp"
	"github.com/jogstore/jog/internal/durq"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/service"
)

// Dir is the replication queue's directory in a data dir: a subdirectory
// per gateway (durq).
const Dir = "replication"

// Source is what the sender reads and records on this server: the
// service's methods of the same names.
type Source interface {
	OpenObject(ctx context.Context, bucket, key, versionID string, customerKey []byte) (meta.Object, service.ObjectReader, error)
	HeadObject(ctx context.Context, bucket, key, versionID string, withParts bool) (meta.Object, error)
	ObjectLockOf(ctx context.Context, bucket, key, versionID string) (meta.ObjectLock, error)
	SetReplication(ctx context.Context, bucket, key, versionID, from, status string) (bool, error)
	PendingReplication(ctx context.Context, bucket, afterKey string, limit int) ([]meta.Object, string, error)
	ReplicatedBuckets(ctx context.Context) ([]string, error)
	TaskFor(ctx context.Context, o meta.Object) (bucketrepl.Task, bool, error)
}

// Options of Open.
type Options struct {
	Targets bucketrepl.Targets
	// MaxBytes bounds the queue's bytes (durq.Options.MaxBytes): past it a
	// write still succeeds and its version stays PENDING for the sweep.
	MaxBytes int64
	NoSync   bool
	// MinBackoff and MaxBackoff bound the waits between a failing task's
	// attempts (durq's defaults when zero).
	MinBackoff, MaxBackoff time.Duration
	// Attempts is how many times a task that fails for good (an answer
	// that will not change: 400, 403, 404) is tried before its version is
	// marked FAILED (DefaultAttempts when 0).
	Attempts int
	Log      *slog.Logger
}

// DefaultAttempts of Options.Attempts.
const DefaultAttempts = 5

// Queue is one gateway's bucket replication: the durable queue of tasks
// (service.ReplicationQueue), one lane per target and LaneOf, and the
// senders that deliver them.
type Queue struct {
	q       *durq.Queue
	src     Source
	rs      Resyncer // src's, when it offers resyncs
	log     *slog.Logger
	targets map[string]*target
	names   []string // targets in flag order

	ctx    context.Context // ends at Close: resyncs stop
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	closed bool
	// resyncing are the buckets whose resync runs on this gateway.
	resyncing map[string]bool
}

var _ service.ReplicationQueue = (*Queue)(nil)

// Open opens gateway's replication queue under dataDir. Bind binds the
// source; Start starts the delivery.
func Open(dataDir, gateway string, opts Options) (*Queue, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Attempts <= 0 {
		opts.Attempts = DefaultAttempts
	}
	rq := &Queue{log: opts.Log, targets: map[string]*target{}, resyncing: map[string]bool{}}
	rq.ctx, rq.cancel = context.WithCancel(context.Background())
	senders := map[string]durq.Sender{}
	for _, t := range opts.Targets {
		c, err := cp.NewClient(cp.ClientConfig{Endpoint: t.Endpoint, AccessKey: t.AccessKey, SecretKey: t.SecretKey.Reveal(), Conns: bucketrepl.Lanes})
		if err != nil {
			return nil, fmt.Errorf("replication target %s: %w", t.Name, err)
		}
		tg := &target{name: t.Name, client: c, log: opts.Log, attempts: opts.Attempts}
		rq.targets[t.Name], rq.names = tg, append(rq.names, t.Name)
		for lane := range bucketrepl.Lanes {
			senders[bucketrepl.QueueName(t.Name, lane)] = &laneSender{rq: rq, t: tg, lane: lane}
		}
	}
	q, err := durq.Open(filepath.Join(dataDir, Dir), gateway, durq.Options{Name: "replication queue", Quiet: true,
		LimitFlag: "--replication-queue-max", Targets: senders, MaxBytes: opts.MaxBytes, NoSync: opts.NoSync,
		MinBackoff: opts.MinBackoff, MaxBackoff: opts.MaxBackoff, Log: opts.Log})
	if err != nil {
		return nil, err
	}
	rq.q = q
	return rq, nil
}

// Bind sets the server the tasks are read from (the service is made
// after the queue it is given).
func (rq *Queue) Bind(src Source) {
	rq.src = src
	rq.rs, _ = src.(Resyncer)
}

// Enqueue stores ts durably, each in its target's lane for its key
// (service.ReplicationQueue). A task for a target that is not configured
// (a rule stored before the target was removed) is not stored: its
// version stays PENDING until the target returns.
func (rq *Queue) Enqueue(ctx context.Context, ts []bucketrepl.Task) error {
	recs := make([]durq.Record, 0, len(ts))
	for _, t := range ts {
		tg, ok := rq.targets[t.Target]
		if !ok {
			continue
		}
		data, err := json.Marshal(t)
		if err != nil {
			return err
		}
		recs = append(recs, durq.Record{Target: bucketrepl.QueueName(t.Target, bucketrepl.LaneOf(t.Bucket, t.Key)), Data: data})
		tg.queued(t.Size)
	}
	if len(recs) == 0 {
		return nil
	}
	err := rq.q.Enqueue(ctx, recs)
	if err != nil {
		for _, t := range ts {
			if tg, ok := rq.targets[t.Target]; ok {
				tg.done(t.Size)
			}
		}
	}
	return err
}

// Start queues again the versions left PENDING (a crash between a commit
// and its enqueue, a full queue: Sweep), then takes over the queues of
// ended gateways (durq.Queue.Adopt) and starts the delivery. The sweep's
// tasks come first in each lane, in each key's version order; an adopted
// task for a version the sweep queued finds it COMPLETED and is skipped.
func (rq *Queue) Start(ctx context.Context) {
	n, buckets, err := rq.sweep(ctx)
	if err != nil {
		rq.log.Warn("bucket replication: sweeping PENDING versions", "err", err)
	} else if n > 0 {
		rq.log.Info("bucket replication: PENDING versions queued again", "versions", n)
	}
	if err := rq.q.Adopt(); err != nil {
		rq.log.Warn("bucket replication: adopting ended gateways' queues", "err", err)
	}
	rq.q.Start()
	rq.log.Info("bucket replication", "targets", rq.names, "lanes", bucketrepl.Lanes)
	if rq.rs != nil {
		rq.resumeResyncs(ctx, buckets)
	}
}

// sweep queues a task for every PENDING version of every bucket with a
// replication configuration, and returns how many and the buckets.
func (rq *Queue) sweep(ctx context.Context) (int, []string, error) {
	buckets, err := rq.src.ReplicatedBuckets(ctx)
	if err != nil {
		return 0, nil, err
	}
	n, err := rq.sweepBuckets(ctx, buckets)
	return n, buckets, err
}

func (rq *Queue) sweepBuckets(ctx context.Context, buckets []string) (int, error) {
	n := 0
	for _, b := range buckets {
		after := ""
		for {
			vs, next, err := rq.src.PendingReplication(ctx, b, after, 500)
			if err != nil {
				return n, err
			}
			var ts []bucketrepl.Task
			for _, o := range vs {
				t, ok, err := rq.src.TaskFor(ctx, o)
				if err != nil {
					return n, err
				}
				if ok {
					ts = append(ts, t)
				}
			}
			if err := rq.Enqueue(ctx, ts); err != nil {
				return n, err
			}
			n += len(ts)
			if next == "" {
				break
			}
			after = next
		}
	}
	return n, nil
}

// Close stops the delivery; what was not sent stays queued for the next
// start (or another gateway's adoption).
func (rq *Queue) Close() error {
	rq.mu.Lock()
	rq.closed = true
	rq.mu.Unlock()
	rq.cancel()
	rq.wg.Wait()
	err := rq.q.Close()
	for _, t := range rq.targets {
		t.client.Close()
	}
	return err
}
