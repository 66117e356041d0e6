package meta

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
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
	// ReadBPS and WriteBPS are bytes per second; one may be 0, not both.
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

// Capacity is what the server can carry, in bytes per second per
// direction: the most reservations active at one instant may sum to.
type Capacity struct {
	Read, Write int64
}

// ErrNoSuchReservation reports a reservation ID the store does not hold
// (never made, cancelled, or of another bucket where the bucket is given).
var ErrNoSuchReservation = errors.New("no such reservation")

// CapacityError is CreateReservation's refusal: the reservation would make
// the reservations active at some instant of its window exceed the
// capacity. Free is the least capacity left, per direction, over the
// window (what a reservation of that window could still have).
type CapacityError struct {
	Free       Capacity
	Start, End time.Time
}

func (e *CapacityError) Error() string {
	return fmt.Sprintf("insufficient capacity: between %s and %s at most %d B/s of reads and %d B/s of writes are left to reserve",
		e.Start.UTC().Format(time.RFC3339), e.End.UTC().Format(time.RFC3339), e.Free.Read, e.Free.Write)
}

// ReservationStore keeps throughput reservations. Reservations belong to a
// bucket and are deleted with it.
type ReservationStore interface {
	// CreateReservation stores r if it fits: in the same transaction it
	// sums the reservations (of every bucket) overlapping r's window at
	// each instant of it (FreeCapacity) and refuses r with a
	// *CapacityError when r would exceed c in either direction, so two
	// concurrent creations cannot both pass. ErrBucketNotFound without
	// r.Bucket.
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

// Admit is CreateReservation's check, once a store holds the reservations
// overlapping r's window (others outside it count for nothing): nil when
// r fits in c beside them, else a *CapacityError naming what is left.
func Admit(overlapping []Reservation, r Reservation, c Capacity) error {
	free := FreeCapacity(overlapping, r.Start, r.End, c)
	if r.ReadBPS > free.Read || r.WriteBPS > free.Write {
		return &CapacityError{Free: Capacity{Read: max(free.Read, 0), Write: max(free.Write, 0)}, Start: r.Start, End: r.End}
	}
	return nil
}

// FreeCapacity returns the least capacity c leaves, per direction, at any
// instant of [start, end) once the reservations rs hold theirs: a sweep
// over the points where rs start and end. Reservations outside the window
// count for nothing; windows are half-open, so one ending when another
// starts does not overlap it. Free capacity may be negative when c shrank
// below what was admitted.
func FreeCapacity(rs []Reservation, start, end time.Time, c Capacity) Capacity {
	type event struct {
		at          time.Time
		read, write int64
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
		evs = append(evs, event{s, r.ReadBPS, r.WriteBPS}, event{r.End, -r.ReadBPS, -r.WriteBPS})
	}
	slices.SortFunc(evs, func(a, b event) int { return a.at.Compare(b.at) })
	var read, write, peakRead, peakWrite int64
	for i, e := range evs {
		read += e.read
		write += e.write
		// The sums hold from e.at to the next event; measure them once
		// every event at this instant is counted.
		if i+1 < len(evs) && evs[i+1].at.Equal(e.at) {
			continue
		}
		peakRead, peakWrite = max(peakRead, read), max(peakWrite, write)
	}
	return Capacity{Read: c.Read - peakRead, Write: c.Write - peakWrite}
}
