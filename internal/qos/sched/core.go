package sched

import (
	"math"
	"slices"
	"time"
)

// core is the scheduler of one direction as a pure function of time: every
// method takes the current time in seconds since the Direction's epoch and
// nothing here reads a clock, sleeps or locks. Direction serialises calls
// with its mutex; the simulation tests drive a core directly in virtual time.
type core struct {
	capacity float64 // bytes/s; ≤ 0 grants without pacing
	burst    float64 // bytes an idle client or device may bank
	beShare  float64 // fraction of capacity the best-effort class is guaranteed
	beWeight float64 // weight of each best-effort client

	free float64 // when the device may next grant (the pacing clock)
	v    float64 // virtual time of the weight phase: start tag of the last weight grant
	gv   float64 // virtual time among best-effort clients in the guard phase

	beRTag       float64 // reservation tag of the best-effort class (starvation guard)
	beBacklogged int     // best-effort clients with queued requests

	clients      map[clientKey]*client
	backlog      []*client     // clients with queued requests, in activation order
	reservations int           // registered reservations
	pacing       int           // registered reservations without Spec.Head: 0 leaves the direction unscheduled
	idleSweep    int           // deactivations since the last sweep of idle best-effort clients
	beGranted    uint64        // units granted to best-effort clients (stats.go)
	beWaited     time.Duration // how long their granted requests waited (stats.go)
}

// clientKey names a client: a reservation by its ID, or a best-effort
// principal ("" is the single best-effort class).
type clientKey struct {
	reserved bool
	name     string
}

// client is what mClock calls a client: one reservation (all the streams
// presenting it) or one best-effort principal.
type client struct {
	key    clientKey
	rate   float64 // reserved bytes/s (0 for best effort)
	limit  float64 // bytes/s cap, 0 = none
	weight float64
	head   int64 // Spec.Head: bytes of each flow charged here, 0 = all

	rTag float64 // seconds: when the next reserved chunk is due
	lTag float64 // seconds: before this the client is over its limit
	pTag float64 // virtual time: its place in the weight phase
	gTag float64 // virtual time: its place among best effort in the guard phase

	granted   uint64        // units granted to the client since it was registered (stats.go)
	waited    time.Duration // how long its granted requests waited for their grants (stats.go)
	forfeited float64       // reserved units owed while it asked for none (stats.go)
	unserved  float64       // reserved units owed while it asked, and never granted (stats.go)
	idleAt    float64       // when its queue last emptied
	q         []*request
}

// request is one chunk waiting for a grant. One request is reused for every
// chunk of a Wait call.
type request struct {
	n         int64
	off       int64   // units of the flow granted before this chunk (Spec.Head)
	asked     float64 // when the chunk was enqueued (its wait, stats.go)
	res       string  // reservation the flow presented ("" none)
	principal string  // best-effort principal the flow falls back to
	cl        *client
	granted   bool
	ready     chan struct{} // buffered 1; Direction signals a grant here
}

// timerSlack is the idle time, in seconds, the device may bank at least: a
// timer firing late by up to this much costs no capacity (2 ms until issue
// 41 saw timers fire tens of milliseconds late on two cores shared with
// thirteen client processes, and the device grant a quarter less than its
// capacity; docs/QOS.md "Burst bound").
const timerSlack = 0.010

// reserveWindow is, in seconds of its rate, what a reservation keeps owed
// across a pause at least: streams that all happen to be between chunks
// (or requests) for a moment, while the device ran late, do not lose what
// they were owed (issue 41: one chunk kept at 41.7 MB/s is 3 ms).
const reserveWindow = 0.1

type phase int

const (
	phaseReserved phase = iota // mClock's constraint-based phase
	phaseGuard                 // the best-effort minimum share
	phaseWeight                // mClock's weight-based phase
)

func newCore(capacity, burst, beShare, beWeight float64) *core {
	return &core{
		capacity: capacity,
		burst:    burst,
		beShare:  beShare,
		beWeight: beWeight,
		clients:  make(map[clientKey]*client),
	}
}

// beRate is the best-effort class's guaranteed rate in bytes/s.
func (c *core) beRate() float64 { return c.beShare * c.capacity }

// reserve registers or updates a reservation. An update keeps the tags, so
// changing a rate does not hand out credit. It returns the requests granted
// because no reservation is left pacing (an update that gave the last one a
// Head: the direction becomes unscheduled).
func (c *core) reserve(id string, s Spec, granted []*request) []*request {
	k := clientKey{reserved: true, name: id}
	cl := c.clients[k]
	switch {
	case cl == nil:
		cl = &client{key: k}
		c.clients[k] = cl
		c.reservations++
	case cl.head == 0:
		c.pacing--
	}
	cl.rate, cl.limit, cl.weight, cl.head = s.Rate, s.Limit, s.Weight, s.Head
	if cl.head == 0 {
		c.pacing++
	}
	if c.pacing == 0 && len(c.backlog) > 0 {
		return c.flush(granted)
	}
	return granted
}

