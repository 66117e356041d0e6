package meta

import "context"

// BucketStore keeps buckets and their configuration documents (CORS today;
// lifecycle, policy, tagging, versioning state later).
//
// Every method but CreateBucket and ListBuckets fails with
// ErrBucketNotFound when the bucket does not exist.
type BucketStore interface {
	// CreateBucket makes bucket b (ErrBucketExists); with b.ObjectLock
	// its versioning is Enabled from the start.
	CreateBucket(ctx context.Context, b Bucket) error
	GetBucket(ctx context.Context, name string) (Bucket, error)
	// ListBuckets returns the buckets opts selects, in byte-wise name
	// order; ListBucketsOptions{} returns them all.
	ListBuckets(ctx context.Context, opts ListBucketsOptions) ([]Bucket, error)
	// DeleteBucket removes an empty bucket (ErrBucketNotEmpty while any
	// object version is left), its configurations, and its multipart
	// uploads in progress, as S3 does; freed are those uploads' parts.
	DeleteBucket(ctx context.Context, name string) (freed []string, err error)

	// SetBucketVersioning sets bucket's versioning state (Bucket.Versioning:
	// VersioningEnabled or VersioningSuspended); Suspended on a bucket
	// with object lock is ErrInvalidBucketState.
	SetBucketVersioning(ctx context.Context, bucket, state string) error
	// EnableObjectLock turns object lock on for bucket, for good
	// (Bucket.ObjectLock; on already is fine): ErrInvalidBucketState unless
	// its versioning is Enabled.
	EnableObjectLock(ctx context.Context, bucket string) error

	// SetBucketQuota sets bucket's quota (Bucket.Quota) in bytes; 0
	// removes it. A quota below the bucket's usage refuses every write
	// that would add bytes until deletes bring the usage under it.
	SetBucketQuota(ctx context.Context, bucket string, quota int64) error
	// BucketUsage returns what bucket holds, in one snapshot: the bytes
	// its stored versions sum to (noncurrent versions included; parts of
	// uploads in progress not), exact: every write that changes it
	// changes it in its transaction; and its objects. A write that would
	// raise the bytes above a quota is refused with ErrQuotaExceeded,
	// checked in the same transaction.
	BucketUsage(ctx context.Context, bucket string) (Usage, error)

	// PutBucketConfig stores doc as bucket's configuration named name
	// (e.g. "cors"), replacing any earlier one. The store keeps documents
	// opaque: their format is the caller's.
	PutBucketConfig(ctx context.Context, bucket, name string, doc []byte) error
	// GetBucketConfig returns the configuration named name of bucket:
	// ErrBucketNotFound without the bucket, ErrNoSuchConfig without the
	// configuration.
	GetBucketConfig(ctx context.Context, bucket, name string) ([]byte, error)
	// DeleteBucketConfig removes a configuration; removing one that is not
	// there succeeds.
	DeleteBucketConfig(ctx context.Context, bucket, name string) error
}

// ListBucketsOptions selects a page of buckets. A caller pages by passing
// the last name it got as After, asking one more than it shows to learn
// whether more follow.
type ListBucketsOptions struct {
	Prefix string // only names that start with Prefix
	After  string // only names that sort after After ("": from the first)
	Limit  int    // at most Limit buckets; 0 means no limit
}

// BucketHinter is an optional capability of a store whose GetBucket costs
// a round trip (PostgreSQL): BucketHint answers from what it read before,
// possibly stale by a bounded time, for a write that holds its choices to
// the bucket's state in its transaction (Condition.Versioning,
// Condition.ObjectLock; the bucket's existence and quota are read there
// anyway) and reads the bucket again with GetBucket when that fails.
// Nothing else may rely on its answer.
type BucketHinter interface {
	BucketHint(ctx context.Context, name string) (Bucket, error)
}
