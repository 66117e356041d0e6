package metrics

import (
	"context"
	"sync"
	"testing"

	"github.com/jogstore/jog/internal/qos/sched"
)

// TestQoSWait: the scheduler's per-reservation and best-effort wait totals
// are exposed beside the granted counters, with the same labels. A
// reservation and a best-effort flow ask at once for more than the paced
// device moves at once, so both wait.
func TestQoSWait(t *testing.T) {
	s := sched.New(sched.Config{Chunk: 16 << 10}, sched.Capacities{Read: 1e6, Write: 1e6, Requests: 1000})
	if err := s.Reserve("r", sched.Rates{Read: 4e5, Requests: 10}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, f := range []sched.Flow{s.Read.Flow("r", "alice"), s.Read.Flow("", "bob")} {
		wg.Go(func() {
			if err := f.Wait(context.Background(), 10*s.Read.Chunk()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	fams := gather(t, newQoSCollector(s))
	for _, c := range []struct {
		name   string
		labels map[string]string
		moved  bool // waited: > 0; otherwise 0
	}{
		{"jog_qos_reservation_wait_seconds_total", map[string]string{"direction": "read", "reservation": "r"}, true},
		{"jog_qos_best_effort_wait_seconds_total", map[string]string{"direction": "read"}, true},
		{"jog_qos_reservation_wait_seconds_total", map[string]string{"direction": "write", "reservation": "r"}, false},
		{"jog_qos_best_effort_wait_seconds_total", map[string]string{"direction": "write"}, false},
		{"jog_qos_reservation_requests_wait_seconds_total", map[string]string{"reservation": "r"}, false},
		{"jog_qos_best_effort_requests_wait_seconds_total", nil, false},
		// r's flow kept asking, and was served: nothing forfeited or unserved
		// (sched's tests count both).
		{"jog_qos_reservation_forfeited_bytes_total", map[string]string{"direction": "read", "reservation": "r"}, false},
		{"jog_qos_reservation_forfeited_requests_total", map[string]string{"reservation": "r"}, false},
		{"jog_qos_reservation_unserved_bytes_total", map[string]string{"direction": "read", "reservation": "r"}, false},
		{"jog_qos_reservation_unserved_requests_total", map[string]string{"reservation": "r"}, false},
	} {
		v := valueOf(fams, c.name, c.labels)
		if v < 0 || (v > 0) != c.moved {
			t.Errorf("%s %v = %v, want it present and > 0: %v", c.name, c.labels, v, c.moved)
		}
	}
}
