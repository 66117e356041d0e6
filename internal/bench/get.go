package bench

import (
	"context"
	"time"
)

// getWorkload downloads random objects from a prepared set (GetObject),
// recording time to first byte; --verify checks every byte.
type getWorkload struct{ pool *keyPool }

func (g *getWorkload) Prepare(ctx context.Context, env *Env) (err error) {
	g.pool, err = prepareObjects(ctx, env, env.Cfg.Objects)
	return err
}

func (g *getWorkload) Run(ctx context.Context, w *Worker) error {
	k := g.pool.pin(w.Rand)
	defer k.unpin()
	get(ctx, w, k.name)
	return nil
}

func get(ctx context.Context, w *Worker, key string) {
	start := time.Now()
	n, ttfb, err := w.Env.Client.GetObject(ctx, w.Env.Bucket, key, w.Env.Cfg.Verify)
	w.Record(OpGet, start, ttfb, n, err)
}

func (*getWorkload) Cleanup(ctx context.Context, env *Env) error { return removeAll(ctx, env) }
