package sqlite

import (
	"sync"

	"github.com/jogstore/jog/internal/meta"
)

// bucketCache answers GetBucket for buckets already looked up, so a PUT's
// early bucket check does not cost a query. This process is the database's
// only writer, so the cache is exact: a deleted bucket is dropped from it,
// and a lookup that raced with a delete is not stored (the generation
// changed meanwhile). Only found buckets are cached.
type bucketCache struct {
	mu  sync.RWMutex
	gen uint64
	m   map[string]meta.Bucket
}

func (c *bucketCache) get(name string) (meta.Bucket, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	b, ok := c.m[name]
	return b, ok
}

// generation is read before a lookup whose result put may store.
func (c *bucketCache) generation() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.gen
}

func (c *bucketCache) put(b meta.Bucket, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if c.m == nil {
		c.m = make(map[string]meta.Bucket)
	}
	c.m[b.Name] = b
}

// drop forgets a bucket that is being deleted or changed.
func (c *bucketCache) drop(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	delete(c.m, name)
}
