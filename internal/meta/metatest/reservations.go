package metatest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// RunReservations runs the cases of meta.ReservationStore (Reservations/...).
func RunReservations(t *testing.T, open Opener) { run(t, open, reservationCases) }

var reservationCases = []testCase{
	{"Reservations/RoundTrip", testReservationsRoundTrip},
	{"Reservations/Admission", testReservationsAdmission},
	{"Reservations/RequestRate", testReservationsRequestRate},
	{"Reservations/ConcurrentAdmission", testReservationsConcurrentAdmission},
	{"Reservations/PerBucketLimit", testReservationsPerBucketLimit},
	{"Reservations/BucketDelete", testReservationsBucketDelete},
	{"Reservations/Between", testReservationsBetween},
}

// rsv is a reservation of bucket from hour a to hour b after t0 (whole
// seconds, as stores keep them).
func rsv(id, bucket string, read, write int64, a, b int) meta.Reservation {
	base := t0.Truncate(time.Second)
	return meta.Reservation{ID: id, Bucket: bucket, ReadBPS: read, WriteBPS: write,
		Start: base.Add(time.Duration(a) * time.Hour), End: base.Add(time.Duration(b) * time.Hour),
		Owner: "arn:aws:iam::000000000000:root", CreatedAt: base}
}

func testReservationsRoundTrip(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	mkBucket(t, s, "other")
	capacity := meta.Capacity{Read: 1000, Write: 1000, Requests: 1000}
	want := rsv("r1", "b", 100, 0, 1, 2)
	want.RequestsPerSecond = 50
	want.Principal = "arn:aws:iam::000000000000:user/alice"
	createReservations(t, s, capacity, rsv("r2", "b", 0, 5, 0, 3), want, rsv("r3", "other", 1, 1, 0, 1))
	got, err := s.GetReservation(ctx, "r1")
	if err != nil {
		t.Fatalf("GetReservation: %v", err)
	}
	if !got.Start.Equal(want.Start) || !got.End.Equal(want.End) || !got.CreatedAt.Equal(want.CreatedAt) {
		t.Errorf("GetReservation times = %v %v %v, want %v %v %v", got.Start, got.End, got.CreatedAt, want.Start, want.End, want.CreatedAt)
	}
	got.Start, got.End, got.CreatedAt = want.Start, want.End, want.CreatedAt
	if got != want {
		t.Errorf("GetReservation = %+v, want %+v", got, want)
	}
	_, err = s.GetReservation(ctx, "nope")
	wantErr(t, "GetReservation(nope)", err, meta.ErrNoSuchReservation)

	list, err := s.ListReservations(ctx, "b")
	if err != nil {
		t.Fatalf("ListReservations: %v", err)
	}
	if ids := reservationIDs(list); !slices.Equal(ids, []string{"r2", "r1"}) {
		t.Errorf("ListReservations(b) = %q, want [r2 r1] (by start)", ids)
	}
	_, err = s.ListReservations(ctx, "missing")
	wantErr(t, "ListReservations(missing)", err, meta.ErrBucketNotFound)
	err = s.CreateReservation(ctx, rsv("r9", "missing", 1, 1, 0, 1), capacity)
	wantErr(t, "CreateReservation(missing bucket)", err, meta.ErrBucketNotFound)

	// Cancelling is per bucket: another bucket's ID is not found there.
	wantErr(t, "DeleteReservation(other's)", s.DeleteReservation(ctx, "b", "r3"), meta.ErrNoSuchReservation)
	if err := s.DeleteReservation(ctx, "b", "r1"); err != nil {
		t.Fatalf("DeleteReservation: %v", err)
	}
	wantErr(t, "DeleteReservation again", s.DeleteReservation(ctx, "b", "r1"), meta.ErrNoSuchReservation)
	_, err = s.GetReservation(ctx, "r1")
	wantErr(t, "GetReservation after delete", err, meta.ErrNoSuchReservation)
}

// createReservations creates rs in s against c, failing the test on any
// error.
func createReservations(t *testing.T, s meta.Store, c meta.Capacity, rs ...meta.Reservation) {
	t.Helper()
	for _, r := range rs {
		if err := s.CreateReservation(t.Context(), r, c); err != nil {
			t.Fatalf("CreateReservation(%s): %v", r.ID, err)
		}
	}
}

func reservationIDs(rs []meta.Reservation) []string {
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.ID)
	}
	return ids
}

