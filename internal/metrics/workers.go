package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/jogstore/jog/internal/lifecycle/worker"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/qos/sched"
)

// Recovery records start-up recovery and the orphan sweeps as the server
// runs them (a few times per process life: no hot path).
type Recovery struct {
	tempRemoved, recoverySeconds prometheus.Gauge
	sweeps                       *prometheus.CounterVec
	scanned, orphans             prometheus.Counter
	lastSweep                    prometheus.Gauge
}

func newRecovery() *Recovery {
	return &Recovery{
		tempRemoved: prometheus.NewGauge(prometheus.GaugeOpts{Name: "jog_recovery_temp_files_removed",
			Help: "Temp files of interrupted writes removed by this start's recovery."}),
		recoverySeconds: prometheus.NewGauge(prometheus.GaugeOpts{Name: "jog_recovery_duration_seconds",
			Help: "How long this start's recovery of temp files took (before the first request)."}),
		sweeps: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "jog_orphan_sweeps_total",
			Help: "Orphan sweeps ended, by result (done, failed, stopped by shutdown)."}, []string{"result"}),
		scanned: prometheus.NewCounter(prometheus.CounterOpts{Name: "jog_orphan_sweep_blobs_scanned_total",
			Help: "Blobs the orphan sweeps looked at."}),
		orphans: prometheus.NewCounter(prometheus.CounterOpts{Name: "jog_orphan_sweep_orphans_removed_total",
			Help: "Orphan blobs (no metadata refers to them) the sweeps removed."}),
		lastSweep: prometheus.NewGauge(prometheus.GaugeOpts{Name: "jog_orphan_sweep_last_duration_seconds",
			Help: "How long the last orphan sweep took."}),
	}
}

func (r *Recovery) collectors() []prometheus.Collector {
	return []prometheus.Collector{r.tempRemoved, r.recoverySeconds, r.sweeps, r.scanned, r.orphans, r.lastSweep}
}

// Recovered records the start-up recovery: n temp files removed in took.
func (r *Recovery) Recovered(n int, took time.Duration) {
	r.tempRemoved.Set(float64(n))
	r.recoverySeconds.Set(took.Seconds())
}

// Swept records an orphan sweep's end: done, failed (err) or stopped.
func (r *Recovery) Swept(scanned, removed int, err error, stopped bool, took time.Duration) {
	result := "done"
	switch {
	case stopped:
		result = "stopped"
	case err != nil:
		result = "failed"
	}
	r.sweeps.WithLabelValues(result).Inc()
	r.scanned.Add(float64(scanned))
	r.orphans.Add(float64(removed))
	r.lastSweep.Set(took.Seconds())
}

// lifecycleCollector reads the lifecycle worker's Stats.
type lifecycleCollector struct {
	w                                     *worker.Worker
	passes, failed, scanned, actions, dur *prometheus.Desc
}

func newLifecycleCollector(w *worker.Worker) *lifecycleCollector {
	return &lifecycleCollector{
		w:       w,
		passes:  newDesc("jog_lifecycle_passes_total", "Lifecycle passes over the buckets ended."),
		failed:  newDesc("jog_lifecycle_failed_passes_total", "Lifecycle passes that ended with an error."),
		scanned: newDesc("jog_lifecycle_scanned_total", "Objects, uploads and versions lifecycle passes looked at."),
		actions: newDesc("jog_lifecycle_actions_total",
			"Lifecycle actions applied, by action (expire, abort_upload, expire_noncurrent, remove_delete_marker).", "action"),
		dur: newDesc("jog_lifecycle_last_pass_duration_seconds", "How long the last lifecycle pass took."),
	}
}

func (c *lifecycleCollector) Describe(ch chan<- *prometheus.Desc) {
	describe(ch, c.passes, c.failed, c.scanned, c.actions, c.dur)
}

