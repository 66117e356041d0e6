package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// TestReservationsAcrossGateways: two stores on one database (two
// gateways) admitting reservations at once never admit more than the
// capacity between them: admission is serial across gateways.
func TestReservationsAcrossGateways(t *testing.T) {
	url := openURL(t)
	ctx := context.Background()
	var gateways [2]*Store
	for i := range gateways {
		s, err := Open(ctx, url, Options{MaxConns: 8})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		gateways[i] = s
	}
	for _, b := range []string{"a", "b"} {
		if _, err := gateways[0].pool.Exec(ctx,
			"INSERT INTO buckets (name, region, owner, created_at) VALUES ($1, 'us-east-1', 'owner', 0)", b); err != nil {
			t.Fatal(err)
		}
	}
	c := meta.Capacity{Read: 1000, Write: 500}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const perGateway = 24
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		errs  [2][perGateway]error
	)
	for g, s := range gateways {
		for i := range perGateway {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Windows of one to three hours, all overlapping the first
				// hour, in both buckets: each takes a tenth of the reads.
				r := meta.Reservation{ID: fmt.Sprintf("g%d-%02d", g, i), Bucket: []string{"a", "b"}[i%2],
					ReadBPS: c.Read / 10, WriteBPS: 1, Start: base, End: base.Add(time.Duration(1+i%3) * time.Hour),
					Owner: "arn:aws:iam::000000000000:root", CreatedAt: base}
				<-start
				errs[g][i] = s.CreateReservation(ctx, r, c)
			}()
		}
	}
	close(start)
	wg.Wait()
	passed := 0
	for g := range errs {
		for i, err := range errs[g] {
			var ce *meta.CapacityError
			switch {
			case err == nil:
				passed++
			case !errors.As(err, &ce):
				t.Errorf("gateway %d creation %d: %v, want nil or *meta.CapacityError", g, i, err)
			}
		}
	}
	if passed != 10 {
		t.Errorf("%d of %d racing creations passed, want exactly 10", passed, 2*perGateway)
	}
	// What the database holds fits, seen from either gateway.
	all, err := gateways[1].ReservationsBetween(ctx, base, base.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != passed {
		t.Errorf("%d reservations stored, %d admitted", len(all), passed)
	}
	if free := meta.FreeCapacity(all, base, base.Add(24*time.Hour), c); free.Read < 0 || free.Write < 0 {
		t.Errorf("stored reservations exceed the capacity: free %+v", free)
	}
}
