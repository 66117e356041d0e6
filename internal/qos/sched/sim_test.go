package sched

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
)

// The tests in this file drive a core in virtual time: streams ask for one
// chunk at a time, transfer it in a fixed latency after the grant and ask
// again, as a data-path request copying a body does. Nothing sleeps and the
// results are exact functions of the inputs, so they assert byte shares.

const (
	mb         = 1e6
	simChunk   = 128 << 10
	simLatency = 0.0001 // seconds a stream spends moving a granted chunk
)

type simStream struct {
	label string
	req   *request
	pending
}

// pending is a simulated stream's place in virtual time.
type pending struct {
	readyAt float64 // when it asks for its next grant
	queued  bool    // it asked and waits for the grant
}

func (p *pending) state() *pending { return p }

// advance runs a simulation to until: at each instant — the earliest of
// next() and an idle stream's readyAt — it sets *now, asks for every idle
// stream due then, and dispatches.
func advance[S interface{ state() *pending }](until float64, now *float64, streams []S, next func() float64, ask func(S), dispatch func(t float64)) {
	for {
		t := next()
		for _, st := range streams {
			if p := st.state(); !p.queued && p.readyAt < t {
				t = p.readyAt
			}
		}
		if t >= until {
			*now = until
			return
		}
		*now = t
		for _, st := range streams {
			if p := st.state(); !p.queued && p.readyAt <= t {
				ask(st)
				p.queued = true
			}
		}
		dispatch(t)
	}
}

type sim struct {
	t       *testing.T
	c       *core
	chunk   int64 // what a stream asks for at a time
	now     float64
	next    float64 // next dispatch time the core asked for
	streams []*simStream
	byReq   map[*request]*simStream
	got     map[string]float64 // bytes granted per label since reset
	since   float64
}

func newSim(t *testing.T, capacity, beShare float64) *sim {
	return newSimChunk(t, capacity, beShare, simChunk)
}

func newSimChunk(t *testing.T, capacity, beShare float64, chunk int64) *sim {
	return &sim{
		t:     t,
		chunk: chunk,
		c:     newCore(capacity, float64(chunk), beShare, 1),
		next:  math.Inf(1),
		byReq: make(map[*request]*simStream),
		got:   make(map[string]float64),
	}
}

func (s *sim) reserve(id string, sp Spec) {
	s.t.Helper()
	if err := sp.validate(); err != nil {
		s.t.Fatal(err)
	}
	if g := s.c.reserve(id, sp, nil); len(g) != 0 {
		s.t.Fatalf("reserving %s granted %d requests", id, len(g))
	}
}

// streams adds n saturating streams labelled label that present
// reservation res on behalf of principal, starting at time start.
func (s *sim) streamsFrom(start float64, n int, label, res, principal string) []*simStream {
	var out []*simStream
	for range n {
		st := &simStream{label: label, pending: pending{readyAt: start}, req: &request{res: res, principal: principal}}
		s.byReq[st.req] = st
		s.streams = append(s.streams, st)
		out = append(out, st)
	}
	return out
}

func (s *sim) addStreams(n int, label, res, principal string) []*simStream {
	return s.streamsFrom(s.now, n, label, res, principal)
}

func (s *sim) reset() {
	s.got = make(map[string]float64)
	s.since = s.now
}

// measure runs to from, then measures until to.
func (s *sim) measure(from, to float64) {
	s.run(from)
	s.reset()
	s.run(to)
}

// rate is what label achieved since the last reset, in bytes/s.
func (s *sim) rate(label string) float64 { return s.got[label] / (s.now - s.since) }

func (s *sim) granted(t float64, reqs []*request) {
	for _, r := range reqs {
		st := s.byReq[r]
		st.queued = false
		st.readyAt = t + simLatency
		s.got[st.label] += float64(r.n)
	}
}

// run advances virtual time to until.
func (s *sim) run(until float64) {
	advance(until, &s.now, s.streams, func() float64 { return s.next },
		func(st *simStream) {
			st.req.n = s.chunk
			s.c.enqueue(s.now, st.req)
		},
		func(t float64) {
			var g []*request
			g, s.next = s.c.dispatch(t, nil)
			s.granted(t, g)
		})
}