func (c *lifecycleCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.w.Stats()
	ch <- counter(c.passes, s.Passes)
	ch <- counter(c.failed, s.Failed)
	ch <- counter(c.scanned, s.Scanned)
	ch <- counter(c.actions, s.Expired, "expire")
	ch <- counter(c.actions, s.Aborted, "abort_upload")
	ch <- counter(c.actions, s.Noncurrent, "expire_noncurrent")
	ch <- counter(c.actions, s.Markers, "remove_delete_marker")
	ch <- prometheus.MustNewConstMetric(c.dur, prometheus.GaugeValue, s.LastDuration.Seconds())
}

// qosCollector reads what the scheduler's directions granted and how long
// the granted requests waited: per active reservation (bounded by
// admission: reservations fit in the capacity), and best effort.
type qosCollector struct {
	s               *sched.Scheduler
	bytes, requests qosFamily
}

// qosFamily is the series of one kind of direction: the byte directions
// (labelled by direction) or the request direction.
type qosFamily struct {
	res, resWait, resForfeit, resUnserved, be, beWait *prometheus.Desc
}

func newQoSCollector(s *sched.Scheduler) *qosCollector {
	return &qosCollector{
		s: s,
		bytes: qosFamily{
			res: newDesc("jog_qos_reservation_granted_bytes_total",
				"Body bytes the scheduler granted to an active reservation, by direction (read, write) and reservation ID: its achieved throughput is the rate.",
				"direction", "reservation"),
			resWait: newDesc("jog_qos_reservation_wait_seconds_total",
				"Seconds an active reservation's granted body chunks waited for their grants, summed over its concurrent requests, by direction and reservation ID (a reservation paced at its rate waits too: the forfeited and unserved series tell why one falls short).",
				"direction", "reservation"),
			resForfeit: newDesc("jog_qos_reservation_forfeited_bytes_total",
				"Reserved body bytes an active reservation did not ask for in time (owed while none of its requests was queued, lost when it asked again), by direction and reservation ID: a reservation short of its rate by about this much was not held back by the scheduler.",
				"direction", "reservation"),
			resUnserved: newDesc("jog_qos_reservation_unserved_bytes_total",
				"Reserved body bytes an active reservation was owed while it asked and never granted (the device granted less than its capacity, or reservations sum to more), by direction and reservation ID: the scheduler held it back by this much.",
				"direction", "reservation"),
			be: newDesc("jog_qos_best_effort_granted_bytes_total",
				"Body bytes the scheduler granted to best-effort flows while reservations were active, by direction.", "direction"),
			beWait: newDesc("jog_qos_best_effort_wait_seconds_total",
				"Seconds best-effort body chunks waited for their grants, summed over concurrent requests, by direction.", "direction"),
		},
		requests: qosFamily{
			res: newDesc("jog_qos_reservation_granted_requests_total",
				"Requests the scheduler granted to an active request-rate reservation.", "reservation"),
			resWait: newDesc("jog_qos_reservation_requests_wait_seconds_total",
				"Seconds an active request-rate reservation's granted requests waited for their grants, summed.", "reservation"),
			resForfeit: newDesc("jog_qos_reservation_forfeited_requests_total",
				"Reserved requests an active request-rate reservation did not ask for in time (owed while none was queued).", "reservation"),
			resUnserved: newDesc("jog_qos_reservation_unserved_requests_total",
				"Reserved requests an active request-rate reservation was owed while it asked and never granted.", "reservation"),
			be: newDesc("jog_qos_best_effort_granted_requests_total",
				"Requests the scheduler granted to best-effort flows while request-rate reservations were active."),
			beWait: newDesc("jog_qos_best_effort_requests_wait_seconds_total",
				"Seconds best-effort requests waited for their grants while request-rate reservations were active, summed."),
		},
	}
}

func (c *qosCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, f := range []qosFamily{c.bytes, c.requests} {
		describe(ch, f.res, f.resWait, f.resForfeit, f.resUnserved, f.be, f.beWait)
	}
}

