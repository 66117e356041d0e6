package integration

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// The request direction's proof in short form: a request capacity small
// enough (100 requests/s) that the scheduler, not the 2-core test machine,
// is what limits. As for bytes, a reservation is asserted to get ≥ 90% of
// its rate, and the absence of pacing as a generous ratio.
const (
	qosRequests    = 100 // requests/s the server is configured to serve
	qosReservedRPS = 50  // the reservation's requests/s
	qosFlooders    = 6   // best-effort clients, qosStreams streams each
)

// TestQoSRequestRate: a reservation of half the request capacity keeps at
// least 90% of its requests/s while six best-effort clients (eighteen
// streams) flood the server with small GETs; with no reservation active —
// before it is made, and after it is cancelled — the same flood is not
// paced (well above the capacity).
func TestQoSRequestRate(t *testing.T) {
	srv, c := startQoSWith(t, testutil.WithQoSRequestCapacity(qosRequests))
	c.putRandom(t, "/qos/small", 16)
	emptyHash := itest.SHA256Hex(nil)
	get := func(ctx context.Context, l *qosLoad, _ int) error {
		err := c.do(ctx, "GET", "/qos/small", nil, emptyHash, l.reservation, nil, nil)
		if err == nil {
			l.moved.Add(1)
		}
		return err
	}
	var flood []*qosLoad
	for i := range qosFlooders {
		flood = append(flood, &qosLoad{name: fmt.Sprintf("be%d", i+1)})
	}
	unpaced := func(when string) {
		t.Helper()
		rates := runLoads(t, flood, 300*time.Millisecond, time.Second, get)
		total := sum(rates)
		t.Logf("%s: best effort alone %.0f requests/s (capacity %d)", when, total, qosRequests)
		if total < 2*qosRequests {
			t.Errorf("%s: the flood got %.0f requests/s, under twice the %d requests/s capacity: paced with no reservation active", when, total, qosRequests)
		}
	}
	unpaced("before any reservation")

	now := time.Now().UTC().Truncate(time.Second)
	id := createRsv(t, srv, "qos", fmt.Appendf(nil, "<Reservation><RequestsPerSecond>%d</RequestsPerSecond><Start>%s</Start><End>%s</End></Reservation>",
		qosReservedRPS, now.Format(time.RFC3339), now.Add(time.Hour).Format(time.RFC3339))).ID
	reserved := &qosLoad{name: "reserved", reservation: id, reserved: qosReservedRPS}
	rates := runLoads(t, append([]*qosLoad{reserved}, flood...), 500*time.Millisecond, 3*time.Second, get)
	be := sum(rates[1:])
	t.Logf("reserved %d requests/s: achieved %.1f; best effort %.1f; total %.1f of %d", qosReservedRPS, rates[0], be, rates[0]+be, qosRequests)
	if rates[0] < 0.9*qosReservedRPS {
		t.Errorf("the reservation got %.1f requests/s, under 90%% of its %d", rates[0], qosReservedRPS)
	}
	if be <= 0 {
		t.Errorf("best effort starved")
	}

	if resp, body := rsvCall(t, srv, "", "DELETE", "/qos?reservation="+id, nil, nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("cancel: %s %s", resp.Status, body)
	}
	unpaced("after the reservation was cancelled")
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}
