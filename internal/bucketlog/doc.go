// Package bucketlog is S3 server access logging (PutBucketLogging): the
// records of requests on buckets with logging enabled, in S3's log
// format (format.go), spooled on local disk (spool.go) and delivered as
// objects into their target buckets (deliver.go), at least once.
//
// The path of a record:
//
//	Logger.Observe (an s3api.Observer, on the request's goroutine)
//	  └─ the bucket's logging target (service.BucketLoggingOf, cached)
//	  └─ Spool.Append: the record, tagged with its target, prefix and
//	     source bucket, queued in memory (accesslog.Writer) and written
//	     with fsync to <data-dir>/bucketlog/<gateway>/current within a
//	     second; dropped when the spool is at its bound
//	Delivery, at start-up and every --bucket-log-interval:
//	  └─ Spool.Adopt: the spools of ended gateways (their lock free)
//	     become this gateway's sealed and held files
//	  └─ Spool.Seal: current is renamed sealed-<unix nanos>
//	  └─ the held files of targets not waiting, then each sealed file:
//	     one object per (target, prefix, source bucket) named
//	     TargetPrefix + YYYY-mm-DD-HH-MM-SS-<16 hex>, written through
//	     service.PutLogObject once the source still logs into the
//	     target and the target consents (service.LogDeliveryAllowed),
//	     else dropped; the records of a target that fails go to a held
//	     file of their own (held.go), retried after a doubling wait; the
//	     file is removed once every object of it is committed
//	  └─ the held records past half the bound dropped, oldest first
//
// A failing target thus delays only its own records. A crash before a
// file is removed delivers it again under the same names (the unique
// part is a hash of the file, target, prefix and source), so a retry
// replaces rather than duplicates in unversioned target buckets.
// Deliveries go through the service, not the S3 edge: they are never
// logged themselves, so a bucket logging into itself makes no loop.
// Records still in memory when the process is killed (at most about a
// second's) are lost; a clean shutdown writes them out. What is dropped
// is counted by reason (Stats, stats.go) and logged at most once an hour
// per target and source.
package bucketlog
