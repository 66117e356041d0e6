package sched

import (
	"fmt"
	"math"
	"testing"
)

// The tests in this file drive two cores in virtual time, the request
// direction and the read direction, as a GET goes through both: a stream
// asks for its one request, then for its body chunk by chunk (each chunk
// after the previous one's grant and simLatency), then asks for its next
// request. Each stream is closed-loop, as a client doing one GET at a time.

const (
	reqCapacity  = 1000     // requests/s
	readCapacity = 150 * mb // bytes/s
	smallGet     = 4 << 10
	largeGet     = 64 << 20
)

// getRoundTrip is a client's time between the end of one GET's body and
// its next request (a loopback HTTP round trip on a loaded machine).
const getRoundTrip = 0.002

type getStream struct {
	label  string
	size   int64 // body bytes per GET
	req    *request
	inBody bool  // the request was granted; the body is moving
	left   int64 // body bytes still to grant
	pending
}

type getSim struct {
	t       *testing.T
	cores   [2]*core // request direction, read direction
	chunks  [2]int64
	now     float64
	next    [2]float64
	streams []*getStream
	byReq   map[*request]*getStream
	gets    map[string]int     // GETs completed per label since the last reset
	bytes   map[string]float64 // body bytes granted per label since the last reset
	since   float64
}

// newGetSim returns the server: 1,000 requests/s, 150 MB/s of
// reads, reservations of 40, 25 and 10 MB/s of reads kept busy by three
// streams of large GETs each, four greedy best-effort principals with four
// streams of large GETs each, and four greedy best-effort principals with
// eight streams of small GETs each, which keep the request direction
// saturated.
func newGetSim(t *testing.T) *getSim {
	s := &getSim{
		t:      t,
		cores:  [2]*core{newCore(reqCapacity, 1, DefaultBestEffortShare, 1), newCore(readCapacity, simChunk, DefaultBestEffortShare, 1)},
		chunks: [2]int64{1, simChunk},
		next:   [2]float64{math.Inf(1), math.Inf(1)},
		byReq:  map[*request]*getStream{},
	}
	s.reset()
	for _, r := range []struct {
		id   string
		rate float64
	}{{"r40", 40 * mb}, {"r25", 25 * mb}, {"r10", 10 * mb}} {
		s.reserve(r.id, Rates{Read: r.rate})
		s.add(3, r.id, r.id, "p"+r.id, largeGet)
	}
	for i := range 4 {
		s.add(4, "greedy-large", "", fmt.Sprint("large", i), largeGet)
		s.add(8, "greedy-small", "", fmt.Sprint("small", i), smallGet)
	}
	return s
}

// reserve registers rt in both cores as Scheduler.Reserve does.
func (s *getSim) reserve(id string, rt Rates) {
	s.t.Helper()
	specs := rt.specs()
	for i, spec := range [2]Spec{specs[2], specs[0]} {
		if spec.Rate <= 0 {
			continue
		}
		if err := spec.validate(); err != nil {
			s.t.Fatal(err)
		}
		s.cores[i].reserve(id, spec, nil)
	}
}

// add adds n streams labelled label doing GETs of size bytes, presenting
// reservation res on behalf of principal.
func (s *getSim) add(n int, label, res, principal string, size int64) {
	for range n {
		st := &getStream{label: label, size: size, req: &request{res: res, principal: principal}}
		s.byReq[st.req] = st
		s.streams = append(s.streams, st)
	}
}

func (s *getSim) reset() {
	s.gets, s.bytes, s.since = map[string]int{}, map[string]float64{}, s.now
}

// measure runs to from, then measures until to.
func (s *getSim) measure(from, to float64) {
	s.run(from)
	s.reset()
	s.run(to)
}

func (s *getSim) getsPerSec(label string) float64  { return float64(s.gets[label]) / (s.now - s.since) }
func (s *getSim) bytesPerSec(label string) float64 { return s.bytes[label] / (s.now - s.since) }

// run advances virtual time to until.
func (s *getSim) run(until float64) {
	advance(until, &s.now, s.streams, func() float64 { return math.Min(s.next[0], s.next[1]) }, s.ask,
		func(t float64) {
			for d, c := range s.cores {
				var g []*request
				g, s.next[d] = c.dispatch(t, nil)
				s.granted(t, d, g)
			}
		})
}

// ask queues st's next grant: its request, or its body's next chunk (cut
// at its reservation's Head, as Direction.waitChunk does).
func (s *getSim) ask(st *getStream) {
	d, n := 0, int64(1)
	if st.inBody {
		d = 1
		st.req.off = st.size - st.left
		n = s.cores[1].chunkFor(st.req, min(st.left, s.chunks[1]))
	}
	st.req.n = n
	s.cores[d].enqueue(s.now, st.req)
}

func (s *getSim) granted(t float64, d int, reqs []*request) {
	for _, r := range reqs {
		st := s.byReq[r]
		st.queued = false
		st.readyAt = t + simLatency
		if d == 0 {
			st.inBody, st.left = true, st.size
			continue
		}
		st.left -= r.n
		s.bytes[st.label] += float64(r.n)
		if st.left == 0 {
			st.inBody = false
			st.readyAt = t + getRoundTrip
			s.gets[st.label]++
		}
	}
}

