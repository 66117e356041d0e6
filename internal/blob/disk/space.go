package disk

import (
	"sync"
	"time"
)

// spaceTTL is how long one statfs answer serves the space checks of writes
// far from the reserve, less what each of them takes: a PUT of 1 KiB paid a
// statfs of its own, 1.4% of its CPU under warp (issue 41). Within a
// tenth of a second other writers to the file system can take little of
// what is left, and the reserve (1% of it) is there for the unexpected.
const spaceTTL = 100 * time.Millisecond

// spaceGauge is the free space of a file system as the last statfs saw it,
// less the bytes checks have admitted since.
type spaceGauge struct {
	statfs func(dir string) (free, total int64, ok bool)

	mu   sync.Mutex
	at   time.Time // of the last statfs; zero: none yet
	free int64
}

// room returns the bytes free on dir's file system for a write of n bytes
// that must leave reserve free: from the last statfs while that is fresh
// and the write leaves at least twice the reserve, from a new one
// otherwise (so near the reserve every write asks the file system).
// ok is false when the space is unknown.
func (g *spaceGauge) room(dir string, n, reserve int64) (free int64, ok bool) {
	g.mu.Lock()
	if !g.at.IsZero() && time.Since(g.at) < spaceTTL && g.free-n-reserve >= reserve {
		free = g.free
		g.free -= n
		g.mu.Unlock()
		return free, true
	}
	g.mu.Unlock()
	free, _, ok = g.statfs(dir)
	if !ok {
		return 0, false
	}
	g.mu.Lock()
	g.at, g.free = time.Now(), free
	if free-n >= reserve {
		g.free -= n
	}
	g.mu.Unlock()
	return free, true
}
