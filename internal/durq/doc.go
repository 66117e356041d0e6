// Package durq is a durable local queue of opaque records on one gateway,
// each bound for one of a fixed set of targets: event notifications
// (ADR 0024, <data-dir>/notify) and bucket replication (ADR 0031,
// <data-dir>/replication) each keep one. Records are appended to segment
// files under <root>/<gateway>/, one line each (target, tab, record,
// newline), and fsynced before Enqueue returns, one fsync for all the
// callers that arrived meanwhile (group commit); one worker per target
// sends them in order, exactly as enqueued, retrying with backoff until
// the target takes each, and keeps the target's cursor in the queue's
// directory (cursors.json); a segment every target's cursor has passed is
// removed, and the queue's bytes are bounded (Enqueue fails past
// Options.MaxBytes).
//
// A gateway's directory is held with a lock while it lives; the queues
// of ended gateways (a crash, a restart: each start is a new gateway) are
// adopted under their free lock (Adopt, and Start periodically), as
// internal/bucketlog adopts its spools: what their targets had not been
// sent is copied into this gateway's queue and their directory goes.
// Delivery is at least once: a crash between a send and the cursor's
// write sends again.
package durq