// release ends a reservation: its queued requests move, in order, to the
// best-effort clients of their principals. It returns the requests granted
// because no reservation is left (the direction becomes unscheduled).
func (c *core) release(now float64, id string, granted []*request) []*request {
	k := clientKey{reserved: true, name: id}
	cl := c.clients[k]
	if cl == nil {
		return granted
	}
	delete(c.clients, k)
	c.reservations--
	if cl.head == 0 {
		c.pacing--
	}
	q := cl.q
	if len(q) > 0 {
		cl.q = nil
		c.deactivate(cl)
	}
	if c.pacing == 0 {
		for _, r := range q {
			r.granted = true
			granted = append(granted, r)
		}
		return c.flush(granted)
	}
	for _, r := range q {
		r.res = "" // the reservation is gone for the rest of the Wait too
		c.queue(now, r)
	}
	return granted
}

// flush grants every queued request and forgets the best-effort clients;
// used when no reservation is left pacing (reservations with a Head stay
// registered, idle).
func (c *core) flush(granted []*request) []*request {
	for _, cl := range c.backlog {
		for _, r := range cl.q {
			r.granted = true
			granted = append(granted, r)
		}
		cl.q = nil
	}
	c.backlog = c.backlog[:0]
	c.beBacklogged = 0
	for k := range c.clients {
		if !k.reserved {
			delete(c.clients, k)
		}
	}
	return granted
}

// clientFor resolves the client a request is charged to: its reservation
// while registered (for a reservation with a Head, while the flow is within
// it), otherwise its principal's best-effort client.
func (c *core) clientFor(r *request) *client {
	if cl := c.reservationOf(r); cl != nil && (cl.head == 0 || r.off < cl.head) {
		return cl
	}
	k := clientKey{name: r.principal}
	cl := c.clients[k]
	if cl == nil {
		cl = &client{key: k, weight: c.beWeight}
		c.clients[k] = cl
	}
	return cl
}

// reservationOf is the registered reservation r presents, or nil.
func (c *core) reservationOf(r *request) *client {
	if r.res == "" {
		return nil
	}
	return c.clients[clientKey{reserved: true, name: r.res}]
}

// chunkFor is how much of n units r may ask for in one grant: a chunk that
// starts within its reservation's Head ends there (the rest is best effort).
func (c *core) chunkFor(r *request, n int64) int64 {
	if cl := c.reservationOf(r); cl != nil && r.off < cl.head {
		return min(n, cl.head-r.off)
	}
	return n
}

// enqueue queues a request at its client's tail; its wait starts now.
func (c *core) enqueue(now float64, r *request) {
	r.asked = now
	c.queue(now, r)
}

// queue queues a request at its client's tail, its wait going on (a
// released reservation's requests move to best effort).
func (c *core) queue(now float64, r *request) {
	cl := c.clientFor(r)
	r.cl, r.granted = cl, false
	if len(cl.q) == 0 {
		c.activate(now, cl)
	}
	cl.q = append(cl.q, r)
}

// activate is called when a client's queue becomes non-empty. Its tags
// catch up with the present minus at most one burst (a reservation's R
// minus its reserveWindow, if longer): an idle client does not bank credit
// beyond that (mClock's idle-client rule).
//
// What a returning reservation loses that way is counted from its first
// grant on (before that it has not begun), in two parts: what it was owed
// beyond that window when its queue emptied, owed while it asked (unserved:
// the scheduler held it back, the device short of capacity), and what it
// came to be owed while it asked for nothing (forfeited: its client did
// not ask fast enough).
func (c *core) activate(now float64, cl *client) {
	if cl.rate > 0 {
		window := math.Max(c.burst/cl.rate, reserveWindow)
		if floor := now - window; cl.rTag < floor {
			if cl.granted > 0 {
				asking := math.Min(math.Max(cl.idleAt-window-cl.rTag, 0), floor-cl.rTag)
				cl.unserved += asking * cl.rate
				cl.forfeited += (floor - cl.rTag - asking) * cl.rate
			}
			cl.rTag = floor
		}
	}
	if cl.limit > 0 {
		cl.lTag = math.Max(cl.lTag, now-c.burst/cl.limit)
	}
	// Start-time fair queueing: a returning client starts at the current
	// virtual time, neither ahead of nor behind those already competing.
	cl.pTag = math.Max(cl.pTag, c.v)
	if !cl.key.reserved {
		cl.gTag = math.Max(cl.gTag, c.gv)
		if c.beBacklogged == 0 && c.beRate() > 0 {
			c.beRTag = math.Max(c.beRTag, now-c.burst/c.beRate())
		}
		c.beBacklogged++
	}
	c.backlog = append(c.backlog, cl)
}

// deactivate is called when a client's queue becomes empty.
func (c *core) deactivate(cl *client) {
	if i := slices.Index(c.backlog, cl); i >= 0 {
		c.backlog = slices.Delete(c.backlog, i, i+1)
	}
	if cl.key.reserved {
		return
	}
	c.beBacklogged--
	// A best-effort client whose tag is not ahead of the virtual time has
	// nothing to remember; forget it so principals do not accumulate.
	if cl.pTag <= c.v && cl.gTag <= c.gv {
		delete(c.clients, cl.key)
	}
	if c.idleSweep++; c.idleSweep >= 1024 {
		c.idleSweep = 0
		for k, o := range c.clients {
			if !k.reserved && len(o.q) == 0 && o.pTag <= c.v && o.gTag <= c.gv {
				delete(c.clients, k)
			}
		}
	}
}

