package meta

import (
	"context"
	"time"
)

// UploadStore keeps multipart uploads in progress and their parts, and the
// parts of completed uploads, which stay as the data of the objects made
// from them. Every method but ObjectParts fails with ErrBucketNotFound when
// the bucket does not exist; those naming an upload fail with
// ErrUploadNotFound when it is not in progress under that bucket and key
// (never begun, completed, or aborted).
type UploadStore interface {
	// CreateUpload records a new multipart upload (u.UploadID set by the
	// caller, unique and increasing with creation time).
	CreateUpload(ctx context.Context, u Upload) error
	// GetUpload returns an upload in progress.
	GetUpload(ctx context.Context, bucket, key, uploadID string) (Upload, error)
	// PutPart adds or replaces a part of an upload in progress; freed
	// holds the replaced part's blob.
	PutPart(ctx context.Context, bucket, key, uploadID string, p Part) (freed []string, err error)
	// ListParts returns up to limit parts numbered above after, by number;
	// truncated reports that more follow.
	ListParts(ctx context.Context, bucket, key, uploadID string, after, limit int) (parts []Part, truncated bool, err error)
	// ListUploads returns a page of a bucket's uploads in progress.
	ListUploads(ctx context.Context, bucket string, opts ListUploadsOptions) (UploadsPage, error)
	// CompleteUpload makes o (o.UploadID, o.Parts: the chosen parts with
	// the ETags the caller validated) the latest version of its key if
	// cond holds, as ObjectStore.PutObject does, in the same transaction
	// ends the upload, and frees the parts not chosen and the replaced
	// version's data. A chosen part replaced or removed since validation
	// fails the call with ErrPartChanged; on any failure nothing changes.
	CompleteUpload(ctx context.Context, o Object, cond Condition) (freed []string, err error)
	// AbortUpload ends an upload in progress and frees its parts.
	AbortUpload(ctx context.Context, bucket, key, uploadID string) (freed []string, err error)
	// ObjectParts returns the parts of a completed upload (Object.UploadID),
	// by number; an unknown ID has none (no error).
	ObjectParts(ctx context.Context, uploadID string) ([]Part, error)
}

// Upload is a multipart upload in progress.
type Upload struct {
	Bucket, Key, UploadID string
	Initiated             time.Time
	Owner                 string
	StorageClass          string
	Headers               ContentHeaders
	UserMeta              map[string]string
	// ChecksumAlgorithm and ChecksumType are what CreateMultipartUpload
	// asked for; every part carries a checksum of that algorithm.
	ChecksumAlgorithm string
	ChecksumType      string
	// Tags are the tags CreateMultipartUpload was given (x-amz-tagging
	// form, "" for none), the completed object's.
	Tags string
	// ACL is the ACL CreateMultipartUpload was given (acl.Encode, "" for
	// the private one), the completed object's.
	ACL string
	// Lock is the retention and legal hold CreateMultipartUpload was
	// given (x-amz-object-lock-*), nil for none; the caller validated it.
	// The completed version gets it (Object.Lock).
	Lock *ObjectLock
	// Encryption seals every part (each under its own key, derived from
	// the upload's data key and the part number: sse.PartKey) and is the
	// completed version's (Object.Encryption).
	Encryption Encryption
}

// Part is one uploaded part. Parts of a completed upload stay in the store
// as the data of the object made from them.
type Part struct {
	Number       int
	BlobID       string // "" for an empty part
	Size         int64
	ETag         string // unquoted hex MD5
	LastModified time.Time
	// Checksum is the part's checksum in the upload's algorithm (base64),
	// ChecksumAlgorithm that algorithm.
	ChecksumAlgorithm string
	Checksum          string
	// Encryption is not stored with the part: UploadPart and
	// UploadPartCopy of the service set it to their upload's, which seals
	// the part, so that their answers can name it without another read.
	Encryption Encryption
}

// ListUploadsOptions selects a page of a bucket's uploads in progress, in
// key order and, per key, in the order they were created.
type ListUploadsOptions struct {
	Prefix, Delimiter         string
	KeyMarker, UploadIDMarker string
	Limit                     int
}

// UploadsPage is one page of ListUploads.
type UploadsPage struct {
	Uploads            []Upload
	CommonPrefixes     []string
	Truncated          bool
	NextKeyMarker      string
	NextUploadIDMarker string
}
