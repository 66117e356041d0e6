// Package sqlite implements meta.Store on an embedded SQLite database
// (modernc.org/sqlite: pure Go, so the jog binary stays static).
//
// The database runs in WAL mode with synchronous=FULL, so a committed
// transaction survives power loss. All writes go through one connection (the
// single writer path); reads use a separate pool of read-only connections that
// run in parallel with the writer.
package sqlite
