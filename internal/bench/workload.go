package bench

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
)

// Workload is one benchmark, one file each. Prepare runs before the clock
// starts, Run is one operation (called by every worker until the run ends),
// Cleanup removes what the workload wrote.
type Workload interface {
	Prepare(ctx context.Context, env *Env) error
	// Run performs one operation and records it with w.Record. It returns
	// errExhausted when there is nothing left to do (delete ran out of
	// objects); per-operation failures are recorded, not returned.
	Run(ctx context.Context, w *Worker) error
	Cleanup(ctx context.Context, env *Env) error
}

// errExhausted ends a worker early.
var errExhausted = errors.New("workload exhausted")

// newWorkload returns the workload named by cfg.Workload.
func newWorkload(cfg Config) Workload {
	switch cfg.Workload {
	case "put":
		return &putWorkload{}
	case "get":
		return &getWorkload{}
	case "stat":
		return &statWorkload{}
	case "delete":
		return &deleteWorkload{}
	case "list":
		return &listWorkload{}
	case "list-versions":
		return &listVersionsWorkload{}
	case "multipart":
		return &multipartWorkload{}
	case "mixed":
		return &mixedWorkload{}
	}
	return nil
}

// Env is what a workload works with: the configuration of this run, the
// client, the bucket and the key prefix that every object of this run
// lives under.
type Env struct {
	Cfg    Config
	Client *Client
	Bucket string
	Prefix string // ends in "/"
	Status func(format string, args ...any)
}

// key builds the name of a prepared object: <prefix>obj/<i>, with
// --list-prefixes N <prefix>obj/<i mod N>/<i>, and in another key shape
// (--keys) a name of that shape under <prefix>obj/, as if written by worker
// i mod 16 (a fixed count, so a --prepared run finds what --prepare-only
// wrote at any concurrency). The name is a function of i: preparing and measuring
// derive it alike.
func (e *Env) key(i int) string {
	if n := e.Cfg.ListPrefixes; n > 0 {
		return e.Prefix + "obj/" + strconv.Itoa(i%n) + "/" + strconv.Itoa(i)
	}
	if e.Cfg.Keys == KeysSeq || e.Cfg.Keys == "" {
		return e.Prefix + "obj/" + strconv.Itoa(i)
	}
	r := mix64(uint64(i))
	next := func() uint64 { r = mix64(r); return r }
	return shapedKey(e.Cfg.Keys, e.Prefix+"obj/", i%16, int64(i), next)
}

// keyPool is the set of objects that exist, shared by the workers of a run.
// An object being read is pinned so a concurrent delete never picks it.
type keyPool struct {
	mu   sync.Mutex
	keys []*poolKey
}

type poolKey struct {
	name   string
	size   int64
	pinned atomic.Int32
}

func (p *keyPool) add(name string, size int64) {
	p.mu.Lock()
	p.keys = append(p.keys, &poolKey{name: name, size: size})
	p.mu.Unlock()
}

// pin picks a random key and pins it until unpin; nil when empty.
func (p *keyPool) pin(rng *rand.Rand) *poolKey {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.keys) == 0 {
		return nil
	}
	k := p.keys[rng.IntN(len(p.keys))]
	k.pinned.Add(1)
	return k
}

func (k *poolKey) unpin() { k.pinned.Add(-1) }

// take removes a random unpinned key; "" when there is none.
func (p *keyPool) take(rng *rand.Rand) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	for range 8 {
		if len(p.keys) == 0 {
			return ""
		}
		i := rng.IntN(len(p.keys))
		if k := p.keys[i]; k.pinned.Load() == 0 {
			p.keys[i] = p.keys[len(p.keys)-1]
			p.keys = p.keys[:len(p.keys)-1]
			return k.name
		}
	}
	return ""
}

// setupWorkers is how many requests preparing and cleaning up keep in
// flight: the run's concurrency, but at least 16 (a single-worker listing
// run over a million keys must not prepare them one at a time) and at most 64.
func setupWorkers(cfg Config) int { return min(max(cfg.Concurrency, 16), 64) }

// prepareObjects uploads n objects with the run's concurrency and returns
// their pool.
func prepareObjects(ctx context.Context, env *Env, n int) (*keyPool, error) {
	sizes := make([]int64, n)
	env.Status("preparing %d objects of %v", n, env.Cfg.Size)
	err := inParallel(ctx, env.Cfg, n, func(rng *rand.Rand, i int) error {
		sizes[i] = env.Cfg.Size.Pick(rng)
		return env.Client.PutObject(ctx, env.Bucket, env.key(i), sizes[i])
	})
	if err != nil {
		return nil, err
	}
	pool := &keyPool{keys: make([]*poolKey, 0, n)}
	for i := range n {
		pool.keys = append(pool.keys, &poolKey{name: env.key(i), size: sizes[i]})
	}
	return pool, nil
}

// inParallel calls fn for 0..n-1 from setupWorkers goroutines, each with
// its own random source, and returns the first error (after which no more
// calls start) or ctx's.
func inParallel(ctx context.Context, cfg Config, n int, fn func(rng *rand.Rand, i int) error) error {
	var next atomic.Int64
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range setupWorkers(cfg) {
		rng := rand.New(rand.NewPCG(uint64(w), 0x9e3779b97f4a7c15))
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := fn(rng, i); err != nil {
					mu.Lock()
					firstErr = cmpOr(firstErr, err)
					mu.Unlock()
					next.Store(int64(n))
					return
				}
			}
		})
	}
	wg.Wait()
	return cmpOr(firstErr, ctx.Err())
}

// removeAll deletes every object under the run's prefix.
func removeAll(ctx context.Context, env *Env) error {
	env.Status("removing the objects under s3://%s/%s", env.Bucket, env.Prefix)
	for token := ""; ; {
		page, err := env.Client.ListObjects(ctx, env.Bucket, env.Prefix, token, 1000)
		if err != nil {
			return err
		}
		err = inParallel(ctx, env.Cfg, len(page.Keys), func(_ *rand.Rand, i int) error {
			return env.Client.DeleteObject(ctx, env.Bucket, page.Keys[i])
		})
		if err != nil || page.NextToken == "" {
			return err
		}
		token = page.NextToken
	}
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
