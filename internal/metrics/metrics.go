package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/lifecycle/worker"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/qos/sched"
)

// Metrics is a server's registry: its requests, recovery, stores and
// workers, and the Go runtime and process collectors.
type Metrics struct {
	reg      *prometheus.Registry
	requests *Requests
	recovery *Recovery
}

// New returns a registry holding the request counters (Requests), the
// recovery records (Recovery) and the Go runtime and process collectors;
// Watch adds the stores and workers once the server has built them.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), requests: NewRequests(), recovery: newRecovery()}
	m.reg.MustRegister(m.requests, collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.reg.MustRegister(m.recovery.collectors()...)
	return m
}

// Requests is the S3 edge's Observer.
func (m *Metrics) Requests() *Requests { return m.requests }

// Recovery records start-up recovery and the orphan sweeps.
func (m *Metrics) Recovery() *Recovery { return m.recovery }

// Sources are what a server's metrics read at scrape time. Any may be
// nil; a store has the metrics of the statistics it reports (the
// interfaces of blob/stats.go and meta/stats.go), found by type assertion.
type Sources struct {
	// Blobs is the blob store: blob.StatsReporter (blob, fsync, disk free
	// and reserve metrics).
	Blobs blob.Store
	// Meta is the metadata store: meta.CommitReporter, meta.PoolReporter,
	// and its buckets' usage (all of them, or with meta.UsageSummer only
	// those with a quota).
	Meta meta.Store
	// Lifecycle is the lifecycle worker; nil when it is off.
	Lifecycle *worker.Worker
	// Scheduler is the data path's scheduler (reservations).
	Scheduler *sched.Scheduler
	// BucketLimit is the most buckets whose usage is reported; 0 none.
	BucketLimit int
}

// Watch registers the collectors of src's capabilities.
func (m *Metrics) Watch(src Sources) {
	if s, ok := src.Blobs.(blob.StatsReporter); ok {
		m.reg.MustRegister(newBlobCollector(s))
	}
	if s, ok := src.Meta.(meta.CommitReporter); ok {
		m.reg.MustRegister(newCommitCollector(s))
	}
	if s, ok := src.Meta.(meta.PoolReporter); ok {
		m.reg.MustRegister(newPoolCollector(s))
	}
	if src.Meta != nil && src.BucketLimit > 0 {
		_, quotaOnly := src.Meta.(meta.UsageSummer)
		m.reg.MustRegister(newBucketCollector(src.Meta, src.BucketLimit, quotaOnly))
	}
	if src.Lifecycle != nil {
		m.reg.MustRegister(newLifecycleCollector(src.Lifecycle))
	}
	if src.Scheduler != nil {
		m.reg.MustRegister(newQoSCollector(src.Scheduler))
	}
}

// Handler serves the registry in Prometheus's exposition formats, with
// no authentication of its own (internal/server adds it on the S3 port).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Gatherer is the registry, for tests and tools.
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.reg }
