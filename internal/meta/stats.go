package meta

import (
	"time"

	"github.com/jogstore/jog/internal/hist"
)

// Statistics a Store may report, for metrics: optional capabilities that
// internal/metrics finds by type assertion and reads at scrape time, so
// that a backend implementing one has its metrics without
// internal/metrics naming the backend, and the backend imports no metrics
// library. Each is read at scrape time only: what a write adds to them is
// an atomic add or two (internal/hist).

// CommitReporter is a Store that batches writes into group commits on a
// write-ahead log file of its own (SQLite): jog_meta_commit_* and
// jog_meta_sqlite_*.
type CommitReporter interface {
	CommitStats() CommitStats
}

// CommitStats is what a CommitReporter's committer has done since the
// store opened, and the state of its write-ahead log.
type CommitStats struct {
	// Batches is the number of writes each group commit carried; Commits
	// the time each took, from BEGIN to COMMIT, in nanoseconds (a
	// checkpoint the commit triggered included: ADR 0015).
	Batches, Commits hist.Snapshot
	// WALBytes is the size of the write-ahead log file (0 when there is
	// none).
	WALBytes int64
	// WALResets is how many times the log has restarted from its
	// beginning after a complete checkpoint since the file was created (0
	// when none).
	WALResets uint32
}

// PoolReporter is a Store that holds a pool of connections to a database
// server (PostgreSQL): jog_meta_pg_*.
type PoolReporter interface {
	PoolStats() PoolStats
}

// PoolStats is a PoolReporter's connection pool now and since it opened.
type PoolStats struct {
	Total, Idle, Acquired, Max int32 // connections now, and the pool's bound
	// Acquires counts connections taken from the pool, EmptyAcquires
	// those that had to wait for one; AcquireWait is the time spent
	// waiting in all of them.
	Acquires, EmptyAcquires uint64
	AcquireWait             time.Duration
	// Created and Destroyed count connections opened and closed (for age
	// or idleness).
	Created, Destroyed uint64
}

// UsageSummer is a Store that keeps a bucket's usage only while the
// bucket has a quota: its BucketUsage of any other bucket sums that
// bucket's versions (PostgreSQL, ADR 0018), too dear to ask of every
// bucket at every scrape. The per-bucket metrics then cover the buckets
// with a quota only.
type UsageSummer interface {
	// SumsUsageWithoutQuota marks the capability; it does nothing.
	SumsUsageWithoutQuota()
}
