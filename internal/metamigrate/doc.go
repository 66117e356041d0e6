// Package metamigrate copies a data dir's metadata from one metadata
// store into another — SQLite in the data dir to PostgreSQL and back —
// exactly, for jog migrate. The blobs stay where they are: both stores
// name the same files of the data dir.
//
// The copy is row by row, through the optional capabilities
// meta.Exporter and meta.Importer: the source is read from one snapshot
// table by table in primary-key order (meta.Tables), streamed in batches
// into one transaction of the target, which must be empty. Every ID,
// version ID, sequence number, timestamp, document, inline byte and sealed
// secret goes across as it is; nothing is generated again, so a client
// sees no difference. What a store derives from its rows (SQLite's
// directory index, a bucket's recorded usage) the target computes itself.
//
// Run holds the data dir's lock exclusively while it copies, so no server
// serves either store meanwhile. It then verifies: each table's row count
// and a SHA-256 of its rows, read again from the target, must equal the
// source's; and jog fsck's checks (internal/fsck) run on both stores.
package metamigrate
