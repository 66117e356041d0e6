package meta

import "context"

// ObjectStore keeps object versions: the reads, writes and listings of the
// request path. Every method fails with ErrBucketNotFound when the bucket
// does not exist.
//
// Writes and deletes take a Condition, checked against the key's latest
// version inside the transaction that commits the change: a failed
// condition is ErrPreconditionFailed (ErrObjectNotFound for IfMatch on a
// missing key), and a conditional write that loses a race may instead fail
// with ErrConflict. On any failure nothing changes and nothing is freed.
type ObjectStore interface {
	// GetObject returns the latest version of key (versionID "") or the
	// given version; ErrObjectNotFound when there is none.
	GetObject(ctx context.Context, bucket, key, versionID string) (Object, error)
	// PutObject makes o the latest version of its key if cond holds,
	// replacing the previous version of the same version ID (the null
	// version while versioning is off); other versions stay. freed holds
	// the replaced version's blob unless something else still names it.
	PutObject(ctx context.Context, o Object, cond Condition) (freed []string, err error)
	// DeleteObject removes the latest (or given) version of key if cond
	// holds; removing the latest makes the newest remaining version the
	// latest. Deleting a missing key or version succeeds (when cond holds)
	// and frees nothing.
	DeleteObject(ctx context.Context, bucket, key, versionID string, cond Condition) (freed []string, err error)
	// ListObjects returns a page of the latest versions (see ListOptions).
	ListObjects(ctx context.Context, bucket string, opts ListOptions) (ListPage, error)
}
