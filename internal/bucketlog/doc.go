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
//	     second
//	Delivery, at start-up and every --bucket-log-interval:
//	  └─ Spool.Adopt: the spools of ended gateways (their lock free)
//	     become this gateway's sealed files
//	  └─ Spool.Seal: current is renamed sealed-<unix nanos>
//	  └─ each sealed file: one object per (target, prefix, source bucket)
//	     named TargetPrefix + YYYY-mm-DD-HH-MM-SS-<16 hex>, written through
//	     service.PutLogObject; the file is removed once every object of it
//	     is committed
//
// A crash before the file is removed delivers it again under the same
// names (the unique part is a hash of the file, target, prefix and
// source), so a retry replaces rather than duplicates in unversioned
// target buckets. Deliveries go through the service, not the S3 edge: they
// are never logged themselves, so a bucket logging into itself makes no
// loop. Records still in memory when the process is killed (at most about
// a second's) are lost; a clean shutdown writes them out.
package bucketlog