// cancel removes a request that has not been granted.
func (c *core) cancel(now float64, r *request) {
	cl := r.cl
	if cl == nil || r.granted {
		return
	}
	i := slices.Index(cl.q, r)
	if i < 0 {
		return
	}
	cl.q = slices.Delete(cl.q, i, i+1)
	if len(cl.q) == 0 {
		cl.idleAt = now
		c.deactivate(cl)
	}
	r.cl = nil
}

// pick chooses the client whose head request is granted next, mClock style:
// first any reservation (or the best-effort guard) whose reservation tag is
// due, smallest tag first; otherwise, among clients under their limit, the
// smallest proportional tag. nil means every backlogged client is over its
// limit.
func (c *core) pick(now float64) (*client, phase) {
	var best *client
	bestTag := math.Inf(1)
	for _, cl := range c.backlog {
		if cl.rate > 0 && cl.rTag <= now && cl.rTag < bestTag && underLimit(cl, now) {
			best, bestTag = cl, cl.rTag
		}
	}
	if c.beBacklogged > 0 && c.beRate() > 0 && c.beRTag <= now && c.beRTag < bestTag {
		return c.minGTag(), phaseGuard
	}
	if best != nil {
		return best, phaseReserved
	}
	return c.minPTag(now), phaseWeight
}

func underLimit(cl *client, now float64) bool { return cl.limit <= 0 || cl.lTag <= now }

// minPTag returns the backlogged client under its limit with the smallest
// proportional tag; ties go to the client that became backlogged first.
func (c *core) minPTag(now float64) *client {
	var best *client
	for _, cl := range c.backlog {
		if !underLimit(cl, now) {
			continue
		}
		if best == nil || cl.pTag < best.pTag {
			best = cl
		}
	}
	return best
}

// minGTag returns the backlogged best-effort client with the smallest guard
// tag: the guard's share is split among principals by weight too.
func (c *core) minGTag() *client {
	var best *client
	for _, cl := range c.backlog {
		if !cl.key.reserved && (best == nil || cl.gTag < best.gTag) {
			best = cl
		}
	}
	return best
}

// grant hands cl's head request its chunk and charges the tags.
func (c *core) grant(now float64, cl *client, ph phase) *request {
	r := cl.q[0]
	// Shift rather than reslice, so the queue's array is reused: queues
	// are as short as a client's concurrent streams.
	copy(cl.q, cl.q[1:])
	cl.q[len(cl.q)-1] = nil
	cl.q = cl.q[:len(cl.q)-1]
	n := float64(r.n)
	// The wait is the grant's time less the ask's, both times the caller
	// read anyway: a request granted as it asks waited 0, at no clock read.
	waited := time.Duration((now - r.asked) * 1e9)
	if cl.key.reserved {
		cl.granted += uint64(r.n)
		cl.waited += waited
	} else {
		c.beGranted += uint64(r.n)
		c.beWaited += waited
	}
	switch ph {
	case phaseReserved:
		// Only the reservation tag: service in this phase is what the
		// client is owed, not a share of the spare.
		cl.rTag += n / cl.rate
	case phaseGuard:
		// Like a reservation, the guard is not charged to the weight
		// phase; its own tag keeps principals fair within it.
		c.beRTag += n / c.beRate()
		c.gv = cl.gTag
		cl.gTag += n / cl.weight
	case phaseWeight:
		// The reservation tag is not charged (mClock's adjustment): the
		// spare comes on top of the reservation.
		c.v = cl.pTag
		cl.pTag += n / cl.weight
	}
	if cl.limit > 0 {
		cl.lTag += n / cl.limit
	}
	if c.capacity > 0 {
		// The device banks at most one burst, or timerSlack, of idle time:
		// enough to absorb a late timer without letting an idle period be
		// spent at once.
		slack := math.Max(c.burst/c.capacity, timerSlack)
		c.free = math.Max(c.free, now-slack) + n/c.capacity
	}
	r.granted = true
	if len(cl.q) == 0 {
		cl.idleAt = now
		c.deactivate(cl)
	}
	return r
}

// dispatch grants every request that may go at now, appending them to
// granted, and returns the time of the next possible grant (+Inf when
// nothing is queued).
func (c *core) dispatch(now float64, granted []*request) ([]*request, float64) {
	for len(c.backlog) > 0 {
		if c.capacity > 0 && c.free > now {
			return granted, c.free
		}
		cl, ph := c.pick(now)
		if cl == nil {
			return granted, c.nextUnderLimit()
		}
		granted = append(granted, c.grant(now, cl, ph))
	}
	return granted, math.Inf(1)
}

// nextUnderLimit is when the first limited client may go again.
func (c *core) nextUnderLimit() float64 {
	next := math.Inf(1)
	for _, cl := range c.backlog {
		next = math.Min(next, cl.lTag)
	}
	return next
}
