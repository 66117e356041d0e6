package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/jogstore/jog/internal/durq"
)

// WatchNotify registers the collector of the event notification queue's
// counters (internal/durq), read at scrape time from stats, and of
// the events the service could not hand to it, from lost
// (service.Service.EnqueueFailures).
func (m *Metrics) WatchNotify(stats func() durq.Stats, lost func() uint64) {
	m.reg.MustRegister(newNotifyCollector(stats, lost))
}

// notifyCollector reads the notification queue's Stats: a series per
// configured target (a few: the server's flags name them).
type notifyCollector struct {
	stats                                    func() durq.Stats
	lost                                     func() uint64
	queued, delivered, failures, bytes, lose *prometheus.Desc
}

func newNotifyCollector(stats func() durq.Stats, lost func() uint64) *notifyCollector {
	return &notifyCollector{
		stats: stats, lost: lost,
		queued: newDesc("jog_notify_queued_total",
			"Event notifications stored in the queue for a target (by its ARN).", "target"),
		delivered: newDesc("jog_notify_delivered_total",
			"Event notifications a target took (a 2xx answer, a flushed NATS publish).", "target"),
		failures: newDesc("jog_notify_failures_total",
			"Failed attempts to deliver an event notification to a target (each retry counts).", "target"),
		bytes: newDesc("jog_notify_queue_bytes",
			"Bytes of the queue's segment files on this gateway's disk (bounded by --notify-queue-max)."),
		lose: newDesc("jog_notify_events_lost_total",
			"Event notifications of answered requests that could not be queued (queue full, disk error, the bucket's configuration unreadable), each logged with its request ID."),
	}
}

func (c *notifyCollector) Describe(ch chan<- *prometheus.Desc) {
	describe(ch, c.queued, c.delivered, c.failures, c.bytes, c.lose)
}

func (c *notifyCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	for arn, t := range s.Targets {
		ch <- counter(c.queued, t.Queued, arn)
		ch <- counter(c.delivered, t.Delivered, arn)
		ch <- counter(c.failures, t.Failures, arn)
	}
	ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.GaugeValue, float64(s.Bytes))
	ch <- counter(c.lose, c.lost())
}
