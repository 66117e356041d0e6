package bucketrepl

import (
	"errors"
	"time"
)

// Resync is the progress of a bucket's resync (`jog admin replication
// resync BUCKET`): the walk over every version written before a rule
// selected it, or that FAILED, which queues those still owed. It is stored
// with the bucket, so a resync a restart interrupted goes on from After at
// the next start, on whichever gateway starts first.
type Resync struct {
	Started time.Time `json:"started" xml:"Started"`
	// Ended is when the walk ended; zero while it runs.
	Ended time.Time `json:"ended,omitzero" xml:"Ended,omitempty"`
	// After is the last key whose versions were all looked at.
	After string `json:"after,omitempty" xml:"After,omitempty"`
	// Scanned counts the versions looked at, Queued those queued.
	Scanned int64 `json:"scanned" xml:"Scanned"`
	Queued  int64 `json:"queued" xml:"Queued"`
	// Error is why the walk stopped early, if it did.
	Error string `json:"error,omitempty" xml:"Error,omitempty"`
}

// Running reports whether the walk has not ended.
func (r Resync) Running() bool { return !r.Started.IsZero() && r.Ended.IsZero() }

// ErrNoResync reports a bucket that was never resynced.
var ErrNoResync = errors.New("no resync of this bucket's replication")

// ErrNoDelivery refuses a resync on a server without replication targets:
// nothing would deliver what it queues.
var ErrNoDelivery = errors.New("this server has no replication targets (--replication-target): nothing would deliver a resync")
