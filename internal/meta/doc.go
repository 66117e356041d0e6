// Package meta defines JOG's metadata model and the Store interface that every
// metadata backend implements (meta/sqlite, meta/postgres), with the optional
// capabilities a backend may add (fsck's checkers, the change feed, the
// statistics of stats.go), and the conformance suite they all pass (metatest).
//
// The model is keyed by (bucket, key, version). Object data is never named by
// key: an Object points at a blob by an opaque internal ID, so keys such as
// "../x" or "a//b" cannot alias each other or escape the data directory.
//
// Stores return the sentinel errors in errors.go; they never speak S3 wire
// errors. The S3 edge maps them to codes in one place.
package meta
