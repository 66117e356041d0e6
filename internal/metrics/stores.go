package metrics

import (
	"math"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/hist"
	"github.com/jogstore/jog/internal/meta"
)

// newDesc is prometheus.NewDesc without constant labels.
func newDesc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

// describe sends ds on ch: a collector's Describe.
func describe(ch chan<- *prometheus.Desc, ds ...*prometheus.Desc) {
	for _, d := range ds {
		ch <- d
	}
}

// gauge and counter are const metrics of float64(v).
func gauge[N int | int32 | int64 | uint64](d *prometheus.Desc, v N, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v), labels...)
}

func counter[N int | uint32 | uint64](d *prometheus.Desc, v N, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
}

// seconds is a const counter of a total duration, in seconds.
func seconds(d *prometheus.Desc, v time.Duration, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.CounterValue, v.Seconds(), labels...)
}

// log2Histogram exposes a hist.Snapshot as a histogram whose bounds are
// the powers of two 2^lo … 2^hi times scale (nanoseconds to seconds: 1e-9).
// The buckets below 2^lo fall in the first; values of 2^hi and beyond only
// in +Inf. For integer values (integer: counts), bucket i's values are at
// most 2^i - 1, which is its bound then.
func log2Histogram(d *prometheus.Desc, s hist.Snapshot, lo, hi int, scale float64, integer bool) prometheus.Metric {
	upper := make([]int, 0, hi-lo+1)
	for i := lo; i <= hi; i++ {
		upper = append(upper, i)
	}
	cum := s.Cumulative(upper)
	buckets := make(map[float64]uint64, len(upper))
	for j, i := range upper {
		bound := math.Ldexp(1, i)
		if integer {
			bound--
		}
		buckets[bound*scale] = cum[j]
	}
	return prometheus.MustNewConstHistogram(d, s.Count(), float64(s.Sum)*scale, buckets)
}

// blobCollector reads a blob store's Stats at scrape time.
type blobCollector struct {
	s                                          blob.StatsReporter
	writes, written, deletes, syncTime, syncs  *prometheus.Desc
	packFiles, diskFree, diskSize, diskReserve *prometheus.Desc
}

func newBlobCollector(s blob.StatsReporter) *blobCollector {
	return &blobCollector{
		s: s,
		writes: newDesc("jog_blob_writes_total",
			"Blobs committed, by layout: a file of its own, or a record in a pack file.", "layout"),
		written:  newDesc("jog_blob_written_bytes_total", "Bytes of the blobs committed."),
		deletes:  newDesc("jog_blob_deletes_total", "Blobs deleted (or moved to a shared data dir's trash)."),
		syncTime: newDesc("jog_blob_sync_seconds_total", "Time spent in calls that flush blob data (fsync, fdatasync, sync_file_range), summed."),
		syncs: newDesc("jog_blob_fsync_duration_seconds",
			"Latency of each fsync or fdatasync of blob data (a file, its directory, a pack's group sync)."),
		packFiles:   newDesc("jog_blob_pack_files", "Pack files in the data dir."),
		diskFree:    newDesc("jog_disk_free_bytes", "Bytes available to the server on the data dir's file system."),
		diskSize:    newDesc("jog_disk_size_bytes", "Size of the data dir's file system."),
		diskReserve: newDesc("jog_disk_reserve_bytes", "Free space blob writes leave on the file system (writes beyond it fail with 507)."),
	}
}

func (c *blobCollector) Describe(ch chan<- *prometheus.Desc) {
	describe(ch, c.writes, c.written, c.deletes, c.syncTime, c.syncs, c.packFiles, c.diskFree, c.diskSize, c.diskReserve)
}

// Fsync latency buckets: 2^13 ns (8 µs) to 2^35 ns (34 s).
const syncLo, syncHi = 13, 35

