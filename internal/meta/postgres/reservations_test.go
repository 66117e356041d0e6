package postgres

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// TestReservationsAcrossGateways: two stores on one database (two
// gateways) admitting reservations at once never admit more than the
// capacity between them: admission is serial across gateways.
func TestReservationsAcrossGateways(t *testing.T) {
	gws := gateways(t, 2)
	ctx := t.Context()
	for _, b := range []string{"a", "b"} {
		if err := gws[0].CreateBucket(ctx, meta.Bucket{Name: b, Region: "us-east-1", Owner: "owner", CreatedAt: meta.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	c := meta.Capacity{Read: 1000, Write: 500}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// Windows of one to three hours, all overlapping the first hour, in
	// both buckets: each takes a tenth of the reads.
	errs := race(gws, 24, func(s *Store, g, i int) error {
		return s.CreateReservation(ctx, meta.Reservation{ID: fmt.Sprintf("g%d-%02d", g, i), Bucket: []string{"a", "b"}[i%2],
			ReadBPS: c.Read / 10, WriteBPS: 1, Start: base, End: base.Add(time.Duration(1+i%3) * time.Hour),
			Owner: "arn:aws:iam::000000000000:root", CreatedAt: base}, c)
	})
	ok := passed(t, "CreateReservation", errs, func(err error) bool {
		var ce *meta.CapacityError
		return errors.As(err, &ce)
	})
	if ok != 10 {
		t.Errorf("%d of %d racing creations passed, want exactly 10", ok, len(errs))
	}
	// What the database holds fits, seen from either gateway.
	all, err := gws[1].ReservationsBetween(ctx, base, base.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != ok {
		t.Errorf("%d reservations stored, %d admitted", len(all), ok)
	}
	if free := meta.FreeCapacity(all, base, base.Add(24*time.Hour), c); free.Read < 0 || free.Write < 0 {
		t.Errorf("stored reservations exceed the capacity: free %+v", free)
	}
}
