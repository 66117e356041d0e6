package sched

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a Clock that moves only when Advance is called; due timers
// run synchronously inside Advance.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	c    *fakeClock
	at   time.Time
	f    func()
	done bool
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_800_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.done
	t.done = true
	return was
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*fakeTimer
	rest := c.timers[:0]
	for _, t := range c.timers {
		switch {
		case t.done:
		case !t.at.After(c.now):
			t.done = true
			due = append(due, t)
		default:
			rest = append(rest, t)
		}
	}
	c.timers = rest
	c.mu.Unlock()
	sort.Slice(due, func(i, j int) bool { return due[i].at.Before(due[j].at) })
	for _, t := range due {
		t.f()
	}
}

// queued counts the requests waiting in d.
func queued(d *Direction) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, cl := range d.c.backlog {
		n += len(cl.q)
	}
	return n
}

// waitQueued yields until n requests wait in d.
func waitQueued(t *testing.T, d *Direction, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for queued(d) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests queued, want %d", queued(d), n)
		}
		runtime.Gosched()
	}
}

const testChunk = 64 << 10

func TestWaitUnscheduledIsFree(t *testing.T) {
	d := NewDirection(Config{Capacity: 1, Chunk: testChunk})
	f := d.Flow("r", "p")
	ctx := context.Background()
	if f.Scheduled() {
		t.Fatal("scheduled with no reservation")
	}
	allocs := testing.AllocsPerRun(100, func() {
		if err := f.Wait(ctx, 1<<30); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("an unscheduled Wait allocates %v times", allocs)
	}
	if err := (Flow{}).Wait(ctx, 1); err != nil {
		t.Errorf("zero Flow: %v", err)
	}
}

func TestWaitPacesChunks(t *testing.T) {
	clk := newFakeClock()
	d := NewDirection(Config{Capacity: 1 * mb, Chunk: testChunk, Clock: clk})
	if err := d.Reserve("r", Spec{Rate: 0.5 * mb}); err != nil {
		t.Fatal(err)
	}
	// The first chunk goes at once (one burst), the other three each wait
	// for the device.
	if got, want := pace(t, clk, d, d.Flow("r", "p"), 4*testChunk), 3*time.Duration(testChunk/(1*mb)*float64(time.Second)); got < want {
		t.Errorf("four chunks took %v of virtual time, want ≥ %v", got, want)
	}
}

// pace waits for n units of f, the only flow of d, moving clk on by 10 ms
// whenever its chunk is queued, and returns the virtual time it took.
func pace(t *testing.T, clk *fakeClock, d *Direction, f Flow, n int) time.Duration {
	t.Helper()
	start := clk.Now()
	done := make(chan error, 1)
	go func() { done <- f.Wait(context.Background(), n) }()
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			return clk.Now().Sub(start)
		default:
		}
		if queued(d) == 1 {
			clk.Advance(10 * time.Millisecond)
		}
		runtime.Gosched()
	}
}

func TestWaitCancelLeavesQueue(t *testing.T) {
	clk := newFakeClock()
	d := NewDirection(Config{Capacity: 1 * mb, Chunk: testChunk, Clock: clk})
	if err := d.Reserve("r", Spec{Rate: 0.5 * mb}); err != nil {
		t.Fatal(err)
	}
	f := d.Flow("r", "p")
	if err := f.Wait(context.Background(), testChunk); err != nil {
		t.Fatal(err)
	}
	if err := f.Wait(canceled(), testChunk); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait with a cancelled context: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan error, 1)
	go func() { got <- f.Wait(ctx, testChunk) }()
	waitQueued(t, d, 1)
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled waiter: %v", err)
	}
	if n := queued(d); n != 0 {
		t.Fatalf("%d requests still queued after the cancel", n)
	}

	// The next waiter is granted when the device is free again.
	go func() { got <- d.Flow("", "q").Wait(context.Background(), testChunk) }()
	waitQueued(t, d, 1)
	clk.Advance(time.Second)
	if err := <-got; err != nil {
		t.Fatal(err)
	}
}

