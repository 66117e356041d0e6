package bench

import (
	"context"
	"time"
)

// putWorkload uploads new objects: PutObject of a fresh key each time.
type putWorkload struct{}

func (*putWorkload) Prepare(context.Context, *Env) error { return nil }

func (*putWorkload) Run(ctx context.Context, w *Worker) error {
	key, size := w.NewKey(), w.Env.Cfg.Size.Pick(w.Rand)
	start := time.Now()
	err := w.Env.Client.PutObject(ctx, w.Env.Bucket, key, size)
	w.Record(OpPut, start, 0, size, err)
	return nil
}

func (*putWorkload) Cleanup(ctx context.Context, env *Env) error { return removeAll(ctx, env) }
