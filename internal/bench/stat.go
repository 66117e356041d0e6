package bench

import (
	"context"
	"time"
)

// statWorkload asks for the metadata of random prepared objects
// (HeadObject).
type statWorkload struct{ pool *keyPool }

func (s *statWorkload) Prepare(ctx context.Context, env *Env) (err error) {
	s.pool, err = prepareObjects(ctx, env, env.Cfg.Objects)
	return err
}

func (s *statWorkload) Run(ctx context.Context, w *Worker) error {
	k := s.pool.pin(w.Rand)
	defer k.unpin()
	stat(ctx, w, k.name)
	return nil
}

func stat(ctx context.Context, w *Worker, key string) {
	start := time.Now()
	_, err := w.Env.Client.HeadObject(ctx, w.Env.Bucket, key)
	w.Record(OpStat, start, 0, 0, err)
}

func (*statWorkload) Cleanup(ctx context.Context, env *Env) error { return removeAll(ctx, env) }
