package qos

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// CacheTTL is how long Active and Bound trust what they read from the
// store. This gateway's own creations and cancellations drop the cache at
// once; the TTL bounds how long one made through another gateway sharing
// the store (PostgreSQL, issue 24) takes to be seen when the store does not
// announce it (StoreChanged). States are computed from the cached times
// at each call, so expiry is exact to the second whatever the TTL.
const CacheTTL = 2 * time.Second

// maxCached bounds the IDs Active remembers.
const maxCached = 10000

// Reservations is the reservation service: the store, the capacity it
// admits against, and the cache the data path's lookups read. It is safe
// for concurrent use.
type Reservations struct {
	store    meta.ReservationStore
	capacity meta.Capacity
	now      func() time.Time

	mu    sync.RWMutex
	byID  map[string]cached      // Active's lookups, found or not
	bound map[string]cachedBound // Bound's lookups, by bucket
	gen   uint64                 // bumped by every own write

	onChange func()      // OnChange
	anyBound func() bool // BoundHint
}

type cached struct {
	r     meta.Reservation
	found bool
	at    time.Time
}

type cachedBound struct {
	rs []meta.Reservation // the bucket's reservations with a Principal
	at time.Time
}

// New returns the service over store admitting against capacity (a
// direction of 0 refuses every reservation of that direction); now is the
// clock (time.Now when nil).
func New(store meta.ReservationStore, capacity meta.Capacity, now func() time.Time) *Reservations {
	if now == nil {
		now = time.Now
	}
	return &Reservations{store: store, capacity: capacity, now: now,
		byID: map[string]cached{}, bound: map[string]cachedBound{}}
}

// OnChange sets f to be called after every creation, cancellation and
// bucket deletion on this gateway (the Activator's Changed). Set it
// before the service is used.
func (s *Reservations) OnChange(f func()) { s.onChange = f }

// BoundHint gives Bound a cheap answer to "is any reservation bound to a
// principal active?" (Activator.AnyBound): while it says no, Bound returns
// at once, without a lookup.
func (s *Reservations) BoundHint(f func() bool) { s.anyBound = f }

// Capacity returns the capacity reservations are admitted against.
func (s *Reservations) Capacity() meta.Capacity { return s.capacity }

// Create validates r (Validate), moves a Start in the past (at most
// MaxPast) to now, gives it an ID and its creation time, and stores it if
// its bucket has fewer than meta.MaxReservationsPerBucket that have not
// ended and the reservable part of the capacity (Reservable: 95%) holds
// it over its whole window: *Error of kind Invalid or NoCapacity,
// meta.ErrTooManyReservations, *meta.CapacityError, meta.ErrBucketNotFound.
func (s *Reservations) Create(ctx context.Context, r meta.Reservation) (meta.Reservation, error) {
	now := s.now().UTC()
	r.Start, r.End = r.Start.UTC(), r.End.UTC()
	if err := Validate(r, now); err != nil {
		return meta.Reservation{}, err
	}
	if r.Start.Before(now) {
		r.Start = now.Truncate(time.Second) // End is after now: the window is not empty
	}
	if err := noCapacity(r, s.capacity); err != nil {
		return meta.Reservation{}, err
	}
	r.ID, r.CreatedAt = NewID(), now.Truncate(time.Second)
	err := s.store.CreateReservation(ctx, r, Reservable(s.capacity))
	s.invalidate()
	if err != nil {
		return meta.Reservation{}, err
	}
	return r, nil
}

// Get returns bucket's reservation id (meta.ErrNoSuchReservation when it
// is another bucket's or none).
func (s *Reservations) Get(ctx context.Context, bucket, id string) (meta.Reservation, error) {
	r, err := s.store.GetReservation(ctx, id)
	if err == nil && r.Bucket != bucket {
		err = meta.ErrNoSuchReservation
	}
	return r, err
}

// List returns bucket's reservations, expired ones included.
func (s *Reservations) List(ctx context.Context, bucket string) ([]meta.Reservation, error) {
	return s.store.ListReservations(ctx, bucket)
}

// Delete cancels bucket's reservation id: it stops applying at once on
// this gateway (within CacheTTL on others sharing the store).
func (s *Reservations) Delete(ctx context.Context, bucket, id string) error {
	err := s.store.DeleteReservation(ctx, bucket, id)
	s.invalidate()
	return err
}

// StateAt returns r's state at the service's clock.
func (s *Reservations) State(r meta.Reservation) State { return StateAt(r, s.now()) }

