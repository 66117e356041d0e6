package sched

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCoreRandomOperations applies random enqueues, cancels, dispatches,
// reservation changes and capacity changes to a core and checks its
// bookkeeping after each step: every waiting request is queued exactly once
// at the client it was charged to, nothing is granted twice or lost, and
// in the end everything is granted.
func TestCoreRandomOperations(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { randomOperations(t, seed) })
	}
}

func randomOperations(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 23))
	c := newCore(10*mb, simChunk, DefaultBestEffortShare, 1)
	ids := []string{"r1", "r2", "r3"}
	principals := []string{"", "a", "b"}
	var waiting []*request
	granted := make(map[*request]bool)
	now := 0.0
	take := func(g []*request) {
		for _, r := range g {
			if granted[r] || !r.granted {
				t.Fatalf("request granted twice or not marked")
			}
			granted[r] = true
			i := slices.Index(waiting, r)
			if i < 0 {
				t.Fatalf("granted a request that was not waiting")
			}
			waiting = slices.Delete(waiting, i, i+1)
		}
	}
	for step := range 3000 {
		switch op := rng.IntN(10); {
		case op < 4:
			r := &request{n: 1 + rng.Int64N(simChunk), off: rng.Int64N(3 * simChunk), principal: principals[rng.IntN(len(principals))]}
			if rng.IntN(2) == 0 {
				r.res = ids[rng.IntN(len(ids))]
			}
			if c.pacing == 0 {
				break // Direction.waitChunk: unscheduled, granted at once
			}
			c.enqueue(now, r)
			waiting = append(waiting, r)
		case op < 5 && len(waiting) > 0:
			i := rng.IntN(len(waiting))
			c.cancel(now, waiting[i])
			waiting = slices.Delete(waiting, i, i+1)
		case op < 8:
			now += rng.Float64() * 0.02
			g, next := c.dispatch(now, nil)
			if next <= now {
				t.Fatalf("step %d: next grant %v not after now %v", step, next, now)
			}
			take(g)
		case op < 9:
			id := ids[rng.IntN(len(ids))]
			if rng.IntN(2) == 0 {
				rate := 1 + rng.Float64()*3*mb
				s := Spec{Rate: rate, Weight: 1 + float64(rng.IntN(3))}
				if rng.IntN(2) == 0 {
					s.Limit = rate * (1 + rng.Float64())
				}
				if rng.IntN(3) == 0 {
					s.Head = 1 + rng.Int64N(2*simChunk)
				}
				take(c.reserve(id, s, nil))
			} else {
				take(c.release(now, id, nil))
			}
		default:
			c.capacity = float64(rng.IntN(3)) * 10 * mb // 0 is unpaced
		}
		checkCore(t, c, waiting)
	}
	// Liveness: time moving on grants everything still waiting.
	for i := 0; len(waiting) > 0; i++ {
		if i > 100000 {
			t.Fatalf("%d requests never granted", len(waiting))
		}
		g, next := c.dispatch(now, nil)
		take(g)
		if len(waiting) > 0 {
			now = next
		}
	}
	checkCore(t, c, waiting)
}

func checkCore(t *testing.T, c *core, waiting []*request) {
	t.Helper()
	queued := 0
	be, reserved := 0, 0
	for i, cl := range c.backlog {
		if len(cl.q) == 0 || slices.Index(c.backlog, cl) != i {
			t.Fatalf("backlog holds an empty or repeated client %v", cl.key)
		}
		if c.clients[cl.key] != cl {
			t.Fatalf("backlogged client %v is not registered", cl.key)
		}
		if !cl.key.reserved {
			be++
		}
		for _, r := range cl.q {
			if r.cl != cl || r.granted || slices.Index(waiting, r) < 0 {
				t.Fatalf("queued request of %v is misfiled", cl.key)
			}
		}
		queued += len(cl.q)
	}
	if queued != len(waiting) {
		t.Fatalf("%d requests queued, %d waiting", queued, len(waiting))
	}
	if be != c.beBacklogged {
		t.Fatalf("%d best-effort clients backlogged, counted %d", be, c.beBacklogged)
	}
	for k, cl := range c.clients {
		if k.reserved {
			reserved++
		}
		if len(cl.q) > 0 && slices.Index(c.backlog, cl) < 0 {
			t.Fatalf("client %v has requests but is not backlogged", k)
		}
	}
	if reserved != c.reservations {
		t.Fatalf("%d reservations registered, counted %d", reserved, c.reservations)
	}
	if c.pacing == 0 && queued > 0 {
		t.Fatalf("%d requests queued while no reservation paces the direction", queued)
	}
}
