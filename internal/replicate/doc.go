// Package replicate streams the SQLite metadata database (the data dir's
// jog.db) to an S3 bucket with Litestream, inside jog server, and restores
// it from there (jog restore). It owns the replica's address (Target), the
// Litestream database, replica and compaction store a server runs
// (Replicator), and Restore.
//
// Litestream owns the WAL checkpoints while it replicates: the server opens
// its store with SQLite's automatic checkpoints off (ADR 0021). Object bytes
// in blob files and pack files are not in the database and not replicated
// (docs/OPERATIONS.md).
package replicate
