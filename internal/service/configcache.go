package service

import (
	"sync"
	"time"
)

// configCache keeps values derived from bucket configurations (a bucket's
// compiled CORS rules) so that requests do not query the metadata store
// for them on every request. An entry lives ttl at most: several gateways
// may share one database, and a change made through another gateway is
// seen here once the entry expires, or when the database announces it
// (Service.StoreChanged: drop, dropAll). Changes made through this process
// drop the entry at once (drop, before and after the write). A lookup that
// raced with a drop is not stored: the generation changed meanwhile.
// Results that say "no such bucket" are cached too (err), so requests
// naming buckets that do not exist cost no query on repeat either. At max
// entries the cache starts over empty. Lookups share a read lock: the
// lifecycle rules are looked up on every PUT, GET and HEAD.
// ConfigCacheTTL is how long a gateway keeps what it derived from a
// bucket's configuration (CORS rules, lifecycle rules, object lock
// defaults, policy and ACLs, logging, notifications) before it reads it
// again: the longest a change made through another gateway sharing the
// database goes unseen here when the database does not announce it
// (StoreChanged).
const ConfigCacheTTL = 5 * time.Second

// configCacheMax bounds the buckets each configuration cache holds at once.
const configCacheMax = 10_000

type configCache[T any] struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu  sync.RWMutex
	gen uint64
	m   map[string]cachedConfig[T]
}

type cachedConfig[T any] struct {
	v       T
	err     error
	expires time.Time
}

func newConfigCache[T any](ttl time.Duration, max int) *configCache[T] {
	return &configCache[T]{ttl: ttl, max: max, now: time.Now, m: make(map[string]cachedConfig[T])}
}

// load returns key's value, from the cache while fresh, else from fetch.
// A fetch error is cached when keep(err) says so, and returned either way.
// When an entry expires, one caller fetches it again while the others
// keep getting the old value (for at most another ttl): a busy bucket's
// requests do not all query at once.
func (c *configCache[T]) load(key string, fetch func() (T, error), keep func(error) bool) (T, error) {
	now := c.now()
	c.mu.RLock()
	e, ok := c.m[key]
	gen := c.gen
	c.mu.RUnlock()
	if ok && now.Before(e.expires) {
		return e.v, e.err
	}
	if ok {
		c.mu.Lock()
		cur, still := c.m[key]
		if still && c.gen == gen {
			if now.Before(cur.expires) { // another caller is fetching it
				c.mu.Unlock()
				return cur.v, cur.err
			}
			cur.expires = now.Add(c.ttl)
			c.m[key] = cur
		}
		gen = c.gen
		c.mu.Unlock()
	}
	v, err := fetch()
	if err != nil && !keep(err) {
		return v, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		if len(c.m) >= c.max {
			clear(c.m)
		}
		c.m[key] = cachedConfig[T]{v: v, err: err, expires: now.Add(c.ttl)}
	}
	return v, err
}

// drop forgets key, which is being changed, and any lookup in flight.
func (c *configCache[T]) drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	delete(c.m, key)
}

// dropAll forgets every key and any lookup in flight.
func (c *configCache[T]) dropAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.m)
}
