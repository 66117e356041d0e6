package bench

import (
	"context"
	"time"
)

// deleteWorkload deletes prepared objects one DeleteObject at a time. Each
// object is deleted once, so the run ends early when they run out: prepare
// at least as many objects as operations (--objects).
type deleteWorkload struct{ pool *keyPool }

func (d *deleteWorkload) Prepare(ctx context.Context, env *Env) (err error) {
	d.pool, err = prepareObjects(ctx, env, env.Cfg.Objects)
	return err
}

func (d *deleteWorkload) Run(ctx context.Context, w *Worker) error {
	key := d.pool.take(w.Rand)
	if key == "" {
		return errExhausted
	}
	del(ctx, w, key)
	return nil
}

func del(ctx context.Context, w *Worker, key string) {
	start := time.Now()
	err := w.Env.Client.DeleteObject(ctx, w.Env.Bucket, key)
	w.Record(OpDelete, start, 0, 0, err)
}

func (*deleteWorkload) Cleanup(ctx context.Context, env *Env) error { return removeAll(ctx, env) }
