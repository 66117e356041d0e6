package meta

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jogstore/jog/internal/units"
)

// Reservation is a throughput reservation on a bucket for a window of time
// (issue 23, docs/QOS.md): bytes per second of reads and of writes, and
// optionally requests per second, from Start (inclusive) to End
// (exclusive), UTC to the second. internal/qos owns its rules (valid
// windows and rates, its state at an instant); the store keeps it and
// admits it against the server's capacity.
type Reservation struct {
	ID     string // random, URL-safe
	Bucket string
	// ReadBPS and WriteBPS are bytes per second; any of the three rates
	// may be 0, not all.
	ReadBPS  int64
	WriteBPS int64
	// RequestsPerSecond is 0 when the reservation reserves no request rate.
	RequestsPerSecond int64
	Start, End        time.Time
	// Owner is the ARN of the principal that made the reservation.
	Owner string
	// Principal, when set, is the ARN of a principal whose requests to
	// Bucket draw on the reservation without naming it.
	Principal string
	CreatedAt time.Time
}

// Capacity is what the server can carry per direction — bytes per second
// of reads and of writes, requests per second — the most reservations
// active at one instant may sum to. A direction of 0 has no capacity: no
// reservation of it fits.
type Capacity struct {
	Read, Write int64 // bytes/s
	Requests    int64 // requests/s
}

// ErrNoSuchReservation reports a reservation ID the store does not hold
// (never made, cancelled, or of another bucket where the bucket is given).
var ErrNoSuchReservation = errors.New("no such reservation")

// MaxReservationsPerBucket bounds the reservations of one bucket that
// have not ended: each is summed at every admission overlapping it and
// scanned by the data path's lookups, so their number is kept small.
// Expired ones do not count (they stay listed until cancelled).
const MaxReservationsPerBucket = 100

// ErrTooManyReservations is CreateReservation's refusal of a reservation
// that would give its bucket more than MaxReservationsPerBucket that have
// not ended.
var ErrTooManyReservations = errors.New("too many reservations")

// AdmitCount is CreateReservation's check, under the transaction that inserts
// r, given live, the number of r's bucket's reservations that have not
// ended at r.CreatedAt: ErrTooManyReservations (wrapped, naming the bucket)
// when r would be one too many.
func AdmitCount(r Reservation, live int) error {
	if live >= MaxReservationsPerBucket {
		return fmt.Errorf("%w: bucket %s has %d reservations that have not ended, the most it may have",
			ErrTooManyReservations, r.Bucket, live)
	}
	return nil
}

// CapacityError is CreateReservation's refusal: the reservation would make
// the reservations active at some instant of its window exceed the
// capacity. Free is the least capacity left, per direction, over the
// window (what a reservation of that window could still have).
type CapacityError struct {
	Free       Capacity
	Start, End time.Time
}

func (e *CapacityError) Error() string {
	return fmt.Sprintf("insufficient capacity: between %s and %s at most %s of reads, %s of writes and %d requests/s are left to reserve",
		e.Start.UTC().Format(time.RFC3339), e.End.UTC().Format(time.RFC3339), units.Rate(e.Free.Read), units.Rate(e.Free.Write), e.Free.Requests)
}

// Admit decides whether r fits in c given overlapping, the reservations
// whose windows overlap r's (as a store reads them in the transaction
// that inserts r): nil, or a *CapacityError naming what is left per
// direction (never negative) when r asks more than FreeCapacity leaves in
// any direction — a request rate included, so a server without request
// capacity refuses every request-rate reservation.
func Admit(overlapping []Reservation, r Reservation, c Capacity) error {
	free := FreeCapacity(overlapping, r.Start, r.End, c)
	if r.ReadBPS > free.Read || r.WriteBPS > free.Write || r.RequestsPerSecond > free.Requests {
		return &CapacityError{Free: Capacity{Read: max(free.Read, 0), Write: max(free.Write, 0), Requests: max(free.Requests, 0)},
			Start: r.Start, End: r.End}
	}
	return nil
}

// ReservationStore keeps throughput reservations. Reservations belong to a
// bucket and are deleted with it.
type ReservationStore interface {
	// CreateReservation stores r if it fits: in the same transaction it
	// counts r.Bucket's reservations that have not ended at r.CreatedAt
	// (the instant of admission) and refuses r with
	// ErrTooManyReservations when it would make more than
	// MaxReservationsPerBucket (AdmitCount); it sums the reservations (of
	// every bucket) overlapping r's window at each instant of it
	// (FreeCapacity, Admit) and refuses r with a *CapacityError when r
	// would exceed c in any direction; so two concurrent creations cannot
	// both pass either check. ErrBucketNotFound without r.Bucket.
	CreateReservation(ctx context.Context, r Reservation, c Capacity) error
	// GetReservation returns the reservation with id, whatever its
	// bucket (ErrNoSuchReservation).
	GetReservation(ctx context.Context, id string) (Reservation, error)
	// ListReservations returns bucket's reservations, expired ones
	// included, by start time then ID (ErrBucketNotFound).
	ListReservations(ctx context.Context, bucket string) ([]Reservation, error)
	// ReservationsBetween returns every bucket's reservations whose
	// window overlaps [from, to) (windows are half-open), by start time
	// then ID: what the data path's scheduler must register over that
	// span (qos.Activator).
	ReservationsBetween(ctx context.Context, from, to time.Time) ([]Reservation, error)
	// DeleteReservation cancels bucket's reservation id
	// (ErrNoSuchReservation when bucket has none with that ID).
	DeleteReservation(ctx context.Context, bucket, id string) error
}

// FreeCapacity returns the least capacity c leaves, per direction, at any
// instant of [start, end) once the reservations rs hold theirs: a sweep
// over the points where rs start and end. Reservations outside the window
// count for nothing; windows are half-open, so one ending when another
// starts does not overlap it. Free capacity may be negative when c shrank
// below what was admitted.
func FreeCapacity(rs []Reservation, start, end time.Time, c Capacity) Capacity {
	type event struct {
		at   time.Time
		rate Capacity // added at at (negative: removed)
	}
	var evs []event
	for _, r := range rs {
		if !r.Start.Before(end) || !r.End.After(start) {
			continue
		}
		s := r.Start
		if s.Before(start) {
			s = start
		}
		evs = append(evs, event{s, Capacity{r.ReadBPS, r.WriteBPS, r.RequestsPerSecond}},
			event{r.End, Capacity{-r.ReadBPS, -r.WriteBPS, -r.RequestsPerSecond}})
	}
	slices.SortFunc(evs, func(a, b event) int { return a.at.Compare(b.at) })
	var sum, peak Capacity
	for i, e := range evs {
		sum = Capacity{sum.Read + e.rate.Read, sum.Write + e.rate.Write, sum.Requests + e.rate.Requests}
		// The sums hold from e.at to the next event; measure them once
		// every event at this instant is counted.
		if i+1 < len(evs) && evs[i+1].at.Equal(e.at) {
			continue
		}
		peak = Capacity{max(peak.Read, sum.Read), max(peak.Write, sum.Write), max(peak.Requests, sum.Requests)}
	}
	return Capacity{Read: c.Read - peak.Read, Write: c.Write - peak.Write, Requests: c.Requests - peak.Requests}
}
