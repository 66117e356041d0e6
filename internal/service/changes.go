package service

import "github.com/jogstore/jog/internal/meta"

// StoreChanged is told what another process sharing the metadata store
// changed (meta.Changes, relayed by the server): a bucket's change drops
// everything cached of that bucket, ChangedAll everything cached of every
// bucket, as this process's own writes do, lookups in flight included
// (configCache). Without it, such a change is seen when the entry's time
// bound runs out (ConfigCacheTTL).
func (s *Service) StoreChanged(c meta.Change) {
	for _, cache := range s.bucketCaches() {
		switch c.Kind {
		case meta.ChangedBucket:
			cache.drop(c.Bucket)
		case meta.ChangedAll:
			cache.dropAll()
		}
	}
}

// bucketCache is a per-bucket cache of the Service (a configCache).
type bucketCache interface {
	drop(bucket string)
	dropAll()
}

// bucketCaches lists every per-bucket cache of the Service: a new one is
// added here, so that dropBucketCaches and StoreChanged drop it too.
func (s *Service) bucketCaches() []bucketCache {
	return []bucketCache{s.corsRules, s.lifecycleRules, s.lockDefaultsCache, s.bucketAccess, s.bucketLogging, s.notifyRules, s.bucketEncryption, s.repl.rules}
}
