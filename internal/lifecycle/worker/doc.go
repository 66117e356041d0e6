// Package worker applies buckets' lifecycle rules in the background: a
// Worker makes a pass over every bucket with a lifecycle configuration
// each interval, and in each bucket
//
//  1. pages through the current objects (Service.ListObjects, a page of
//     keys at a time: memory stays bounded on a bucket of millions of
//     objects) and expires those a rule's Expiration Days or Date has
//     reached, through Service.DeleteObject — on a versioned bucket that
//     will write a delete marker, as S3's expiration does;
//  2. pages through the multipart uploads in progress
//     (Service.ListUploads) and aborts those an
//     AbortIncompleteMultipartUpload rule has reached (Service.AbortUpload).
//
// After each page it stores a small cursor (the phase and the last key or
// upload seen) as the bucket's "lifecycle-cursor" document, and removes it
// when the bucket's pass ends: a pass a shutdown or crash interrupted
// resumes where it stopped at the next start, rather than from the first
// key. Every action is logged with slog.
//
// Each removal checks, inside the store's transaction, that the object is
// still the version that was listed (its ETag and last-modified second):
// an object overwritten since it was listed is left alone.
//
// Not applied yet (the rules are parsed, validated and stored):
// NoncurrentVersionExpiration and ExpiredObjectDeleteMarker need object
// versions and ListObjectVersions; Worker.versions is their hook.
package worker