// report logs the achieved rates, for the docs.
func (s *sim) report(reserved map[string]float64) string {
	var labels []string
	for l := range s.got {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	scale, unit := mb, "MB/s"
	if s.chunk == 1 {
		scale, unit = 1, "requests/s"
	}
	var b strings.Builder
	total := 0.0
	for _, l := range labels {
		total += s.rate(l)
		if r, ok := reserved[l]; ok {
			fmt.Fprintf(&b, "%s reserved %.1f achieved %.1f %s (%.1f%%)\n", l, r/scale, s.rate(l)/scale, unit, 100*s.rate(l)/r)
		} else {
			fmt.Fprintf(&b, "%s best effort achieved %.1f %s\n", l, s.rate(l)/scale, unit)
		}
	}
	fmt.Fprintf(&b, "total %.1f of %.1f %s", total/scale, s.c.capacity/scale, unit)
	return b.String()
}

// The paper's experiment: five reservations 5:4:3:2:1 of reservedTotal,
// three streams each, and two saturating best-effort clients with three
// streams each.
func paperExperiment(t *testing.T, capacity, reservedTotal float64, chunk int64) {
	s := newSimChunk(t, capacity, DefaultBestEffortShare, chunk)
	reserved := make(map[string]float64)
	for i := 1; i <= 5; i++ {
		id := fmt.Sprintf("r%d", i)
		rate := reservedTotal * float64(6-i) / 15
		reserved[id] = rate
		s.reserve(id, Spec{Rate: rate})
		s.addStreams(3, id, id, "user"+id)
	}
	s.addStreams(3, "be1", "", "be1")
	s.addStreams(3, "be2", "", "be2")
	s.measure(1, 11)
	t.Log("\n" + s.report(reserved))

	total, sumReserved := 0.0, 0.0
	for id, r := range reserved {
		if got := s.rate(id); got < 0.95*r {
			t.Errorf("%s achieved %.1f MB/s, below 95%% of its %.1f", id, got/mb, r/mb)
		}
		sumReserved += s.rate(id)
	}
	be1, be2 := s.rate("be1"), s.rate("be2")
	total = sumReserved + be1 + be2
	if total < 0.99*capacity || total > 1.001*capacity+float64(2*chunk) {
		t.Errorf("total %.1f MB/s, want the capacity %.1f", total/mb, capacity/mb)
	}
	// Best effort gets the remainder: at least its guard, split evenly.
	if be := be1 + be2; be < DefaultBestEffortShare*capacity {
		t.Errorf("best effort got %.1f MB/s, below its %.0f%% guard", be/mb, 100*DefaultBestEffortShare)
	}
	if math.Abs(be1-be2) > 0.05*(be1+be2) {
		t.Errorf("best-effort clients got %.1f and %.1f MB/s, want equal", be1/mb, be2/mb)
	}
}

func TestPaperExperimentRead(t *testing.T)  { paperExperiment(t, 300*mb, 250*mb, simChunk) }
func TestPaperExperimentWrite(t *testing.T) { paperExperiment(t, 150*mb, 125*mb, simChunk) }

// The core does not know its unit: the same experiment in requests/s, one
// request a grant, is a request-rate reservation (see the package doc).
func TestPaperExperimentRequests(t *testing.T) { paperExperiment(t, 3000, 2500, 1) }

func TestLoneFlowGetsCapacity(t *testing.T) {
	for _, tc := range []struct{ name, res string }{{"best effort", ""}, {"reserved", "r"}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t, 300*mb, DefaultBestEffortShare)
			s.reserve("r", Spec{Rate: 10 * mb})
			s.reserve("idle", Spec{Rate: 100 * mb})
			s.addStreams(1, "lone", tc.res, "p")
			s.measure(1, 5)
			if got := s.rate("lone"); got < 0.99*300*mb {
				t.Errorf("lone flow got %.1f MB/s of 300", got/mb)
			}
		})
	}
}

