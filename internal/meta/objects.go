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
	// given version; ErrObjectNotFound when there is none, and a
	// *DeleteMarkerError (also ErrObjectNotFound) when that version is a
	// delete marker: a marker is never returned as an object.
	GetObject(ctx context.Context, bucket, key, versionID string) (Object, error)
	// PutObject makes o the latest version of its key if cond holds
	// (checked against the latest version; a latest delete marker is "no
	// object"), replacing any version of the same version ID wherever it
	// is (the null version while versioning is off or suspended); other
	// versions stay, as noncurrent ones. With o.DeleteMarker it writes a
	// delete marker (no data) as the latest version. freed holds the
	// replaced version's blob unless something else still names it. The
	// store does not read the bucket's versioning state: the caller picks
	// the version ID (ADR 0012).
	PutObject(ctx context.Context, o Object, cond Condition) (freed []string, err error)
	// DeleteObject removes the latest (or given) version of key, delete
	// marker or not, for good if cond holds; removing the latest makes the
	// newest remaining version the latest. Deleting a missing key or
	// version succeeds (when cond holds) and frees nothing. (A DELETE on a
	// versioned bucket that keeps the data is a PutObject of a delete
	// marker.)
	//
	// On a bucket with object lock, removing a version its lock protects
	// (ObjectLock.Protects, cond.BypassGovernance) fails with
	// ErrObjectLocked, checked in the transaction that would remove it.
	DeleteObject(ctx context.Context, bucket, key, versionID string, cond Condition) (freed []string, err error)
	// PutObjectTags replaces the tag set (meta.Object.Tags; "" for none)
	// of key's latest version (versionID "") or of the given one, nothing
	// else of it, and returns that version's ID: ErrObjectNotFound when
	// there is none, a *DeleteMarkerError when it is a delete marker.
	PutObjectTags(ctx context.Context, bucket, key, versionID, tags string) (string, error)
	// PutObjectACL replaces the ACL (meta.Object.ACL) of a version as
	// PutObjectTags replaces its tags.
	PutObjectACL(ctx context.Context, bucket, key, versionID, acl string) (string, error)
	// GetObjectLock returns the lock of the latest (versionID "") or the
	// given version, and that version's ID; a zero ObjectLock when it has
	// none. ErrObjectNotFound / *DeleteMarkerError as GetObject.
	GetObjectLock(ctx context.Context, bucket, key, versionID string) (ObjectLock, string, error)
	// PutObjectRetention sets the retention (Mode and RetainUntil of l;
	// Mode "" removes it) of a version, keeping its legal hold;
	// ErrObjectLocked when the current retention forbids the change
	// (ObjectLock.AllowsRetention).
	PutObjectRetention(ctx context.Context, bucket, key, versionID string, l ObjectLock, bypassGovernance bool) error
	// PutObjectLegalHold sets or clears a version's legal hold, keeping
	// its retention. Both fail with ErrNoObjectLock on a bucket created
	// without object lock.
	PutObjectLegalHold(ctx context.Context, bucket, key, versionID string, on bool) error
	// ListObjects returns a page of the latest versions (see ListOptions);
	// keys whose latest version is a delete marker are not listed.
	ListObjects(ctx context.Context, bucket string, opts ListOptions) (ListPage, error)
	// ListObjectVersions returns a page of every version, delete markers
	// included (see ListVersionsOptions).
	ListObjectVersions(ctx context.Context, bucket string, opts ListVersionsOptions) (VersionsPage, error)
	// SetReplication sets the replication status (Object.Replication) of
	// one version of key (a delete marker included) to status if its
	// current status is from (compare and set; from "" matches a version
	// without one), and nothing else of it. ok is false, with no error,
	// when the version is gone or its status is not from.
	SetReplication(ctx context.Context, bucket, key, versionID, from, status string) (ok bool, err error)
	// PendingReplication returns versions of bucket whose status is
	// ReplicationPending, delete markers included, keys in ascending order
	// after afterKey and, within a key, oldest version first (the order
	// they were written); a key's pending versions are never split between
	// two pages; at most about limit versions (more when one key has
	// more). next is the last key returned, "" when there are no more.
	// Returned Objects carry Bucket, Key, VersionID, DeleteMarker, Size,
	// ETag, LastModified and Replication at least.
	PendingReplication(ctx context.Context, bucket, afterKey string, limit int) (vs []Object, next string, err error)
}