func (c *blobCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.s.Stats()
	ch <- counter(c.writes, s.FilesWritten, "file")
	ch <- counter(c.writes, s.PackedWritten, "pack")
	ch <- counter(c.written, s.BytesWritten)
	ch <- counter(c.deletes, s.Deleted)
	ch <- seconds(c.syncTime, s.SyncTime)
	ch <- log2Histogram(c.syncs, s.Syncs, syncLo, syncHi, 1e-9, false)
	ch <- gauge(c.packFiles, s.PackFiles)
	ch <- gauge(c.diskReserve, s.Reserve)
	if s.SpaceKnown {
		ch <- gauge(c.diskFree, s.Free)
		ch <- gauge(c.diskSize, s.Total)
	}
}

// commitCollector reads a metadata store's group commits and write-ahead
// log (SQLite's) at scrape time.
type commitCollector struct {
	s                                  meta.CommitReporter
	batch, commit, walBytes, walResets *prometheus.Desc
}

func newCommitCollector(s meta.CommitReporter) *commitCollector {
	return &commitCollector{
		s:     s,
		batch: newDesc("jog_meta_commit_batch_size", "Writes carried by each SQLite group commit."),
		commit: newDesc("jog_meta_commit_duration_seconds",
			"Time of each SQLite group commit, BEGIN to COMMIT (a WAL checkpoint it triggers included)."),
		walBytes: newDesc("jog_meta_sqlite_wal_bytes", "Size of the SQLite write-ahead log file."),
		walResets: newDesc("jog_meta_sqlite_checkpoints_total",
			"Times the SQLite WAL restarted from its beginning after a complete checkpoint (the WAL header's checkpoint sequence; resets when the WAL file is recreated)."),
	}
}

func (c *commitCollector) Describe(ch chan<- *prometheus.Desc) {
	describe(ch, c.batch, c.commit, c.walBytes, c.walResets)
}

// Commit latency buckets: 2^14 ns (16 µs) to 2^34 ns (17 s); batch sizes
// up to 2^8 - 1 (the committer's maxBatch is 128).
const commitLo, commitHi, batchHi = 14, 34, 8

func (c *commitCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.s.CommitStats()
	ch <- log2Histogram(c.batch, s.Batches, 1, batchHi, 1, true)
	ch <- log2Histogram(c.commit, s.Commits, commitLo, commitHi, 1e-9, false)
	ch <- gauge(c.walBytes, s.WALBytes)
	ch <- counter(c.walResets, s.WALResets)
}

// poolCollector reads a metadata store's connection pool (PostgreSQL's)
// at scrape time.
type poolCollector struct {
	s                                                     meta.PoolReporter
	conns, max, acquires, empty, wait, created, destroyed *prometheus.Desc
}

func newPoolCollector(s meta.PoolReporter) *poolCollector {
	return &poolCollector{
		s:         s,
		conns:     newDesc("jog_meta_pg_connections", "PostgreSQL pool connections, by state (idle, acquired).", "state"),
		max:       newDesc("jog_meta_pg_max_connections", "The PostgreSQL pool's bound on connections."),
		acquires:  newDesc("jog_meta_pg_acquires_total", "Connections taken from the PostgreSQL pool."),
		empty:     newDesc("jog_meta_pg_empty_acquires_total", "Acquires that had to wait for a connection."),
		wait:      newDesc("jog_meta_pg_acquire_wait_seconds_total", "Time spent waiting for a pool connection, summed."),
		created:   newDesc("jog_meta_pg_connections_opened_total", "Connections the pool opened."),
		destroyed: newDesc("jog_meta_pg_connections_closed_total", "Connections the pool closed for age or idleness."),
	}
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	describe(ch, c.conns, c.max, c.acquires, c.empty, c.wait, c.created, c.destroyed)
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.s.PoolStats()
	ch <- gauge(c.conns, s.Idle, "idle")
	ch <- gauge(c.conns, s.Acquired, "acquired")
	ch <- gauge(c.max, s.Max)
	ch <- counter(c.acquires, s.Acquires)
	ch <- counter(c.empty, s.EmptyAcquires)
	ch <- seconds(c.wait, s.AcquireWait)
	ch <- counter(c.created, s.Created)
	ch <- counter(c.destroyed, s.Destroyed)
}
