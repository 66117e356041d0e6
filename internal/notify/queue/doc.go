// Package queue is the durable queue of event notifications on one
// gateway (notify.Queue, ADR 0024): deliveries are appended to segment
// files under <data-dir>/notify/<gateway>/ and fsynced before Enqueue
// returns, one fsync for all the requests that arrived meanwhile (group
// commit); one worker per target sends them in order, retrying with
// backoff while the target fails, and keeps the target's cursor in the
// queue's directory; a segment every target's cursor has passed is
// removed, and the queue's bytes are bounded (Enqueue fails past
// Options.MaxBytes).
//
// A gateway's directory is held with a lock while it lives; the queues
// of ended gateways (a crash, a restart: each start is a new gateway) are
// adopted under their free lock, as internal/bucketlog adopts its spools:
// what their targets had not been sent is copied into this gateway's queue
// and their directory goes. Delivery is at least once: a crash between a
// send and the cursor's write sends again.
package queue
