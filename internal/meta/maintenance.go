package meta

import "context"

// MaintenanceStore holds the whole-store walks of recovery and jog fsck.
// The request path never calls them; they run beside a live server, so
// each call is a bounded read that does not hold up writers.
type MaintenanceStore interface {
	// ScanObjects returns up to limit versions of bucket's objects, latest
	// or not, delete markers included (DeleteMarker, IsLatest set), in (key, version ID) byte-wise order, after (afterKey,
	// afterVersion); ("", "") starts at the first, and fewer than limit
	// means the end. Objects are complete as GetObject returns them.
	// ErrBucketNotFound without the bucket. Listings use ListObjects.
	ScanObjects(ctx context.Context, bucket, afterKey, afterVersion string, limit int) ([]Object, error)
	// UnreferencedBlobs returns those of ids that no object version and no
	// part refers to, in any bucket. Recovery and fsck use it to find blobs
	// orphaned by a crash.
	UnreferencedBlobs(ctx context.Context, ids []string) ([]string, error)
}

// IndexChecker is an optional capability of a Store that keeps indexes
// derived from its objects (the SQLite store's directory index, ADR 0010);
// jog fsck finds it with a type assertion, checks the indexes against the
// objects and, with repair, rebuilds them. A backend without derived
// indexes does not implement it.
type IndexChecker interface {
	// CheckIndexes calls report for each disagreement, from one snapshot.
	// With repair it then rebuilds the indexes of each bucket that had one
	// (Repaired set on its problems) and reports nothing it could not fix.
	CheckIndexes(ctx context.Context, repair bool, report func(IndexProblem)) error
}

// IndexProblem is one disagreement between a derived index and the objects.
type IndexProblem struct {
	Bucket string
	Name   string // the directory or key concerned
	Detail string
	// Repaired: the bucket's indexes were rebuilt after the finding.
	Repaired bool
}