func TestLimitCaps(t *testing.T) {
	s := newSim(t, 300*mb, DefaultBestEffortShare)
	s.reserve("r", Spec{Rate: 50 * mb, Limit: 80 * mb})
	s.addStreams(3, "r", "r", "a")
	s.addStreams(3, "be", "", "b")
	s.measure(1, 11)
	t.Log("\n" + s.report(map[string]float64{"r": 50 * mb}))
	if got := s.rate("r"); got > 80*mb*1.001 || got < 0.99*80*mb {
		t.Errorf("limited reservation got %.1f MB/s, want its limit 80", got/mb)
	}
	if got := s.rate("be"); got < 0.99*220*mb {
		t.Errorf("best effort got %.1f MB/s, want the 220 left", got/mb)
	}
}

func TestWeightShares(t *testing.T) {
	s := newSim(t, 100*mb, DefaultBestEffortShare)
	s.reserve("light", Spec{Rate: 10 * mb, Weight: 1})
	s.reserve("heavy", Spec{Rate: 10 * mb, Weight: 3})
	s.addStreams(2, "light", "light", "a")
	s.addStreams(2, "heavy", "heavy", "b")
	s.measure(1, 11)
	t.Log("\n" + s.report(map[string]float64{"light": 10 * mb, "heavy": 10 * mb}))
	// Spare 80 MB/s split 1:3 on top of the reservations: 30 and 70.
	if got := s.rate("light"); math.Abs(got-30*mb) > 0.02*30*mb {
		t.Errorf("weight 1 got %.1f MB/s, want 30", got/mb)
	}
	if got := s.rate("heavy"); math.Abs(got-70*mb) > 0.02*70*mb {
		t.Errorf("weight 3 got %.1f MB/s, want 70", got/mb)
	}
}

func TestBestEffortPrincipalsShareEvenly(t *testing.T) {
	s := newSim(t, 100*mb, DefaultBestEffortShare)
	s.reserve("idle", Spec{Rate: 50 * mb})
	s.addStreams(1, "one", "", "one")
	s.addStreams(4, "four", "", "four")
	s.measure(1, 6)
	// Per principal, not per stream: four streams do not get four shares.
	if one, four := s.rate("one"), s.rate("four"); math.Abs(one-four) > 0.02*(one+four) {
		t.Errorf("principals got %.1f and %.1f MB/s, want equal", one/mb, four/mb)
	}
}

func TestStarvationGuard(t *testing.T) {
	for _, tc := range []struct {
		name  string
		share float64
	}{{"guarded", DefaultBestEffortShare}, {"unguarded", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t, 100*mb, tc.share)
			// The whole capacity reserved and in use.
			s.reserve("a", Spec{Rate: 60 * mb})
			s.reserve("b", Spec{Rate: 40 * mb})
			s.addStreams(3, "a", "a", "a")
			s.addStreams(3, "b", "b", "b")
			s.addStreams(3, "be", "", "c")
			s.measure(1, 11)
			t.Log("\n" + s.report(map[string]float64{"a": 60 * mb, "b": 40 * mb}))
			got := s.rate("be")
			if tc.share > 0 && got < 0.95*tc.share*100*mb {
				t.Errorf("best effort got %.2f MB/s, below its guard %.0f", got/mb, tc.share*100)
			}
			if tc.share == 0 && got > 0.01*100*mb {
				t.Errorf("without a guard best effort got %.2f MB/s; the guard test proves nothing", got/mb)
			}
		})
	}
}

