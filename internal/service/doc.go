// Package service implements S3 object semantics over the two stores: a
// meta.Store for metadata and a blob.Store for bytes. It owns the durable
// write order (blob committed before metadata refers to it; replaced blobs
// deleted only after the metadata commit), start-up recovery of orphaned
// blobs, and the validation of bucket names and keys. It knows nothing of
// HTTP; the s3api package maps its errors to S3 codes.
package service