// Active returns the reservation id a request to bucket presents, if it
// may draw on it now: meta.ErrNoSuchReservation when unknown, *Error of
// kind WrongBucket when it is another bucket's, of kind NotActive when
// pending or expired. Lookups are cached (CacheTTL): a request costs a
// map lookup, not a query.
func (s *Reservations) Active(ctx context.Context, bucket, id string) (meta.Reservation, error) {
	now := s.now()
	s.mu.RLock()
	c, ok := s.byID[id]
	s.mu.RUnlock()
	if !ok || now.Sub(c.at) >= CacheTTL {
		gen := s.generation()
		r, err := s.store.GetReservation(ctx, id)
		if err != nil && !errors.Is(err, meta.ErrNoSuchReservation) {
			return meta.Reservation{}, err
		}
		c = cached{r: r, found: err == nil, at: now}
		s.storeIf(gen, func() {
			if len(s.byID) >= maxCached { // IDs a client made up must not grow it for ever
				clear(s.byID)
			}
			s.byID[id] = c
		})
	}
	switch {
	case !c.found:
		return meta.Reservation{}, fmt.Errorf("%w: %s", meta.ErrNoSuchReservation, id)
	case c.r.Bucket != bucket:
		return meta.Reservation{}, &Error{Kind: WrongBucket, Msg: fmt.Sprintf(
			"reservation %s is for bucket %s, not %s", id, c.r.Bucket, bucket)}
	}
	if st := StateAt(c.r, now); st != Active {
		return meta.Reservation{}, &Error{Kind: NotActive, Msg: fmt.Sprintf(
			"reservation %s is %s: its window is %s to %s", id, st,
			c.r.Start.Format(time.RFC3339), c.r.End.Format(time.RFC3339))}
	}
	return c.r, nil
}

// Bound returns the reservation bound to principal (an ARN) on bucket
// that is active now, if any. With several, the one with the most
// throughput reserved (reads and writes summed) wins. Cached per bucket
// (CacheTTL).
func (s *Reservations) Bound(ctx context.Context, bucket, principal string) (meta.Reservation, bool, error) {
	if principal == "" || (s.anyBound != nil && !s.anyBound()) {
		return meta.Reservation{}, false, nil
	}
	now := s.now()
	s.mu.RLock()
	c, ok := s.bound[bucket]
	s.mu.RUnlock()
	if !ok || now.Sub(c.at) >= CacheTTL {
		gen := s.generation()
		all, err := s.store.ListReservations(ctx, bucket)
		if err != nil && !errors.Is(err, meta.ErrBucketNotFound) {
			return meta.Reservation{}, false, err
		}
		c = cachedBound{at: now}
		for _, r := range all {
			if r.Principal != "" && StateAt(r, now) != Expired {
				c.rs = append(c.rs, r)
			}
		}
		s.storeIf(gen, func() { s.bound[bucket] = c })
	}
	var best meta.Reservation
	found := false
	for _, r := range c.rs {
		if r.Principal == principal && StateAt(r, now) == Active &&
			(!found || r.ReadBPS+r.WriteBPS > best.ReadBPS+best.WriteBPS) {
			best, found = r, true
		}
	}
	return best, found, nil
}

func (s *Reservations) generation() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.gen
}

// BucketDeleted tells the service a bucket was deleted (with its
// reservations, by the store): lookups cached for it are dropped, so a
// bucket created again under the name starts with none.
func (s *Reservations) BucketDeleted(string) { s.invalidate() }

// StoreChanged tells the service that another process sharing the store
// created or removed reservations (meta.ChangedReservations, or
// meta.ChangedAll: relayed by the server from meta.Changes): cached
// lookups are dropped and the Activator reads the store again (OnChange),
// as after a write on this gateway. Without it, such a change applies
// within CacheTTL here and PollInterval in the scheduler.
func (s *Reservations) StoreChanged() { s.invalidate() }

// storeIf runs put, which caches a lookup, under the lock unless this
// gateway wrote since gen: a lookup that raced with a write is not kept.
func (s *Reservations) storeIf(gen uint64, put func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen == gen {
		put()
	}
}

// invalidate drops every cached lookup: after this gateway's own writes,
// and lookups that raced with them are not stored (the generation moved).
func (s *Reservations) invalidate() {
	s.mu.Lock()
	s.gen++
	clear(s.byID)
	clear(s.bound)
	s.mu.Unlock()
	if s.onChange != nil {
		s.onChange()
	}
}
