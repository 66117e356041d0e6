package metrics

import (
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/bucketlog"
)

// TestBucketLogCollector: the spool's and delivery's counters as the
// server's metrics, read at scrape time.
func TestBucketLogCollector(t *testing.T) {
	m := New()
	st := bucketlog.Stats{SpoolBytes: 4096, Dropped: map[string]uint64{"no_consent": 3, "evicted": 0},
		Objects: 7, Failures: 2, Waiting: 1}
	m.WatchBucketLog(func() bucketlog.Stats { return st })
	wantLines(t, scrapeText(m),
		"jog_bucketlog_spool_bytes 4096",
		`jog_bucketlog_records_dropped_total{reason="no_consent"} 3`,
		`jog_bucketlog_records_dropped_total{reason="evicted"} 0`,
		"jog_bucketlog_objects_delivered_total 7",
		"jog_bucketlog_delivery_failures_total 2",
		"jog_bucketlog_targets_waiting 1")
	st.SpoolBytes = 99 // read at scrape time
	if got := scrapeText(m); !strings.Contains(got, "jog_bucketlog_spool_bytes 99\n") {
		t.Error("the spool's bytes are not read at scrape time")
	}
}