// testReservationsAdmission: capacity is server-wide, summed at each
// instant, windows half-open; a refusal names the least left and stores
// nothing.
func testReservationsAdmission(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "a")
	mkBucket(t, s, "b")
	c := meta.Capacity{Read: 300, Write: 150}
	createReservations(t, s, c,
		rsv("x", "a", 100, 50, 0, 2), // hours 0–2
		rsv("y", "b", 100, 50, 1, 3), // hours 1–3: 200/100 in hour 1–2
	)
	// Exactly what is left in hour 1–2 fits.
	if err := s.CreateReservation(ctx, rsv("fit", "a", 100, 50, 0, 4), c); err != nil {
		t.Fatalf("an exact fit was refused: %v", err)
	}
	// Now full over hours 1–2; hour 3–4 has all but fit's.
	err := s.CreateReservation(ctx, rsv("over", "b", 1, 0, 1, 4), c)
	var ce *meta.CapacityError
	if !errors.As(err, &ce) {
		t.Fatalf("CreateReservation over capacity: err = %v, want *meta.CapacityError", err)
	}
	if ce.Free != (meta.Capacity{Read: 0, Write: 0}) {
		t.Errorf("CapacityError.Free = %+v, want {0 0}", ce.Free)
	}
	err = s.CreateReservation(ctx, rsv("late", "b", 201, 0, 3, 5), c)
	if !errors.As(err, &ce) || ce.Free != (meta.Capacity{Read: 200, Write: 100}) {
		t.Errorf("CreateReservation(late) = %v, want free {200 100}", err)
	}
	// Back to back with the full hours is not an overlap.
	if err := s.CreateReservation(ctx, rsv("after", "b", 200, 100, 3, 5), c); err != nil {
		t.Errorf("a reservation starting when others end was refused: %v", err)
	}
	list, _ := s.ListReservations(ctx, "b")
	if ids := reservationIDs(list); !slices.Equal(ids, []string{"y", "after"}) {
		t.Errorf("ListReservations(b) = %q, want [y after]: a refusal stored nothing", ids)
	}
	// Cancelling frees the capacity.
	if err := s.DeleteReservation(ctx, "a", "fit"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateReservation(ctx, rsv("over", "b", 1, 0, 1, 2), c); err != nil {
		t.Errorf("CreateReservation after a cancel: %v", err)
	}
}

// testReservationsRequestRate: requests per second are admitted like
// bytes, summed at each instant against the request capacity; without a
// request capacity a request-rate reservation is refused (0 left) while
// one of bytes alone still fits.
func testReservationsRequestRate(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "a")
	mkBucket(t, s, "b")
	withRPS := func(r meta.Reservation, rps int64) meta.Reservation { r.RequestsPerSecond = rps; return r }
	c := meta.Capacity{Read: 1000, Write: 1000, Requests: 100}
	createReservations(t, s, c,
		withRPS(rsv("x", "a", 10, 0, 0, 2), 60), // hours 0–2
		withRPS(rsv("y", "b", 0, 10, 1, 3), 40), // hours 1–3: 100 requests/s in hour 1–2, an exact fit
	)
	var ce *meta.CapacityError
	err := s.CreateReservation(ctx, withRPS(rsv("over", "a", 1, 0, 1, 4), 1), c)
	if !errors.As(err, &ce) || ce.Free != (meta.Capacity{Read: 990, Write: 990, Requests: 0}) {
		t.Fatalf("one request/s over the request capacity: %v, want a *meta.CapacityError with {990 990 0} free", err)
	}
	if want := "990 B/s of reads, 990 B/s of writes and 0 requests/s are left"; !strings.Contains(err.Error(), want) {
		t.Errorf("the refusal %q does not say %q", err, want)
	}
	// Hours 2–3 hold y's 40 only.
	err = s.CreateReservation(ctx, withRPS(rsv("late", "b", 1, 0, 2, 3), 61), c)
	if !errors.As(err, &ce) || ce.Free.Requests != 60 {
		t.Errorf("61 requests/s where 60 are left: %v, want Free.Requests 60", err)
	}
	createReservations(t, s, c, withRPS(rsv("fit", "b", 1, 0, 2, 3), 60))

	// No request capacity: a request rate never fits, bytes alone do.
	bytesOnly := meta.Capacity{Read: 1000, Write: 1000}
	err = s.CreateReservation(ctx, withRPS(rsv("norps", "a", 1, 0, 5, 6), 1), bytesOnly)
	if !errors.As(err, &ce) || ce.Free != (meta.Capacity{Read: 1000, Write: 1000, Requests: 0}) {
		t.Errorf("a request rate without request capacity: %v, want a *meta.CapacityError with {1000 1000 0} free", err)
	}
	createReservations(t, s, bytesOnly, rsv("bytes", "a", 1000, 1000, 5, 6))
	list, _ := s.ListReservations(ctx, "a")
	if ids := reservationIDs(list); !slices.Equal(ids, []string{"x", "bytes"}) {
		t.Errorf("ListReservations(a) = %q, want [x bytes]: refusals store nothing", ids)
	}
}

