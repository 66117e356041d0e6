// Package worker applies buckets' lifecycle rules in the background: a
// Worker makes a pass over every bucket with a lifecycle configuration
// each interval, and in each bucket, reading only the keys under the
// prefixes its rules name (the whole bucket when a rule names none),
//
//  1. pages through the current objects (Service.ListObjects, a page of
//     keys at a time: memory stays bounded on a bucket of millions of
//     objects) and expires those a rule's Expiration Days or Date has
//     reached, through Service.DeleteObject — on a versioned bucket that
//     will write a delete marker, as S3's expiration does;
//  2. pages through the multipart uploads in progress
//     (Service.ListUploads) and aborts those an
//     AbortIncompleteMultipartUpload rule has reached (Service.AbortUpload);
//  3. on a bucket whose versioning was ever set, pages through the
//     versions (Service.ListObjectVersions, key and version-ID markers,
//     newest first per key) and removes for good (Service.DeleteObject
//     with the version ID) the noncurrent versions a
//     NoncurrentVersionExpiration rule has reached — NoncurrentDays
//     counted from the creation of the version's successor, the
//     NewerNoncurrentVersions newest kept — and, where an
//     ExpiredObjectDeleteMarker rule selects the key, a latest delete
//     marker no other version of its key is left under.
//
// After each page it stores a small cursor (the phase, the last key,
// upload or version seen, and in phase 3 what it knows of the key it is
// in) as the bucket's "lifecycle-cursor" document, and removes it
// when the bucket's pass ends: a pass a shutdown or crash interrupted
// resumes where it stopped at the next start, rather than from the first
// key. Every action is logged with slog.
//
// Each removal checks, inside the store's transaction, that the key is
// as listed: an expiration that the object is still the version listed
// (its ETag and last-modified second), a version removal that the key's
// latest version is still the one listed (the same live object, or still
// none under a delete marker). A key changed since it was listed is left
// alone. Every removal goes through Service.DeleteObject: the one point
// where object lock's check applies to every caller.
package worker