func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func TestReleaseLastReservationUnblocks(t *testing.T) {
	clk := newFakeClock()
	d := NewDirection(Config{Capacity: 1 * mb, Chunk: testChunk, Clock: clk})
	if err := d.Reserve("r", Spec{Rate: 0.5 * mb}); err != nil {
		t.Fatal(err)
	}
	const waiters = 5
	errs := make(chan error, waiters)
	for i := range waiters {
		res := ""
		if i%2 == 0 {
			res = "r"
		}
		go func() { errs <- d.Flow(res, "p").Wait(context.Background(), 10*testChunk) }()
	}
	waitQueued(t, d, waiters-1) // one was granted its first chunk
	d.Release("r")
	for range waiters {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if d.Flow("r", "p").Scheduled() {
		t.Error("still scheduled with no reservation")
	}
}

func TestReserveValidates(t *testing.T) {
	d := NewDirection(Config{Capacity: 100})
	for _, tc := range []struct {
		id string
		s  Spec
	}{
		{"", Spec{Rate: 1}},
		{"r", Spec{}},
		{"r", Spec{Rate: -1}},
		{"r", Spec{Rate: 10, Limit: 5}},
		{"r", Spec{Rate: 10, Weight: -1}},
	} {
		if err := d.Reserve(tc.id, tc.s); !errors.Is(err, ErrInvalidSpec) {
			t.Errorf("Reserve(%q, %+v) = %v, want ErrInvalidSpec", tc.id, tc.s, err)
		}
	}
	if d.Flow("r", "").Scheduled() {
		t.Error("an invalid reservation was registered")
	}
}

// TestConcurrentShares runs real goroutines on the wall clock. It asserts
// no timing, only that nothing deadlocks and that the reservation is
// honoured by a wide margin: expected shares are 72.5 : 27.5.
func TestConcurrentShares(t *testing.T) {
	d := NewDirection(Config{Capacity: 100 * mb, Chunk: testChunk})
	if err := d.Reserve("r", Spec{Rate: 50 * mb}); err != nil {
		t.Fatal(err)
	}
	if err := d.Reserve("other", Spec{Rate: 10 * mb}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var reserved, best atomic.Int64
	var wg sync.WaitGroup
	for i := range 6 {
		f, n := d.Flow("r", "a"), &reserved
		if i%2 == 1 {
			f, n = d.Flow("", "b"), &best
		}
		wg.Go(func() {
			for f.Wait(ctx, testChunk) == nil {
				n.Add(testChunk)
			}
		})
	}
	time.Sleep(200 * time.Millisecond)
	d.Release("other") // a reservation ending under load
	time.Sleep(200 * time.Millisecond)
	cancel()
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(30 * time.Second):
		t.Fatal("waiters did not return after the cancel")
	}
	r, b := reserved.Load(), best.Load()
	t.Logf("reserved %d bytes, best effort %d", r, b)
	if b == 0 || r < 3*b/2 {
		t.Errorf("reserved flow moved %d bytes and best effort %d; want the reservation well ahead and best effort not starved", r, b)
	}
	if n := queued(d); n != 0 {
		t.Errorf("%d requests left queued", n)
	}
}

func BenchmarkWaitUnscheduled(b *testing.B) {
	d := NewDirection(Config{Capacity: 100 * mb})
	f := d.Flow("", "p")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := f.Wait(ctx, testChunk); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWaitScheduled is the slow path's CPU cost per chunk, with a
// capacity so high the device never makes anyone wait.
func BenchmarkWaitScheduled(b *testing.B) {
	d := NewDirection(Config{Capacity: 1e18})
	if err := d.Reserve("r", Spec{Rate: 1e12}); err != nil {
		b.Fatal(err)
	}
	f := d.Flow("r", "p")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := f.Wait(ctx, testChunk); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSchedulerDirections(t *testing.T) {
	s := New(Config{}, Capacities{Read: 300 * mb, Write: 150 * mb, Requests: 1000})
	if s.Requests == nil || s.Requests.Chunk() != 1 || s.Read.Chunk() != DefaultChunk {
		t.Fatalf("directions: requests %v, read chunk %d", s.Requests, s.Read.Chunk())
	}
	if New(Config{}, Capacities{Read: 1}).Requests != nil {
		t.Error("a request direction without a request capacity")
	}
	for _, d := range []*Direction{s.Read, s.Requests} {
		if err := d.Reserve("r", Spec{Rate: 10}); err != nil {
			t.Fatal(err)
		}
	}
	if !s.Read.Flow("", "").Scheduled() || s.Write.Flow("r", "").Scheduled() {
		t.Fatal("a reservation applies to the directions it reserves, only")
	}
	s.Release("r")
	for _, d := range []*Direction{s.Read, s.Write, s.Requests} {
		if d.Flow("r", "").Scheduled() {
			t.Error("released reservation still scheduled")
		}
	}
}

// TestRequestRateReservesHeads: a request-rate reservation is registered in
// the byte directions with a Head (Scheduler.Reserve) — alone it leaves them
// unscheduled; beside a byte reservation it is charged the first
// RequestBytes of each flow presenting it, through Wait and through the
// Writer's successive writes, and the rest is best effort.
func TestRequestRateReservesHeads(t *testing.T) {
	s := New(Config{Chunk: testChunk}, Capacities{Read: 1e18, Write: 1e18, Requests: 1e9})
	if err := s.Reserve("rps", Rates{Requests: 100}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if !s.Requests.Flow("rps", "p").Scheduled() {
		t.Fatal("the request direction is not scheduled")
	}
	for _, d := range []*Direction{s.Read, s.Write} {
		f := d.Flow("rps", "p")
		if f.Scheduled() {
			t.Fatal("a request rate alone schedules a byte direction")
		}
		if allocs := testing.AllocsPerRun(100, func() { _ = f.Wait(ctx, 1<<20) }); allocs != 0 {
			t.Errorf("an unscheduled Wait allocates %v times", allocs)
		}
	}
	if err := s.Reserve("bytes", Rates{Read: 1e12}); err != nil {
		t.Fatal(err)
	}
	f := s.Read.Flow("rps", "p")
	if !f.Scheduled() {
		t.Fatal("a byte reservation does not schedule the read direction")
	}
	charged := func(d *Direction) (res, be uint64) {
		g := d.Granted()
		for _, r := range g.Reservations {
			if r.ID == "rps" {
				res = r.Units
			}
		}
		return res, g.BestEffort
	}
	if err := f.Wait(ctx, 3*RequestBytes); err != nil {
		t.Fatal(err)
	}
	if res, be := charged(s.Read); res != RequestBytes || be != 2*RequestBytes {
		t.Errorf("a Wait of 3×RequestBytes charged %d to the reservation and %d to best effort, want %d and %d",
			res, be, RequestBytes, 2*RequestBytes)
	}
	w := Writer(ctx, io.Discard, f)
	for range 12 {
		if _, err := w.Write(make([]byte, RequestBytes/4)); err != nil {
			t.Fatal(err)
		}
	}
	if res, be := charged(s.Read); res != 2*RequestBytes || be != 4*RequestBytes {
		t.Errorf("a Writer's 3×RequestBytes in 12 writes brought the totals to %d and %d, want %d and %d",
			res, be, 2*RequestBytes, 4*RequestBytes)
	}
	s.Release("bytes")
	if f.Scheduled() {
		t.Error("the read direction is still scheduled with only the request rate's heads registered")
	}

	// An upload's body through the Reader, in 4 KiB reads.
	if err := s.Reserve("bytes", Rates{Write: 1e12}); err != nil {
		t.Fatal(err)
	}
	body := Reader(ctx, bytes.NewReader(make([]byte, 3*RequestBytes)), s.Write.Flow("rps", "p"))
	if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{body}, make([]byte, 4<<10)); err != nil {
		t.Fatal(err)
	}
	if res, be := charged(s.Write); res != RequestBytes || be != 2*RequestBytes {
		t.Errorf("a Reader's 3×RequestBytes in 4 KiB reads charged %d to the reservation and %d to best effort, want %d and %d",
			res, be, RequestBytes, 2*RequestBytes)
	}
}
