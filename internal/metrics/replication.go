package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/jogstore/jog/internal/bucketrepl/delivery"
)

// WatchReplication registers the collector of bucket replication's
// counters per target (internal/bucketrepl/delivery), read at scrape time
// from stats, and of the tasks the service could not queue, from unqueued
// (service.Service.ReplicationEnqueueFailures).
func (m *Metrics) WatchReplication(stats func() []delivery.TargetStats, unqueued func() uint64) {
	m.reg.MustRegister(newReplicationCollector(stats, unqueued))
}

// replicationCollector reads the replication queue's Stats: a series per
// configured target (a few: the server's flags name them).
type replicationCollector struct {
	stats    func() []delivery.TargetStats
	unqueued func() uint64

	pending, pendingBytes, oldest, sent, sentBytes, deletes, skipped *prometheus.Desc
	failed, failures, up, lag, notQueued                             *prometheus.Desc
}

func newReplicationCollector(stats func() []delivery.TargetStats, unqueued func() uint64) *replicationCollector {
	return &replicationCollector{
		stats: stats, unqueued: unqueued,
		pending: newDesc("jog_replication_pending",
			"Replication tasks queued on this gateway and not yet done, by target.", "target"),
		pendingBytes: newDesc("jog_replication_pending_bytes",
			"Bytes of the versions queued for a target on this gateway and not yet sent.", "target"),
		oldest: newDesc("jog_replication_oldest_pending_seconds",
			"Age of the oldest task a target's lanes hold (the replication lag); 0 when they are idle.", "target"),
		sent: newDesc("jog_replication_sent_total",
			"Object versions a target took.", "target"),
		sentBytes: newDesc("jog_replication_sent_bytes_total",
			"Bytes of the object versions a target took (the throughput, as a rate).", "target"),
		deletes: newDesc("jog_replication_deletes_total",
			"Delete markers and version deletes a target took.", "target"),
		skipped: newDesc("jog_replication_skipped_total",
			"Tasks whose version was gone or already replicated when its turn came.", "target"),
		failed: newDesc("jog_replication_failed_total",
			"Versions marked FAILED: the target refused them for good (resync tries them again).", "target"),
		failures: newDesc("jog_replication_failures_total",
			"Failed attempts to send to a target (each retry counts).", "target"),
		up: newDesc("jog_replication_target_up",
			"1 while the target answers, 0 while it fails (since the first failure, until an attempt succeeds).", "target"),
		lag: newDesc("jog_replication_lag_seconds",
			"Time from a version's queueing to the target's answer (versions and delete markers sent).", "target"),
		notQueued: newDesc("jog_replication_unqueued_total",
			"Replicated changes whose task could not be queued (queue full, disk error): their versions stay PENDING until the next sweep."),
	}
}

func (c *replicationCollector) Describe(ch chan<- *prometheus.Desc) {
	describe(ch, c.pending, c.pendingBytes, c.oldest, c.sent, c.sentBytes, c.deletes, c.skipped,
		c.failed, c.failures, c.up, c.lag, c.notQueued)
}

func (c *replicationCollector) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for _, t := range c.stats() {
		gauge(c.pending, float64(t.Pending), t.Name)
		gauge(c.pendingBytes, float64(t.PendingBytes), t.Name)
		gauge(c.oldest, t.Oldest.Seconds(), t.Name)
		ch <- counter(c.sent, t.Sent, t.Name)
		ch <- counter(c.sentBytes, t.SentBytes, t.Name)
		ch <- counter(c.deletes, t.Deletes, t.Name)
		ch <- counter(c.skipped, t.Skipped, t.Name)
		ch <- counter(c.failed, t.Failed, t.Name)
		ch <- counter(c.failures, t.Failures, t.Name)
		up := 1.0
		if t.Down {
			up = 0
		}
		gauge(c.up, up, t.Name)
		buckets := make(map[float64]uint64, len(delivery.LagBuckets))
		for i, le := range delivery.LagBuckets {
			buckets[le] = t.Lag[i]
		}
		ch <- prometheus.MustNewConstHistogram(c.lag, t.Lag[len(t.Lag)-1], t.LagSum, buckets, t.Name)
	}
	ch <- counter(c.notQueued, c.unqueued())
}
