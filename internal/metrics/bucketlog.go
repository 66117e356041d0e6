package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/jogstore/jog/internal/bucketlog"
)

// WatchBucketLog registers the collector of server access logging's
// spool and delivery (internal/bucketlog), read at scrape time from stats.
func (m *Metrics) WatchBucketLog(stats func() bucketlog.Stats) {
	m.reg.MustRegister(newBucketLogCollector(stats))
}

type bucketLogCollector struct {
	stats                                      func() bucketlog.Stats
	bytes, dropped, objects, failures, waiting *prometheus.Desc
}

func newBucketLogCollector(stats func() bucketlog.Stats) *bucketLogCollector {
	return &bucketLogCollector{
		stats: stats,
		bytes: newDesc("jog_bucketlog_spool_bytes",
			"Bytes of server access log records awaiting delivery on this gateway's disk (bounded by --bucket-log-spool-max)."),
		dropped: newDesc("jog_bucketlog_records_dropped_total",
			"Server access log records dropped, not delivered, by reason (each logged, at most once an hour per target and source).", "reason"),
		objects: newDesc("jog_bucketlog_objects_delivered_total",
			"Log objects written into target buckets."),
		failures: newDesc("jog_bucketlog_delivery_failures_total",
			"Failed attempts to write a target's log objects (its records wait and are retried; other targets' go on)."),
		waiting: newDesc("jog_bucketlog_targets_waiting",
			"Target buckets whose records wait on disk after a failed delivery."),
	}
}

func (c *bucketLogCollector) Describe(ch chan<- *prometheus.Desc) {
	describe(ch, c.bytes, c.dropped, c.objects, c.failures, c.waiting)
}

func (c *bucketLogCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	ch <- gauge(c.bytes, s.SpoolBytes)
	for reason, n := range s.Dropped {
		ch <- counter(c.dropped, n, reason)
	}
	ch <- counter(c.objects, s.Objects)
	ch <- counter(c.failures, s.Failures)
	ch <- gauge(c.waiting, s.Waiting)
}
