package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// HintTTL bounds how long BucketHint answers from what it read before.
const HintTTL = 5 * time.Second

// hints keeps buckets as GetBucket last read them, for BucketHint: a
// write starts from its bucket's state without a round trip, and its
// transaction checks what it relied on (Condition.Versioning and
// Condition.ObjectLock; the bucket's existence and quota are read under
// its row's lock anyway). This gateway's own changes drop the entry;
// another gateway's show within HintTTL, or at the write that finds them.
type hints struct {
	mu sync.RWMutex
	m  map[string]hint
}

type hint struct {
	b  meta.Bucket
	at time.Time
}

func (h *hints) get(name string) (meta.Bucket, bool) {
	h.mu.RLock()
	e, ok := h.m[name]
	h.mu.RUnlock()
	if !ok || time.Since(e.at) > HintTTL {
		return meta.Bucket{}, false
	}
	return e.b, true
}

func (h *hints) put(b meta.Bucket, at time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = make(map[string]hint)
	}
	if len(h.m) >= maxHints {
		clear(h.m) // rare: more buckets written to than that within HintTTL
	}
	h.m[b.Name] = hint{b, at}
}

// drop forgets a bucket this gateway changes.
func (h *hints) drop(name string) {
	h.mu.Lock()
	delete(h.m, name)
	h.mu.Unlock()
}

// maxHints bounds the hints kept.
const maxHints = 4096

// BucketHint implements meta.BucketHinter.
func (s *Store) BucketHint(ctx context.Context, name string) (meta.Bucket, error) {
	if b, ok := s.hints.get(name); ok {
		return b, nil
	}
	return s.GetBucket(ctx, name)
}

// quotaHint reports whether bucket had a quota when last read (BucketHint,
// GetBucket): its writes then lock its row for update (startWrite).
func (s *Store) quotaHint(bucket string) bool {
	b, ok := s.hints.get(bucket)
	return ok && b.Quota > 0
}
