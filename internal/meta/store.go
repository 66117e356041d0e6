package meta

import (
	"context"
	"time"
)

// Store is the metadata backend. All methods are safe for concurrent use.
//
// Not-found results are reported with ErrBucketNotFound / ErrObjectNotFound
// (ErrNoSuchConfig for a bucket configuration).
// A method that changes objects returns the blob IDs that are no longer
// referenced once its transaction has committed; the caller deletes those
// blobs after the call returns (never before: a crash in between leaves an
// orphan blob, which recovery removes, rather than a missing one).
type Store interface {
	CreateBucket(ctx context.Context, b Bucket) error // ErrBucketExists
	GetBucket(ctx context.Context, name string) (Bucket, error)
	// ListBuckets returns the buckets opts selects, in byte-wise name
	// order; ListBucketsOptions{} returns them all.
	ListBuckets(ctx context.Context, opts ListBucketsOptions) ([]Bucket, error)
	// DeleteBucket removes an empty bucket (ErrBucketNotEmpty otherwise),
	// aborting its multipart uploads in progress, as S3 does.
	DeleteBucket(ctx context.Context, name string) (freed []string, err error)

	// GetObject returns the latest version of key (versionID "") or the given
	// version.
	GetObject(ctx context.Context, bucket, key, versionID string) (Object, error)
	// PutObject makes o the latest version of its key if cond holds, replacing
	// the previous null version. Fails with ErrBucketNotFound or
	// ErrPreconditionFailed; on failure nothing changes.
	PutObject(ctx context.Context, o Object, cond Condition) (freed []string, err error)
	// DeleteObject removes the latest (or given) version of key. Deleting a
	// missing key succeeds and frees nothing.
	DeleteObject(ctx context.Context, bucket, key, versionID string, cond Condition) (freed []string, err error)
	// ListObjects returns a page of the latest versions.
	ListObjects(ctx context.Context, bucket string, opts ListOptions) (ListPage, error)
	// ScanObjects returns up to limit versions of bucket's objects, latest
	// or not, in (key, version ID) byte-wise order, after (afterKey,
	// afterVersion); ("", "") starts at the first. Objects are complete as
	// GetObject returns them. Whole-store checks (jog fsck) page through
	// every object with it; listings use ListObjects.
	ScanObjects(ctx context.Context, bucket, afterKey, afterVersion string, limit int) ([]Object, error)

	// CreateUpload records a new multipart upload (u.UploadID set by the
	// caller, unique and increasing with creation time).
	CreateUpload(ctx context.Context, u Upload) error
	// GetUpload returns an upload in progress (ErrUploadNotFound).
	GetUpload(ctx context.Context, bucket, key, uploadID string) (Upload, error)
	// PutPart adds or replaces a part of an upload in progress.
	PutPart(ctx context.Context, bucket, key, uploadID string, p Part) (freed []string, err error)
	// ListParts returns up to limit parts numbered above after.
	ListParts(ctx context.Context, bucket, key, uploadID string, after, limit int) (parts []Part, truncated bool, err error)
	// ListUploads returns a page of a bucket's uploads in progress.
	ListUploads(ctx context.Context, bucket string, opts ListUploadsOptions) (UploadsPage, error)
	// CompleteUpload makes o (o.UploadID, o.Parts: the chosen parts with
	// the ETags the caller validated) the latest version of its key if cond
	// holds, ends the upload and frees the parts not chosen. A chosen part
	// replaced since validation fails the call with ErrPartChanged.
	CompleteUpload(ctx context.Context, o Object, cond Condition) (freed []string, err error)
	// AbortUpload ends an upload in progress and frees its parts.
	AbortUpload(ctx context.Context, bucket, key, uploadID string) (freed []string, err error)
	// ObjectParts returns the parts of a completed upload, by number.
	ObjectParts(ctx context.Context, uploadID string) ([]Part, error)

	// PutBucketConfig stores doc as bucket's configuration named name
	// (e.g. "cors"), replacing any earlier one (ErrBucketNotFound). The
	// store keeps documents opaque: their format is the caller's.
	// Deleting the bucket deletes its configurations.
	PutBucketConfig(ctx context.Context, bucket, name string, doc []byte) error
	// GetBucketConfig returns the configuration named name of bucket:
	// ErrBucketNotFound without the bucket, ErrNoSuchConfig without the
	// configuration.
	GetBucketConfig(ctx context.Context, bucket, name string) ([]byte, error)
	// DeleteBucketConfig removes a configuration; removing one that is not
	// there succeeds (ErrBucketNotFound without the bucket).
	DeleteBucketConfig(ctx context.Context, bucket, name string) error
	// UnreferencedBlobs returns those of ids that no metadata refers to.
	// Recovery uses it to find blobs orphaned by a crash.
	UnreferencedBlobs(ctx context.Context, ids []string) ([]string, error)

	Close() error
}

// ListBucketsOptions selects a page of buckets. A caller pages by passing
// the last name it got as After, asking one more than it shows to learn
// whether more follow.
type ListBucketsOptions struct {
	Prefix string // only names that start with Prefix
	After  string // only names that sort after After ("": from the first)
	Limit  int    // at most Limit buckets; 0 means no limit
}

// IndexChecker is a Store that keeps indexes derived from its objects (the
// SQLite store's directory index, ADR 0010). jog fsck checks them against
// the objects and, with repair, rebuilds them.
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

// Now is the clock stores use for timestamps, truncated to what S3 reports.
func Now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }
