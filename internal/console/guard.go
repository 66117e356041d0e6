package console

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// The sign-in throttle: each address may fail signInBurst sign-ins at
// once, then one every signInEvery; throttleEntries addresses are
// tracked, and beyond them the others share one bucket.
const (
	signInBurst     = 10
	signInEvery     = 6 * time.Second
	throttleEntries = 10000
)

// maxRevoked bounds the signed-out sessions a gateway remembers.
const maxRevoked = 100000

// throttle is a token bucket per remote address, spent by failed
// sign-ins only: a right key and secret costs nothing, but is refused
// too while the bucket is empty (else guessing would go on). Its memory
// is bounded: an address whose bucket has filled again is as good as
// absent and is forgotten when room is needed, and when every tracked
// address is still throttled, new ones share the overflow bucket.
type throttle struct {
	mu       sync.Mutex
	burst    float64
	every    time.Duration
	max      int
	buckets  map[string]*bucket
	overflow bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newThrottle(burst int, every time.Duration, max int) *throttle {
	return &throttle{burst: float64(burst), every: every, max: max, buckets: make(map[string]*bucket),
		overflow: bucket{tokens: float64(burst)}}
}

// refill brings b up to now (a clock that stepped back refills nothing).
func (t *throttle) refill(b *bucket, now time.Time) {
	if now.After(b.at) {
		b.tokens = min(t.burst, b.tokens+float64(now.Sub(b.at))/float64(t.every))
		b.at = now
	}
}

// allow reports whether key may try to sign in at now, and else how
// long until it may.
func (t *throttle) allow(key string, now time.Time) (time.Duration, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	b, ok := t.buckets[key]
	if !ok {
		if len(t.buckets) < t.max {
			return 0, true
		}
		b = &t.overflow
	}
	t.refill(b, now)
	if b.tokens >= 1 {
		return 0, true
	}
	return time.Duration((1 - b.tokens) * float64(t.every)), false
}

// fail spends a token of key's bucket.
func (t *throttle) fail(key string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	b, ok := t.buckets[key]
	if !ok {
		if len(t.buckets) >= t.max {
			t.forgetFull(now)
		}
		if len(t.buckets) >= t.max {
			b = &t.overflow
		} else {
			b = &bucket{tokens: t.burst, at: now}
			t.buckets[key] = b
		}
	}
	t.refill(b, now)
	b.tokens = max(0, b.tokens-1)
}

// forgetFull drops the addresses whose buckets have filled again.
func (t *throttle) forgetFull(now time.Time) {
	for k, b := range t.buckets {
		if t.refill(b, now); b.tokens >= t.burst {
			delete(t.buckets, k)
		}
	}
}

// throttleKey is the address the sign-in throttle counts r under: the
// client's IP (the proxy's word under TrustForwardedFor), an IPv6
// address by its /64, which one host usually holds whole.
func (h *Handler) throttleKey(r *http.Request) string {
	addr := r.RemoteAddr
	if host, _, err := net.SplitHostPort(addr); err == nil {
		addr = host
	}
	if h.cfg.TrustForwardedFor {
		if fwd := r.Header.Values("X-Forwarded-For"); len(fwd) > 0 {
			last := fwd[len(fwd)-1]
			addr = strings.TrimSpace(last[strings.LastIndexByte(last, ',')+1:])
		}
	}
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	if ip = ip.Unmap(); ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

// revocations are the sessions signed out, until they expire: a copy of
// a signed-out cookie is refused. Those signed out on this gateway are
// added at once, other gateways' as SyncRevocations reads them from the
// store (ADR 0023).
type revocations struct {
	mu  sync.RWMutex
	max int
	ids map[string]time.Time // access key ID → expiry
}

func newRevocations(max int) *revocations {
	return &revocations{max: max, ids: make(map[string]time.Time)}
}

func (v *revocations) has(id string) bool {
	v.mu.RLock()
	defer v.mu.RUnlock()
	_, ok := v.ids[id]
	return ok
}

// add revokes id until expires. At its bound it forgets the expired,
// then the one expiring soonest.
func (v *revocations) add(id string, expires, now time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.ids[id]; ok {
		return // read again from the store
	}
	if len(v.ids) >= v.max {
		for k, e := range v.ids {
			if !now.Before(e) {
				delete(v.ids, k)
			}
		}
	}
	if len(v.ids) >= v.max {
		var soonest string
		for k, e := range v.ids {
			if soonest == "" || e.Before(v.ids[soonest]) {
				soonest = k
			}
		}
		delete(v.ids, soonest)
	}
	v.ids[id] = expires
}