func TestReleaseMidRun(t *testing.T) {
	s := newSim(t, 100*mb, DefaultBestEffortShare)
	s.reserve("r", Spec{Rate: 60 * mb})
	s.reserve("idle", Spec{Rate: 10 * mb}) // keeps the direction scheduled
	s.addStreams(3, "a", "r", "a")
	s.addStreams(3, "b", "", "b")
	s.measure(1, 6)
	// 60 reserved + half of the 35 spare after the 5 guard; b the rest.
	if a := s.rate("a"); a < 0.99*77.5*mb {
		t.Errorf("reserved flow got %.1f MB/s, want 77.5", a/mb)
	}
	g := s.c.release(s.now, "r", nil)
	if len(g) != 0 {
		t.Fatalf("release with a reservation left granted %d requests", len(g))
	}
	s.measure(7, 12)
	// Now both are best effort: even shares.
	if a, b := s.rate("a"), s.rate("b"); math.Abs(a-b) > 0.02*(a+b) {
		t.Errorf("after release a got %.1f MB/s and b %.1f, want equal", a/mb, b/mb)
	}
	// Releasing the last reservation grants everything queued.
	g = s.c.release(s.now, "idle", nil)
	if s.c.reservations != 0 || len(s.c.backlog) != 0 {
		t.Fatalf("after the last release: %d reservations, %d backlogged", s.c.reservations, len(s.c.backlog))
	}
	queued := 0
	for _, st := range s.streams {
		if st.queued {
			queued++
		}
	}
	if len(g) != queued {
		t.Errorf("last release granted %d of %d queued requests", len(g), queued)
	}
}

func TestIdleBanksOneBurst(t *testing.T) {
	s := newSim(t, 100*mb, DefaultBestEffortShare)
	s.reserve("r", Spec{Rate: 10 * mb, Limit: 20 * mb})
	s.streamsFrom(10, 2, "r", "r", "a")
	s.measure(10, 11)
	// Ten idle seconds buy one burst, not ten seconds of limit.
	if got := s.got["r"]; got > 20*mb+2*simChunk || got < 0.95*20*mb {
		t.Errorf("after idling, first second got %.2f MB, want its 20 MB/s limit plus at most a chunk", got/mb)
	}

	// The device too: a flow arriving at an idle direction.
	s = newSim(t, 100*mb, DefaultBestEffortShare)
	s.reserve("idle", Spec{Rate: 10 * mb})
	s.streamsFrom(10, 3, "be", "", "b")
	s.measure(10, 10.5)
	if got := s.got["be"]; got > 50*mb+simChunk+timerSlack*100*mb {
		t.Errorf("first half second after idling got %.2f MB, want 50 plus a chunk and the timer slack", got/mb)
	}
}

func TestCapacityChange(t *testing.T) {
	s := newSim(t, 300*mb, DefaultBestEffortShare)
	s.reserve("r", Spec{Rate: 100 * mb})
	s.addStreams(3, "r", "r", "a")
	s.addStreams(3, "be", "", "b")
	s.run(5)
	s.c.capacity = 150 * mb
	s.measure(6, 11)
	total := s.rate("r") + s.rate("be")
	if total > 150*mb*1.001 || total < 0.99*150*mb {
		t.Errorf("after halving the capacity total is %.1f MB/s, want 150", total/mb)
	}
	if r := s.rate("r"); r < 100*mb {
		t.Errorf("reservation got %.1f MB/s after the change, want ≥ 100", r/mb)
	}
}

func TestCancelLeavesQueue(t *testing.T) {
	c := newCore(1*mb, simChunk, DefaultBestEffortShare, 1)
	c.reserve("r", Spec{Rate: 0.5 * mb, Weight: 1}, nil)
	a := &request{n: simChunk, res: "r"}
	b := &request{n: simChunk, principal: "p"}
	b2 := &request{n: simChunk, principal: "p"}
	c.enqueue(0, a)
	c.enqueue(0, b)
	c.enqueue(0, b2)
	g, next := c.dispatch(0, nil)
	if len(g) != 1 || next <= 0 {
		t.Fatalf("first dispatch granted %d, next %v", len(g), next)
	}
	for _, r := range []*request{a, b, b2} {
		c.cancel(0, r) // the granted one is a no-op
	}
	if len(c.backlog) != 0 || c.beBacklogged != 0 {
		t.Fatalf("after cancelling: %d backlogged, %d best effort", len(c.backlog), c.beBacklogged)
	}
	if _, ok := c.clients[clientKey{name: "p"}]; ok && g[0] != b {
		t.Errorf("an idle best-effort client with nothing owed is kept")
	}
	if g, _ := c.dispatch(next, nil); len(g) != 0 {
		t.Errorf("cancelled requests were granted: %d", len(g))
	}
}
