// Package bucketrepl owns S3's bucket replication configuration (issue
// 40): the ReplicationConfiguration document PutBucketReplication accepts
// and GetBucketReplication returns (Config, ParseXML, Validate), which rule
// applies to an object (Config.Match), and the remote S3 endpoints the
// operator lets buckets replicate to (Target, Targets, Targets.Bind).
//
// A rule takes one of S3's two schemas, never both in one document:
//
//   - V1: a rule-level Prefix; Priority is ignored, prefixes of two
//     rules must not overlap, and DeleteMarkerReplication is refused (V1
//     has no such element: as in S3, its rules replicate delete markers,
//     Rule.ReplicatesDeleteMarkers);
//   - V2: a Filter (Prefix, Tag, or And of a prefix and tags); every rule
//     needs a Priority, unique in the document, and DeleteMarkerReplication;
//     a rule filtering on tags cannot replicate delete markers.
//
// Elements JOG cannot honour are refused with 501 NotImplemented and a
// message saying why (ErrNotImplemented), never stored and ignored:
// Account and AccessControlTranslation (no cross-account ownership here),
// EncryptionConfiguration (replica KMS keys), ReplicationTime and Metrics
// Enabled (S3 RTC's 15-minute guarantee), SourceSelectionCriteria's
// SseKmsEncryptedObjects and ReplicaModifications Enabled, and any
// StorageClass but STANDARD (JOG has one storage class; STANDARD means
// nothing here and is accepted).
//
// A rule's Destination Bucket names a bucket on one of the configured
// targets (docs/adr/0030-replication-targets.md): S3's arn:aws:s3:::BUCKET
// when exactly one target serves BUCKET, or JOG's
// arn:jog:replication::TARGET:BUCKET naming the target. Targets.Bind
// resolves every rule once, when the configuration is put, and records the
// target in the stored rule (Destination.Target), so that adding a target
// later never changes where a stored rule replicates.
//
// This package delivers nothing: it is the configuration and the targets
// a delivery queue works from. It knows nothing of storage or of the S3
// wire: its errors are sentinels and RuleError, which
// internal/s3api/errors.go maps.
package bucketrepl
