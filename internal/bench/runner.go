package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Options are how a Bench talks to the person running it.
type Options struct {
	Out     io.Writer // progress and status lines; nil: quiet
	TTY     bool      // Out is a terminal: rewrite one progress line
	Version string    // recorded in results
}

// Bench holds what runs share: the client, its connections, the payload
// and the bucket. Open it, Run one or more configurations, Close it.
type Bench struct {
	opts    Options
	cfg     Config
	client  *Client
	bucket  string
	created bool
}

// Open connects to cfg's endpoint and creates the bucket (a fresh
// jog-bench-<random> one when cfg.Bucket is empty). maxConcurrency is the
// largest concurrency any later Run uses.
func Open(ctx context.Context, cfg Config, maxConcurrency int, opts Options) (*Bench, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	conns := max(maxConcurrency, cfg.Concurrency) * max(1, cfg.PartConcurrency)
	client, err := NewClient(cfg, NewPayload(rand.Uint64()), conns)
	if err != nil {
		return nil, err
	}
	b := &Bench{opts: opts, cfg: cfg, client: client, bucket: cfg.Bucket}
	if b.bucket == "" {
		b.bucket = fmt.Sprintf("jog-bench-%08x", rand.Uint32())
		b.created = true
	}
	if err := b.ensureBucket(ctx); err != nil {
		client.Close()
		return nil, fmt.Errorf("create bucket %s: %w", b.bucket, err)
	}
	b.status("using bucket %s", b.bucket)
	return b, nil
}

// ensureBucket creates the bucket, unless it was named and exists: a
// principal allowed to use a bucket need not be allowed to create one.
func (b *Bench) ensureBucket(ctx context.Context) error {
	if !b.created {
		err := b.client.HeadBucket(ctx, b.bucket)
		var e *S3Error
		if err == nil || !errors.As(err, &e) || e.Status != http.StatusNotFound {
			return err
		}
	}
	return b.client.CreateBucket(ctx, b.bucket)
}

// Bucket is the bucket the runs use.
func (b *Bench) Bucket() string { return b.bucket }

// Close removes the bucket if Open created it (unless NoCleanup) and drops
// the connections.
func (b *Bench) Close(ctx context.Context) error {
	defer b.client.Close()
	if !b.created || b.cfg.NoCleanup {
		return nil
	}
	b.status("removing bucket %s", b.bucket)
	return b.client.DeleteBucket(ctx, b.bucket)
}

func (b *Bench) status(format string, args ...any) {
	if b.opts.Out != nil {
		fmt.Fprintf(b.opts.Out, format+"\n", args...)
	}
}

// Run prepares cfg's workload, measures it, and cleans up after it (with
// PrepareOnly it only prepares, returning no result; with Prepared it only
// measures). The connection settings of cfg are those given to Open; cfg
// may change the workload, size, concurrency, duration and the rest.
func (b *Bench) Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg.Endpoint, cfg.Bucket, cfg.Signing = b.cfg.Endpoint, b.bucket, b.cfg.Signing // the client signs as Open was told
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	env := &Env{
		Cfg: cfg, Client: b.client, Bucket: b.bucket, Status: b.status,
		Prefix: cfg.Prefix + strconv.FormatInt(time.Now().UnixNano(), 36) + "/",
	}
	if cfg.PrepareOnly || cfg.Prepared {
		env.Prefix = cfg.Prefix // what one run prepares, the next measures
	}
	wl := newWorkload(cfg)
	var err error
	if !cfg.Prepared {
		err = wl.Prepare(ctx, env)
	}
	if cfg.PrepareOnly {
		return nil, err
	}
	var res *Result
	if err == nil {
		res = b.measure(ctx, env, wl)
		err = ctx.Err()
	}
	if !cfg.NoCleanup && !cfg.Prepared {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Minute)
		defer cancel()
		if cerr := wl.Cleanup(cctx, env); cerr != nil {
			err = errors.Join(err, fmt.Errorf("cleanup: %w", cerr))
		}
	}
	return res, err
}

// measure runs the workers until the duration ends, the operation count is
// reached, the workload is exhausted or ctx is cancelled.
func (b *Bench) measure(ctx context.Context, env *Env, wl Workload) *Result {
	cfg := env.Cfg
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopCtx, stop := context.WithCancel(runCtx)
	defer stop()

	seed := rand.Uint64()
	workers := make([]*Worker, cfg.Concurrency)
	for i := range workers {
		workers[i] = newWorker(runCtx, i, env, seed)
	}
	var remaining atomic.Int64
	remaining.Store(cfg.Ops)
	var sched *Schedule
	if cfg.Rate > 0 {
		sched = NewSchedule(realClock{}, cfg.Rate, cfg.RateTo, cfg.Duration, cfg.QueueThreshold)
	}
	b.status("running %s: %v objects, concurrency %d, %s", cfg.Workload, cfg.Size, cfg.Concurrency, runLength(cfg))
	start, cpu := time.Now(), startCPU(cfg.ServerPIDs)
	if cfg.Ops == 0 {
		t := time.AfterFunc(cfg.Duration, stop)
		defer t.Stop()
	}
	prog := newProgress(b.opts.Out, b.opts.TTY, workers, start)
	go prog.run()

	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(func() {
			for stopCtx.Err() == nil {
				if cfg.Ops > 0 && remaining.Add(-1) < 0 {
					return
				}
				if sched != nil {
					lag, err := sched.Wait(stopCtx)
					if err != nil {
						return
					}
					w.queue.Record(lag)
				}
				if wl.Run(runCtx, w) == errExhausted {
					return
				}
			}
		})
	}
	wg.Wait()
	end := time.Now()
	ticks := prog.finish()

	r := buildResult(workers, start, end)
	r.Version, r.Label, r.Endpoint, r.Workload, r.Config = b.opts.Version, cfg.Label, cfg.Endpoint, cfg.Workload, cfg
	r.Timeline = ticks
	cpu.stop(r)
	if sched != nil {
		var delay Histogram
		for _, w := range workers {
			delay.Merge(&w.queue)
		}
		r.Queue = &QueueResult{
			TargetRate: cfg.Rate, TargetRateTo: cfg.RateTo, Achieved: float64(r.Total.Count+r.Total.Errors) / r.Seconds,
			ThresholdMs: ms(cfg.QueueThreshold), Late: sched.Late(), Onset: sched.Onset(), Delay: delay.Summary(),
		}
	}
	return r
}

func runLength(cfg Config) string {
	if cfg.Ops > 0 {
		return strconv.FormatInt(cfg.Ops, 10) + " operations"
	}
	return cfg.Duration.String()
}
