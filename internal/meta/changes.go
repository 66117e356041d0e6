package meta

import "context"

// Changes is an optional capability of a Store that several processes
// share (the PostgreSQL store: many gateways, one database): it tells a
// process what the others changed, so that what it caches of the store
// (a bucket's configuration documents, IAM, reservations) is dropped
// within the time a notification takes rather than when the cache's time
// bound runs out. Servers find it with a type assertion. A store only one
// process opens (SQLite) does not implement it: every change is made
// through the process that caches.
//
// Delivery is best effort and the time bounds of the caches stay the
// fallback: while the store cannot listen (its connection lost, being
// re-established), nothing arrives; once it listens again, a ChangedAll
// says that anything may have changed meanwhile.
type Changes interface {
	// Changes delivers, until ctx ends, what changed in the store,
	// changes made through this process included. The first Change is a
	// ChangedAll, sent once the store listens: anything committed after
	// it is announced. The channel is closed when the listener has
	// stopped, after ctx ends. Each call listens on its own: one per
	// process is the use.
	Changes(ctx context.Context) <-chan Change
}

// ChangeKind says what a Change is about.
type ChangeKind uint8

const (
	// ChangedAll: anything may have changed (the store listens again after
	// a gap, or from the start): drop every cache.
	ChangedAll ChangeKind = iota
	// ChangedBucket: bucket Change.Bucket was created or deleted, or one
	// of its configuration documents (BucketStore.PutBucketConfig) or its
	// versioning, object lock or quota changed.
	ChangedBucket
	// ChangedIAM: an IAM write committed (IAMStore.IAMGeneration moved).
	ChangedIAM
	// ChangedReservations: a reservation was created or removed.
	ChangedReservations
	// ChangedSessions: a console session was signed out
	// (SessionRevoker.RevokeSession).
	ChangedSessions
)

// String names the kind for logs.
func (k ChangeKind) String() string {
	switch k {
	case ChangedAll:
		return "all"
	case ChangedBucket:
		return "bucket"
	case ChangedIAM:
		return "iam"
	case ChangedReservations:
		return "reservations"
	case ChangedSessions:
		return "sessions"
	}
	return "unknown"
}

// Change is one thing Changes announces.
type Change struct {
	Kind   ChangeKind
	Bucket string // the bucket's name, for ChangedBucket
}
