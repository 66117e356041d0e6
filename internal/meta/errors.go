package meta

import "errors"

// Sentinel errors returned by every Store implementation. Callers test them
// with errors.Is; implementations may wrap them with detail.
var (
	ErrBucketNotFound     = errors.New("bucket not found")
	ErrBucketExists       = errors.New("bucket already exists")
	ErrBucketNotEmpty     = errors.New("bucket not empty")
	ErrObjectNotFound     = errors.New("object not found")
	ErrPreconditionFailed = errors.New("precondition failed")
	ErrUploadNotFound     = errors.New("multipart upload not found")
	// ErrNoSuchConfig reports a bucket configuration (CORS, lifecycle, …)
	// that was never set or was deleted.
	ErrNoSuchConfig = errors.New("bucket configuration not found")
	// ErrPartChanged reports that a part named in a completion was replaced
	// or removed after the caller validated it.
	ErrPartChanged = errors.New("part changed during completion")
	// ErrConflict reports a write that lost a race it cannot retry by itself
	// (for example a conditional write whose condition changed under it).
	ErrConflict = errors.New("conflicting concurrent operation")
)
