package bench

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// getWorkload downloads random objects from a prepared set (GetObject),
// recording time to first byte; --verify checks every byte. With
// --range-size, objects larger than it are downloaded in parallel ranges.
type getWorkload struct{ pool *keyPool }

func (g *getWorkload) Prepare(ctx context.Context, env *Env) (err error) {
	g.pool, err = prepareObjects(ctx, env, env.Cfg.Objects)
	return err
}

func (g *getWorkload) Run(ctx context.Context, w *Worker) error {
	k := g.pool.pin(w.Rand)
	defer k.unpin()
	if rs := w.Env.Cfg.RangeSize; rs > 0 && k.size > rs {
		getRanges(ctx, w, k.name, k.size)
		return nil
	}
	get(ctx, w, k.name)
	return nil
}

// getRanges downloads an object as ranged GETs of --range-size bytes,
// --part-concurrency of them in flight, as parallel downloaders do. The
// whole download is one GET (its time to first byte is the first range's);
// each range is also recorded as a PART.
func getRanges(ctx context.Context, w *Worker, key string, size int64) {
	env := w.Env
	rs := env.Cfg.RangeSize
	nparts := int((size + rs - 1) / rs)
	parts := make([]partResult, nparts)
	var ttfb atomic.Int64
	next := make(chan int)
	start := time.Now()
	var wg sync.WaitGroup
	for range min(env.Cfg.PartConcurrency, nparts) {
		wg.Go(func() {
			for i := range next {
				off := int64(i) * rs
				t := time.Now()
				n, first, err := env.Client.GetRange(ctx, env.Bucket, key, off, min(rs, size-off), env.Cfg.Verify)
				ttfb.CompareAndSwap(0, int64(t.Sub(start)+first))
				parts[i] = partResult{d: time.Since(t), size: n, err: err}
			}
		})
	}
	for i := range nparts {
		next <- i
	}
	close(next)
	wg.Wait()
	var total int64
	var err error
	for _, p := range parts {
		w.RecordDuration(OpPart, p.d, 0, p.size, p.err)
		total += p.size
		err = cmpOr(err, p.err)
	}
	w.Record(OpGet, start, time.Duration(ttfb.Load()), total, err)
}

func get(ctx context.Context, w *Worker, key string) {
	start := time.Now()
	n, ttfb, err := w.Env.Client.GetObject(ctx, w.Env.Bucket, key, w.Env.Cfg.Verify)
	w.Record(OpGet, start, ttfb, n, err)
}

func (*getWorkload) Cleanup(ctx context.Context, env *Env) error { return removeAll(ctx, env) }