func (c *qosCollector) Collect(ch chan<- prometheus.Metric) {
	for _, d := range []struct {
		name string
		d    *sched.Direction
	}{{"read", c.s.Read}, {"write", c.s.Write}} {
		if d.d != nil {
			c.bytes.collect(ch, d.d.Granted(), d.name)
		}
	}
	if c.s.Requests != nil {
		c.requests.collect(ch, c.s.Requests.Granted())
	}
}

// collect sends one direction's totals, labelled by labels and, per
// reservation, its ID.
func (f qosFamily) collect(ch chan<- prometheus.Metric, g sched.Granted, labels ...string) {
	for _, r := range g.Reservations {
		l := append(labels[:len(labels):len(labels)], r.ID)
		ch <- counter(f.res, r.Units, l...)
		ch <- seconds(f.resWait, r.Waited, l...)
		ch <- counter(f.resForfeit, r.Forfeited, l...)
		ch <- counter(f.resUnserved, r.Unserved, l...)
	}
	ch <- counter(f.be, g.BestEffort, labels...)
	ch <- seconds(f.beWait, g.BestEffortWaited, labels...)
}

// bucketCollector reads the usage of up to limit buckets at scrape time:
// one series per bucket, so the family's cardinality is the bucket count,
// bounded by limit (the first buckets by name; jog_buckets_truncated says
// when there are more). With quotaOnly, only buckets with a quota: on
// PostgreSQL the usage of a bucket without one is a sum over its versions
// (ADR 0018), too dear for every scrape.
type bucketCollector struct {
	store                                  meta.BucketStore
	limit                                  int
	quotaOnly                              bool
	used, objects, quota, count, truncated *prometheus.Desc
	mu                                     sync.Mutex // one scrape's queries at a time
}

// bucketScrapeTimeout bounds the usage queries of one scrape.
const bucketScrapeTimeout = 5 * time.Second

func newBucketCollector(store meta.BucketStore, limit int, quotaOnly bool) *bucketCollector {
	return &bucketCollector{
		store: store, limit: limit, quotaOnly: quotaOnly,
		used:      newDesc("jog_bucket_used_bytes", "Bytes a bucket's stored versions sum to (what its quota counts).", "bucket"),
		objects:   newDesc("jog_bucket_objects", "Objects in a bucket: keys whose latest version is not a delete marker.", "bucket"),
		quota:     newDesc("jog_bucket_quota_bytes", "A bucket's quota, for buckets that have one.", "bucket"),
		count:     newDesc("jog_buckets", "Buckets reported on (at most --metrics-buckets)."),
		truncated: newDesc("jog_buckets_truncated", "1 when there are more buckets than --metrics-buckets and the per-bucket series stop at it."),
	}
}

func (c *bucketCollector) Describe(ch chan<- *prometheus.Desc) {
	describe(ch, c.used, c.objects, c.quota, c.count, c.truncated)
}

func (c *bucketCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), bucketScrapeTimeout)
	defer cancel()
	bs, err := c.store.ListBuckets(ctx, meta.ListBucketsOptions{Limit: c.limit + 1})
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.count, err)
		return
	}
	truncated := 0
	if len(bs) > c.limit {
		bs, truncated = bs[:c.limit], 1
	}
	ch <- gauge(c.count, len(bs))
	ch <- gauge(c.truncated, truncated)
	for _, b := range bs {
		if c.quotaOnly && b.Quota == 0 {
			continue
		}
		u, err := c.store.BucketUsage(ctx, b.Name)
		if err != nil {
			continue // deleted since the listing, or the scrape's time is up
		}
		ch <- gauge(c.used, u.Bytes, b.Name)
		ch <- gauge(c.objects, u.Objects, b.Name)
		if b.Quota > 0 {
			ch <- gauge(c.quota, b.Quota, b.Name)
		}
	}
}