// testReservationsConcurrentAdmission: of many creations racing for the
// same capacity, exactly as many as fit pass.
func testReservationsConcurrentAdmission(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	c := meta.Capacity{Read: 1000, Write: 1000}
	const n, fit = 32, 10
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.CreateReservation(ctx, rsv(fmt.Sprintf("r%02d", i), "b", c.Read/fit, 0, 0, 1+i%3), c)
		}()
	}
	wg.Wait()
	passed := 0
	for i, err := range errs {
		var ce *meta.CapacityError
		switch {
		case err == nil:
			passed++
		case !errors.As(err, &ce):
			t.Errorf("creation %d: %v, want nil or *meta.CapacityError", i, err)
		}
	}
	if passed != fit {
		t.Errorf("%d of %d racing creations passed, want exactly %d", passed, n, fit)
	}
}

// testReservationsPerBucketLimit: a bucket holds at most
// meta.MaxReservationsPerBucket reservations that have not ended at the
// new one's CreatedAt; ended ones do not count, nor other buckets'; a
// refusal stores nothing, and a cancel makes room.
func testReservationsPerBucketLimit(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	mkBucket(t, s, "other")
	c := meta.Capacity{Read: 1 << 20}
	createReservations(t, s, c, rsv("ended", "b", 1, 0, -2, 0)) // ends at CreatedAt: not counted
	for i := range meta.MaxReservationsPerBucket {
		createReservations(t, s, c, rsv(fmt.Sprintf("r%03d", i), "b", 1, 0, i%5, 6))
	}
	err := s.CreateReservation(ctx, rsv("one-too-many", "b", 1, 0, 7, 8), c)
	wantErr(t, "CreateReservation past the bound", err, meta.ErrTooManyReservations)
	if err != nil && !strings.Contains(err.Error(), "bucket b") {
		t.Errorf("the refusal %q does not name the bucket", err)
	}
	_, err = s.GetReservation(ctx, "one-too-many")
	wantErr(t, "GetReservation(refused)", err, meta.ErrNoSuchReservation)
	createReservations(t, s, c, rsv("elsewhere", "other", 1, 0, 0, 1))
	if err := s.DeleteReservation(ctx, "b", "r000"); err != nil {
		t.Fatal(err)
	}
	createReservations(t, s, c, rsv("room", "b", 1, 0, 7, 8))
}

func testReservationsBucketDelete(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	c := meta.Capacity{Read: 100, Write: 100}
	if err := s.CreateReservation(ctx, rsv("r", "b", 100, 100, 0, 1), c); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteBucket(ctx, "b"); err != nil {
		t.Fatalf("DeleteBucket with a reservation: %v", err)
	}
	_, err := s.GetReservation(ctx, "r")
	wantErr(t, "GetReservation after DeleteBucket", err, meta.ErrNoSuchReservation)
	mkBucket(t, s, "b")
	if err := s.CreateReservation(ctx, rsv("r2", "b", 100, 100, 0, 1), c); err != nil {
		t.Errorf("the deleted bucket's reservation still holds capacity: %v", err)
	}
}

// testReservationsBetween: every bucket's reservations overlapping a
// half-open span, by start then ID; one ending at the span's start or
// starting at its end is outside it.
func testReservationsBetween(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "a")
	mkBucket(t, s, "b")
	createReservations(t, s, meta.Capacity{Read: 1000, Write: 1000},
		rsv("early", "a", 1, 0, 0, 1), // ends when the span starts
		rsv("z", "b", 1, 0, 0, 3),
		rsv("y", "a", 0, 1, 2, 3),
		rsv("late", "b", 1, 0, 3, 4), // starts when the span ends
		rsv("x", "b", 1, 1, 2, 5),
	)
	base := t0.Truncate(time.Second)
	got, err := s.ReservationsBetween(ctx, base.Add(time.Hour), base.Add(3*time.Hour))
	if err != nil {
		t.Fatalf("ReservationsBetween: %v", err)
	}
	if ids := reservationIDs(got); !slices.Equal(ids, []string{"z", "x", "y"}) {
		t.Errorf("ReservationsBetween(1h, 3h) = %q, want [z x y]", ids)
	}
	if len(got) == 3 && (got[1].Bucket != "b" || got[1].ReadBPS != 1 || !got[1].End.Equal(base.Add(5*time.Hour))) {
		t.Errorf("ReservationsBetween: x = %+v", got[1])
	}
	got, err = s.ReservationsBetween(ctx, base.Add(10*time.Hour), base.Add(11*time.Hour))
	if err != nil || len(got) != 0 {
		t.Errorf("ReservationsBetween(10h, 11h) = %v, %v; want none", got, err)
	}
}
