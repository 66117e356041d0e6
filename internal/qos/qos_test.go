package qos

import (
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/meta/sqlite"
)

var t0 = time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)

// clock is an injected clock the tests move.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// open returns a service over a fresh SQLite store with buckets a and b.
func open(t *testing.T, c meta.Capacity, clk *clock) (*Reservations, meta.Store) {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "meta.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, b := range []string{"a", "b"} {
		if err := st.CreateBucket(t.Context(), meta.Bucket{Name: b, Region: "us-east-1", CreatedAt: t0}); err != nil {
			t.Fatal(err)
		}
	}
	return New(st, c, clk.now), st
}

func window(bucket string, read, write int64, from, to time.Duration) meta.Reservation {
	return meta.Reservation{Bucket: bucket, ReadBPS: read, WriteBPS: write, Start: t0.Add(from), End: t0.Add(to), Owner: "arn:aws:iam::1:root"}
}

func TestValidate(t *testing.T) {
	ok := window("a", 1, 0, 0, time.Hour)
	if err := Validate(ok, t0); err != nil {
		t.Fatalf("valid: %v", err)
	}
	for name, r := range map[string]meta.Reservation{
		"no rate":          window("a", 0, 0, 0, time.Hour),
		"negative":         window("a", -1, 5, 0, time.Hour),
		"empty window":     window("a", 1, 0, time.Hour, time.Hour),
		"backwards":        window("a", 1, 0, time.Hour, 0),
		"past":             window("a", 1, 0, -2*time.Hour, -time.Hour),
		"too long":         window("a", 1, 0, 0, MaxWindow+time.Second),
		"sub-second":       window("a", 1, 0, 0, time.Hour+time.Millisecond),
		"not an ARN":       func() meta.Reservation { r := ok; r.Principal = "alice"; return r }(),
		"no start":         func() meta.Reservation { r := ok; r.Start = time.Time{}; return r }(),
		"negative rate":    func() meta.Reservation { r := ok; r.RequestsPerSecond = -1; return r }(),
		"started long ago": window("a", 1, 0, -MaxPast-time.Second, time.Hour),
		"years ahead":      window("a", 1, 0, MaxLead+time.Second, MaxLead+time.Hour),
	} {
		if err := Validate(r, t0); !IsKind(err, Invalid) {
			t.Errorf("%s: Validate = %v, want an Invalid error", name, err)
		}
	}
}

// TestMayPresent: a bound reservation serves its principal and the root;
// an unbound one anyone.
func TestMayPresent(t *testing.T) {
	const alice, bob = "arn:aws:iam::1:user/alice", "arn:aws:iam::1:user/bob"
	bound := window("a", 1, 0, 0, time.Hour)
	bound.ID, bound.Principal = "r1", alice
	unbound := window("a", 1, 0, 0, time.Hour)
	for _, c := range []struct {
		name   string
		r      meta.Reservation
		caller string
		root   bool
		ok     bool
	}{
		{"its principal", bound, alice, false, true},
		{"another user", bound, bob, false, false},
		{"anonymous", bound, "", false, false},
		{"the root", bound, "arn:aws:iam::1:root", true, true},
		{"unbound, any user", unbound, bob, false, true},
		{"unbound, anonymous", unbound, "", false, true},
	} {
		err := MayPresent(c.r, c.caller, c.root)
		if c.ok != (err == nil) || (err != nil && (!IsKind(err, NotYours) || !strings.Contains(err.Error(), "bound to "+alice))) {
			t.Errorf("%s: MayPresent = %v, want ok %v", c.name, err, c.ok)
		}
	}
}

func TestStateAt(t *testing.T) {
	r := window("a", 1, 0, time.Minute, time.Hour)
	for _, c := range []struct {
		at   time.Duration
		want State
	}{{0, Pending}, {time.Minute - time.Nanosecond, Pending}, {time.Minute, Active}, {time.Hour - time.Nanosecond, Active}, {time.Hour, Expired}} {
		if got := StateAt(r, t0.Add(c.at)); got != c.want {
			t.Errorf("state at +%v = %s, want %s", c.at, got, c.want)
		}
	}
}