// TestRequestReservationSmallGets is issue 41's item 4: a reservation of
// 100 requests/s doing 4 KiB GETs one at a time got less than its rate and
// less than a best-effort client doing the same beside it. Its request was
// granted on the reservation, but its 4 KiB were best effort under its
// principal in the read direction and queued behind a 128 KiB chunk of
// every backlogged client (start-time fair queueing: a returning client
// starts at the virtual time, and ties go to clients backlogged first).
// Now the first RequestBytes of each of its GETs are its own.
func TestRequestReservationSmallGets(t *testing.T) {
	s := newGetSim(t)
	s.reserve("rps", Rates{Requests: 100})
	s.add(1, "holder", "rps", "holder", smallGet)
	s.add(1, "twin", "", "twin", smallGet)
	s.measure(1, 11)
	holder, twin := s.getsPerSec("holder"), s.getsPerSec("twin")
	t.Logf("holder (100 requests/s reserved) %.1f GETs/s, best-effort twin %.1f, greedy small %.1f, r40 %.1f MB/s, r25 %.1f, r10 %.1f",
		holder, twin, s.getsPerSec("greedy-small"), s.bytesPerSec("r40")/mb, s.bytesPerSec("r25")/mb, s.bytesPerSec("r10")/mb)
	if holder < 0.95*100 {
		t.Errorf("the holder of 100 requests/s got %.1f GETs/s, below 95%%", holder)
	}
	if holder < twin {
		t.Errorf("the holder got %.1f GETs/s, less than its best-effort twin's %.1f", holder, twin)
	}
	checkByteReservations(t, s)
}

// checkByteReservations: the byte reservations still hold.
func checkByteReservations(t *testing.T, s *getSim) {
	t.Helper()
	for id, rate := range map[string]float64{"r40": 40 * mb, "r25": 25 * mb, "r10": 10 * mb} {
		if got := s.bytesPerSec(id); got < 0.95*rate {
			t.Errorf("%s got %.1f MB/s, below 95%% of %.0f", id, got/mb, rate/mb)
		}
	}
}

// TestMixedReservation: one reservation of bytes and requests holds both: a
// client doing small GETs on it gets its request rate, one doing large GETs
// its byte rate.
func TestMixedReservation(t *testing.T) {
	s := newGetSim(t)
	s.reserve("small", Rates{Read: 5 * mb, Requests: 100})
	s.reserve("large", Rates{Read: 10 * mb, Requests: 50})
	s.add(1, "small", "small", "a", smallGet)
	s.add(3, "large", "large", "b", largeGet)
	s.add(1, "twin", "", "twin", smallGet)
	s.measure(1, 11)
	small, twin, large := s.getsPerSec("small"), s.getsPerSec("twin"), s.bytesPerSec("large")
	t.Logf("small GETs on 5 MB/s + 100 requests/s: %.1f GETs/s (twin %.1f); large GETs on 10 MB/s + 50 requests/s: %.1f MB/s",
		small, twin, large/mb)
	if small < 0.95*100 || small < twin {
		t.Errorf("small GETs on a mixed reservation got %.1f GETs/s, want ≥ 95 and ≥ the twin's %.1f", small, twin)
	}
	if large < 0.95*10*mb {
		t.Errorf("large GETs on a mixed reservation got %.1f MB/s, below 95%% of 10", large/mb)
	}
	checkByteReservations(t, s)
}

// TestRequestReservationLargeGets: a request-rate reservation doing large
// GETs has its request rate, its first RequestBytes per GET reserved, and
// the rest of its bytes best effort under its principal: it gets what a
// best-effort client doing the same gets, not less.
func TestRequestReservationLargeGets(t *testing.T) {
	s := newGetSim(t)
	s.reserve("rps", Rates{Requests: 100})
	s.add(1, "holder", "rps", "holder", 8<<20)
	s.add(1, "twin", "", "twin", 8<<20)
	s.measure(1, 11)
	holder, twin := s.bytesPerSec("holder"), s.bytesPerSec("twin")
	t.Logf("8 MiB GETs: holder %.2f MB/s, best-effort twin %.2f MB/s", holder/mb, twin/mb)
	if holder < twin {
		t.Errorf("the holder got %.2f MB/s, less than its best-effort twin's %.2f", holder/mb, twin/mb)
	}
	checkByteReservations(t, s)
}

// TestRequestReservationMixedSizes: the large GETs a request-rate
// reservation's holder makes do not hold up its small ones: only their
// first RequestBytes draw on the reservation, so its small GETs still get
// the rate the large ones leave.
func TestRequestReservationMixedSizes(t *testing.T) {
	s := newGetSim(t)
	s.reserve("rps", Rates{Requests: 100})
	s.add(1, "small", "rps", "holder", smallGet)
	s.add(2, "large", "rps", "holder", 8<<20)
	s.add(1, "twin", "", "twin", smallGet)
	s.measure(1, 11)
	small, large, twin := s.getsPerSec("small"), s.getsPerSec("large"), s.getsPerSec("twin")
	t.Logf("small GETs %.1f/s and 8 MiB GETs %.1f/s (%.2f MB/s) on 100 requests/s; best-effort twin %.1f", small, large, s.bytesPerSec("large")/mb, twin)
	if small+large < 0.95*100 || small < twin {
		t.Errorf("the holder's small GETs got %.1f/s beside %.1f large, want ≥ 95 in all and ≥ the twin's %.1f", small, large, twin)
	}
}
