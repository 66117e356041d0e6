// Package lifecycle owns S3's bucket lifecycle configuration: the document
// PutBucketLifecycleConfiguration accepts and GetBucketLifecycleConfiguration
// returns (Config, ParseXML, Validate), and its evaluation against objects
// and multipart uploads (Compile, Rules.Expiry, Rules.AbortDue), as S3
// evaluates it:
//
//   - a rule applies when its Status is Enabled and its filter matches:
//     the legacy top-level Prefix, or a Filter holding one of Prefix, Tag,
//     ObjectSizeGreaterThan, ObjectSizeLessThan, or an And of several; an
//     empty Filter matches every object;
//   - Expiration Days counts from the object's last modification and is
//     rounded up to the next day boundary (midnight UTC with the standard
//     24-hour day, as S3 rounds); Expiration Date expires matching objects
//     from that midnight on; when several rules match, the earliest expiry
//     wins (and is what x-amz-expiration names);
//   - AbortIncompleteMultipartUpload DaysAfterInitiation counts from the
//     upload's initiation, rounded the same way, and only prefixes filter it
//     (S3 refuses tags and sizes with it).
//
// The length of a lifecycle day is a parameter of Compile: 24 hours in
// production, a second in tests, so that expirations can be watched.
//
// Transition and NoncurrentVersionTransition name storage classes JOG does
// not have and are refused (ErrTransition). For the worker's versions
// phase, Rules.NoncurrentExpiry decides when a noncurrent version expires
// (NoncurrentDays from its successor's creation, NewerNoncurrentVersions
// kept) and Rules.MarkerExpiry when lone delete markers go.
//
// The background worker that applies the rules is the sub-package worker.
// This package knows nothing of storage or of the S3 wire errors: its
// errors are sentinels and types that internal/s3api/errors.go maps.
package lifecycle