// TestAdmission: overlapping windows sum, an exact fit passes, a refusal
// names the least left over the window per direction and stores nothing.
func TestAdmission(t *testing.T) {
	clk := &clock{t: t0}
	// 400 and 200 of capacity: 380 and 190 are reservable (Reservable).
	s, _ := open(t, meta.Capacity{Read: 400, Write: 200}, clk)
	ctx := t.Context()
	for _, r := range []meta.Reservation{
		window("a", 50, 10, 0, 2*time.Hour),
		window("b", 40, 20, time.Hour, 3*time.Hour),
		window("a", 30, 30, 150*time.Minute, 4*time.Hour),
	} {
		if _, err := s.Create(ctx, r); err != nil {
			t.Fatalf("Create: %v", err)
		}
	}
	// Peak over [0, 4h): 90 read (hour 1–2), 50 write (2.5h–3h).
	_, err := s.Create(ctx, window("b", 291, 0, 0, 4*time.Hour))
	var ce *meta.CapacityError
	if !errors.As(err, &ce) || ce.Free != (meta.Capacity{Read: 290, Write: 140}) {
		t.Fatalf("over capacity: %v, want a CapacityError with 290 read and 140 write free", err)
	}
	if !strings.Contains(err.Error(), "290 B/s of reads, 140 B/s of writes and 0 requests/s") {
		t.Errorf("the refusal %q does not say what is left", err)
	}
	r, err := s.Create(ctx, window("b", 290, 140, 0, 4*time.Hour))
	if err != nil {
		t.Fatalf("an exact fit was refused: %v", err)
	}
	if len(r.ID) != 32 || r.CreatedAt != t0 {
		t.Errorf("created %+v: want a 32-character ID and CreatedAt %v", r, t0)
	}
	// Outside the full window, all capacity is there again.
	if _, err := s.Create(ctx, window("a", 380, 190, 4*time.Hour, 5*time.Hour)); err != nil {
		t.Errorf("a window after the others was refused: %v", err)
	}
	list, _ := s.List(ctx, "b")
	if len(list) != 2 {
		t.Errorf("bucket b has %d reservations, want 2: refusals store nothing", len(list))
	}
}

// TestCreateStart: a Start up to MaxPast ago is taken as now (the
// reservation is stored and answered starting now); one further back, or
// more than MaxLead ahead, is refused and nothing stored.
func TestCreateStart(t *testing.T) {
	clk := &clock{t: t0.Add(1500 * time.Millisecond)}
	s, _ := open(t, meta.Capacity{Read: 1000}, clk)
	ctx := t.Context()
	r, err := s.Create(ctx, window("a", 1, 0, -MaxPast+2*time.Second, time.Hour))
	if err != nil || !r.Start.Equal(t0.Add(time.Second)) {
		t.Fatalf("a Start about %v ago: %+v, %v; want it stored starting now (%v)", MaxPast, r, err, t0.Add(time.Second))
	}
	if got, err := s.Get(ctx, "a", r.ID); err != nil || !got.Start.Equal(r.Start) {
		t.Errorf("stored %+v, %v: want Start %v", got, err, r.Start)
	}
	if _, err := s.Create(ctx, window("a", 1, 0, MaxLead, MaxLead+time.Hour)); err != nil {
		t.Errorf("a Start MaxLead ahead: %v", err)
	}
	for name, r := range map[string]meta.Reservation{
		"an hour ago":  window("a", 1, 0, -time.Hour, time.Hour),
		"in year 9999": {Bucket: "a", ReadBPS: 1, Start: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(9999, 1, 2, 0, 0, 0, 0, time.UTC)},
	} {
		if _, err := s.Create(ctx, r); !IsKind(err, Invalid) || !strings.Contains(err.Error(), "Start") {
			t.Errorf("a Start %s: %v, want an Invalid error about Start", name, err)
		}
	}
	if list, _ := s.List(ctx, "a"); len(list) != 2 {
		t.Errorf("bucket a has %d reservations, want 2: refusals store nothing", len(list))
	}
}

func TestNoCapacity(t *testing.T) {
	s, _ := open(t, meta.Capacity{Read: 100}, &clock{t: t0})
	if _, err := s.Create(t.Context(), window("a", 0, 1, 0, time.Hour)); !IsKind(err, NoCapacity) ||
		!strings.Contains(err.Error(), "--qos-write-capacity") || !strings.Contains(err.Error(), "jog calibrate") {
		t.Errorf("a write reservation without write capacity: %v", err)
	}
	if _, err := s.Create(t.Context(), window("a", 95, 0, 0, time.Hour)); err != nil { // 95% is reservable
		t.Errorf("a read reservation with read capacity: %v", err)
	}
	// A request rate without a request capacity is refused, not stored
	// and left unenforced.
	withRPS := window("a", 1, 0, time.Hour, 2*time.Hour)
	withRPS.RequestsPerSecond = 10
	if _, err := s.Create(t.Context(), withRPS); !IsKind(err, NoCapacity) || !strings.Contains(err.Error(), "reservations of requests: set --qos-request-capacity") {
		t.Errorf("a request rate without request capacity: %v", err)
	}
	if list, _ := s.List(t.Context(), "a"); len(list) != 1 {
		t.Errorf("bucket a has %d reservations, want 1: a refusal stores nothing", len(list))
	}
}

// TestRequestAdmission: request rates alone make a reservation, and are
// admitted against 95% of the request capacity like bytes.
func TestRequestAdmission(t *testing.T) {
	s, _ := open(t, meta.Capacity{Read: 1000, Requests: 100}, &clock{t: t0})
	r := window("a", 0, 0, 0, time.Hour)
	r.RequestsPerSecond = 96
	_, err := s.Create(t.Context(), r)
	var ce *meta.CapacityError
	if !errors.As(err, &ce) || ce.Free != (meta.Capacity{Read: 950, Write: 0, Requests: 95}) ||
		!strings.Contains(err.Error(), "and 95 requests/s are left") {
		t.Fatalf("96 requests/s of 100: %v, want a CapacityError leaving 95 requests/s", err)
	}
	r.RequestsPerSecond = 95
	if _, err := s.Create(t.Context(), r); err != nil {
		t.Errorf("95 requests/s of 100 (all that is reservable): %v", err)
	}
}

