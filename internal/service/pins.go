package service

import (
	"context"
	"sync"
)

// pins keeps blobs that open readers still need from being deleted. A
// multipart object's parts are opened one after another while it streams,
// so an overwrite committed meanwhile must not delete the parts not yet
// read; and deleting a packed blob punches its bytes out of a file a
// reader already has open. Their deletion waits until the last reader
// unpins them.
type pins struct {
	mu       sync.Mutex
	count    map[string]int
	deferred map[string]bool
	deleting map[string]bool // claimed, being deleted now
}

func newPins() *pins {
	return &pins{count: make(map[string]int), deferred: make(map[string]bool), deleting: make(map[string]bool)}
}

// pin keeps ids from being deleted until unpin. It pins nothing and
// returns false when one of them is being deleted: the caller's metadata
// is stale. A blob deleted before pin is the caller's to detect (a
// missing file, a punched record).
func (p *pins) pin(ids []string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, id := range ids {
		if p.deleting[id] {
			return false
		}
	}
	for _, id := range ids {
		if id != "" {
			p.count[id]++
		}
	}
	return true
}

// unpin releases ids and returns those whose deletion was deferred and may
// now proceed.
func (p *pins) unpin(ids []string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ready []string
	for _, id := range ids {
		if id == "" {
			continue
		}
		if p.count[id]--; p.count[id] > 0 {
			continue
		}
		delete(p.count, id)
		if p.deferred[id] {
			delete(p.deferred, id)
			p.deleting[id] = true
			ready = append(ready, id)
		}
	}
	return ready
}

// claim returns those of ids that are not pinned (to delete now, and
// marked as being deleted until done) and defers the rest.
func (p *pins) claim(ids []string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var now []string
	for _, id := range ids {
		if p.count[id] > 0 {
			p.deferred[id] = true
			continue
		}
		p.deleting[id] = true
		now = append(now, id)
	}
	return now
}

// done ends the deletion of id that claim or unpin handed out.
func (p *pins) done(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.deleting, id)
}

// freeBlobs deletes blobs a committed metadata change no longer refers to,
// once no reader needs them. Failures leave orphans that recovery removes
// later, so they are logged, not returned.
func (s *Service) freeBlobs(ctx context.Context, ids []string) {
	s.deleteBlobs(ctx, s.pins.claim(ids))
}

// deleteBlobs deletes blobs that claim or unpin handed out.
func (s *Service) deleteBlobs(ctx context.Context, ids []string) {
	for _, id := range ids {
		if err := s.blobs.Delete(context.WithoutCancel(ctx), id); err != nil {
			s.log.Warn("delete replaced blob", "blob", id, "err", err)
		}
		s.pins.done(id)
	}
}
