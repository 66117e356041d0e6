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

// VersionChecker is an optional capability of a Store that keeps a key's
// versions in more than one structure (the SQLite store's live view beside
// object_versions, ADR 0012): jog fsck finds it with a type assertion and
// checks that they agree — at most one latest version per key, the newest,
// a delete marker when it is not a live object; no version ID both live
// and noncurrent; no lock on a version that does not exist. It repairs
// nothing: which row is right is not the checker's to guess.
type VersionChecker interface {
	// CheckVersions calls report for each disagreement, each bucket read
	// in one snapshot.
	CheckVersions(ctx context.Context, report func(VersionProblem)) error
}

// VersionProblem is one disagreement among a key's versions.
type VersionProblem struct {
	Bucket, Key, VersionID string
	Detail                 string
}
