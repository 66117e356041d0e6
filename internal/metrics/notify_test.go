package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/durq"
)

// TestNotifyCollector: the queue's counters as the server's metrics, read
// at scrape time.
func TestNotifyCollector(t *testing.T) {
	m := New()
	st := durq.Stats{Targets: map[string]durq.TargetStats{"arn:jog:sqs:us-east-1:h:webhook": {Queued: 3, Delivered: 2, Failures: 5}},
		Bytes: 1234, EnqueueErrors: 1}
	m.WatchNotify(func() durq.Stats { return st }, func() uint64 { return 4 })
	wantLines(t, scrapeText(m),
		`jog_notify_queued_total{target="arn:jog:sqs:us-east-1:h:webhook"} 3`,
		`jog_notify_delivered_total{target="arn:jog:sqs:us-east-1:h:webhook"} 2`,
		`jog_notify_failures_total{target="arn:jog:sqs:us-east-1:h:webhook"} 5`,
		"jog_notify_queue_bytes 1234",
		"jog_notify_events_lost_total 4")
	st.Bytes = 99 // read at scrape time
	if got := scrapeText(m); !strings.Contains(got, "jog_notify_queue_bytes 99\n") {
		t.Error("the queue's bytes are not read at scrape time")
	}
}

// scrapeText is m's exposition in the text format.
func scrapeText(m *Metrics) string {
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}

// wantLines fails the test for each of lines not in the exposition got.
func wantLines(t *testing.T, got string, lines ...string) {
	t.Helper()
	for _, line := range lines {
		if !strings.Contains(got, line+"\n") {
			t.Errorf("no %q in:\n%s", line, got)
		}
	}
}
