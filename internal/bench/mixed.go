package bench

import (
	"context"
	"time"
)

// mixedWorkload issues GET, PUT, STAT, DELETE and LIST in the proportions
// of --mix (default get=70,put=30, the seed comparison's workload) over a
// prepared set of objects. New objects join the set when their PUT
// succeeds; deletes take objects out of it; reads never pick an object a
// delete is about to remove.
type mixedWorkload struct {
	pool   *keyPool
	table  []string // cumulative weights spread over 0..total-1
	cursor []listCursor
}

func (m *mixedWorkload) Prepare(ctx context.Context, env *Env) (err error) {
	for _, e := range env.Cfg.Mix {
		for range e.Weight {
			m.table = append(m.table, e.Op)
		}
	}
	m.cursor = make([]listCursor, env.Cfg.Concurrency)
	m.pool, err = prepareObjects(ctx, env, env.Cfg.Objects)
	return err
}

func (m *mixedWorkload) Run(ctx context.Context, w *Worker) error {
	op := m.table[w.Rand.IntN(len(m.table))]
	switch op {
	case "get", "stat":
		k := m.pool.pin(w.Rand)
		if k == nil {
			break // nothing to read: write instead
		}
		defer k.unpin()
		if op == "get" {
			get(ctx, w, k.name)
		} else {
			stat(ctx, w, k.name)
		}
		return nil
	case "delete":
		if key := m.pool.take(w.Rand); key != "" {
			del(ctx, w, key)
			return nil
		}
	case "list":
		list(ctx, w, &m.cursor[w.ID])
		return nil
	}
	key, size := w.NewKey(), w.Env.Cfg.Size.Pick(w.Rand)
	start := time.Now()
	err := w.Env.Client.PutObject(ctx, w.Env.Bucket, key, size)
	w.Record(OpPut, start, 0, size, err)
	if err == nil {
		m.pool.add(key, size)
	}
	return nil
}

func (*mixedWorkload) Cleanup(ctx context.Context, env *Env) error { return removeAll(ctx, env) }