// TestConcurrentAdmission: 32 creations race for room for 8 (760 of
// 800 reservable); 8 pass.
func TestConcurrentAdmission(t *testing.T) {
	s, _ := open(t, meta.Capacity{Read: 800, Write: 800}, &clock{t: t0})
	var wg sync.WaitGroup
	var mu sync.Mutex
	passed := 0
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Create(t.Context(), window([]string{"a", "b"}[i%2], 95, 95, 0, time.Hour))
			var ce *meta.CapacityError
			switch {
			case err == nil:
				mu.Lock()
				passed++
				mu.Unlock()
			case !errors.As(err, &ce):
				t.Errorf("Create: %v", err)
			}
		}()
	}
	wg.Wait()
	if passed != 8 {
		t.Errorf("%d creations passed, want 8", passed)
	}
}

// TestActive: the edge's lookup: unknown, another bucket's, pending,
// active, expired to the second, cancelled (at once, despite the cache).
func TestActive(t *testing.T) {
	clk := &clock{t: t0}
	s, _ := open(t, meta.Capacity{Read: 100, Write: 100}, clk)
	ctx := t.Context()
	r, err := s.Create(ctx, window("a", 10, 10, time.Minute, time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Active(ctx, "a", "nope"); !errors.Is(err, meta.ErrNoSuchReservation) {
		t.Errorf("unknown ID: %v", err)
	}
	if _, err := s.Active(ctx, "b", r.ID); !IsKind(err, WrongBucket) {
		t.Errorf("another bucket's: %v", err)
	}
	if _, err := s.Active(ctx, "a", r.ID); !IsKind(err, NotActive) || !strings.Contains(err.Error(), "pending") {
		t.Errorf("before its start: %v", err)
	}
	clk.set(t0.Add(time.Minute))
	if got, err := s.Active(ctx, "a", r.ID); err != nil || got.ID != r.ID {
		t.Errorf("at its start: %+v, %v", got, err)
	}
	clk.set(t0.Add(time.Hour - time.Second))
	if _, err := s.Active(ctx, "a", r.ID); err != nil {
		t.Errorf("in its last second: %v", err)
	}
	clk.set(t0.Add(time.Hour))
	if _, err := s.Active(ctx, "a", r.ID); !IsKind(err, NotActive) || !strings.Contains(err.Error(), "expired") {
		t.Errorf("at its end: %v", err)
	}
	clk.set(t0.Add(2 * time.Minute))
	if _, err := s.Active(ctx, "a", r.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "a", r.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Active(ctx, "a", r.ID); !errors.Is(err, meta.ErrNoSuchReservation) {
		t.Errorf("cancelled, looked up within the cache's TTL: %v", err)
	}
}

// TestCacheTTL: a change this gateway did not make (here: straight to the
// store) is seen once CacheTTL has passed, not before.
func TestCacheTTL(t *testing.T) {
	clk := &clock{t: t0}
	s, st, r := cachedReservation(t, clk)
	ctx := t.Context()
	if err := st.DeleteReservation(ctx, "a", r.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Active(ctx, "a", r.ID); err != nil {
		t.Errorf("within the TTL the cached reservation still answers: %v", err)
	}
	clk.set(t0.Add(CacheTTL))
	if _, err := s.Active(ctx, "a", r.ID); !errors.Is(err, meta.ErrNoSuchReservation) {
		t.Errorf("after the TTL: %v, want it gone", err)
	}
}

func TestBound(t *testing.T) {
	clk := &clock{t: t0}
	s, _ := open(t, meta.Capacity{Read: 100, Write: 100}, clk)
	ctx := t.Context()
	const alice = "arn:aws:iam::1:user/alice"
	small := window("a", 10, 0, 0, time.Hour)
	small.Principal = alice
	big := window("a", 20, 0, 0, 30*time.Minute)
	big.Principal = alice
	for _, r := range []meta.Reservation{small, big, window("a", 50, 0, 0, time.Hour)} {
		if _, err := s.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if got, ok, err := s.Bound(ctx, "a", alice); err != nil || !ok || got.ReadBPS != 20 {
		t.Errorf("Bound(alice) = %+v, %v, %v; want the 20 B/s one", got, ok, err)
	}
	clk.set(t0.Add(30 * time.Minute))
	if got, ok, _ := s.Bound(ctx, "a", alice); !ok || got.ReadBPS != 10 {
		t.Errorf("after the bigger one ended: %+v, %v; want the 10 B/s one", got, ok)
	}
	for _, c := range []struct{ bucket, who string }{{"b", alice}, {"a", "arn:aws:iam::1:user/bob"}, {"a", ""}} {
		if _, ok, err := s.Bound(ctx, c.bucket, c.who); ok || err != nil {
			t.Errorf("Bound(%s, %q) = %v, %v; want none", c.bucket, c.who, ok, err)
		}
	}
}
