// Package metrics exposes JOG's Prometheus metrics (docs/OPERATIONS.md
// lists them; ADR 0019 the choices behind them).
//
// Requests is the S3 edge's s3api.Observer: per request it adds to
// counters kept in arrays indexed by operation, and observes a latency
// histogram child resolved once per operation, with no allocation. Every
// other metric is read at scrape time by a collector from a store's or a
// worker's own counters (worker.Worker.Stats, sched.Direction.Granted),
// the stores' through the interfaces blob and meta declare for them
// (blob.StatsReporter, meta.CommitReporter, meta.PoolReporter), found by
// type assertion: this package names no backend, a backend that
// implements one has its metrics, those packages do not import
// Prometheus, and their hot paths do no more than the atomic adds they
// already make. Only internal/metrics and internal/server import
// Prometheus.
package metrics
