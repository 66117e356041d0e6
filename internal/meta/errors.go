package meta

import (
	"errors"
	"fmt"
	"time"
)

// Sentinel errors returned by every Store implementation. Callers test them
// with errors.Is; implementations may wrap them with detail.
var (
	ErrBucketNotFound = errors.New("bucket not found")
	ErrBucketExists   = errors.New("bucket already exists")
	ErrBucketNotEmpty = errors.New("bucket not empty")
	// ErrInvalidBucketState reports a bucket change its state forbids:
	// object lock without versioning Enabled, versioning suspended under
	// object lock.
	ErrInvalidBucketState = errors.New("bucket state forbids the change")
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
	// ErrNoSpace reports a write refused because the storage under the
	// store is full (SQLite: SQLITE_FULL). Nothing of the write was kept;
	// deletes may still succeed and free room. Backends mark their own
	// error with MarkNoSpace.
	ErrNoSpace = errors.New("metadata store: no space left")
	// ErrStoreGone reports a write refused because the store's files are
	// no longer where it opened them (the data dir deleted or moved under
	// the running server): what it wrote would be lost with them, so it
	// acknowledges nothing more. Nothing of the write was kept.
	ErrStoreGone = errors.New("metadata store: its database file is gone from the data dir (deleted or moved under the running server)")
	// ErrUnavailable reports a call that failed because the store cannot
	// be reached (PostgreSQL stopped, restarting, or the network to it
	// down). Whether anything of a write was kept is unknown to the
	// caller, as with any lost connection; retrying later is the remedy.
	// Backends wrap their driver's error with it.
	ErrUnavailable = errors.New("metadata store unreachable")
	// ErrQuotaExceeded reports a write refused because it would make its
	// bucket's usage exceed the bucket's quota (BucketStore.BucketUsage);
	// a part refused because the upload's parts alone would. Nothing
	// changed.
	ErrQuotaExceeded = errors.New("bucket quota exceeded")
	// ErrVersionMarker reports a ListObjectVersions VersionIDMarker that
	// names no version of its KeyMarker: the listing has no position to
	// resume from.
	ErrVersionMarker = errors.New("version-id marker names no version of the key marker")
	// ErrVersioningChanged reports a write held to a bucket versioning
	// state or object lock (Condition.Versioning, Condition.ObjectLock)
	// that changed before it committed; it is an ErrConflict. Nothing
	// changed: the caller decides again, under the state the store
	// reports with it (VersioningChangedError).
	ErrVersioningChanged = fmt.Errorf("bucket versioning or object lock changed during the write: %w", ErrConflict)
	// ErrUnstorableKey reports a key (or version ID) the store cannot
	// keep: PostgreSQL's text holds neither NUL bytes nor invalid UTF-8.
	// Nothing changed.
	ErrUnstorableKey = errors.New("the metadata store cannot keep a key with a NUL byte or invalid UTF-8")

	// IAMStore's errors, one per error code of IAM's API: NoSuchEntity,
	// EntityAlreadyExists, LimitExceeded, DeleteConflict. A store wraps
	// them with IAM's message where it has one.
	ErrNoSuchEntity        = errors.New("no such entity")
	ErrEntityAlreadyExists = errors.New("entity already exists")
	ErrLimitExceeded       = errors.New("limit exceeded")
	ErrDeleteConflict      = errors.New("cannot delete entity")
)

// DeleteMarkerError is GetObject's answer when the version asked for (the
// latest, or one by version ID) is a delete marker: errors.Is(err,
// ErrObjectNotFound) holds, and VersionID names the marker, which S3
// reports in x-amz-version-id beside x-amz-delete-marker: true.
type DeleteMarkerError struct {
	VersionID    string
	LastModified time.Time
}

func (e *DeleteMarkerError) Error() string {
	return "object not found: version " + e.VersionID + " is a delete marker"
}

// Is makes a DeleteMarkerError an ErrObjectNotFound.
func (e *DeleteMarkerError) Is(target error) bool { return target == ErrObjectNotFound }

// MarkNoSpace returns err marked as ErrNoSpace: errors.Is(result,
// ErrNoSpace) holds, while its message and what it wraps stay err's.
func MarkNoSpace(err error) error { return noSpaceError{err} }

type noSpaceError struct{ err error }

func (e noSpaceError) Error() string        { return e.err.Error() }
func (e noSpaceError) Unwrap() error        { return e.err }
func (e noSpaceError) Is(target error) bool { return target == ErrNoSpace }

// IAMError is an IAMStore error with the message IAM gives for it ("The
// user with name alice cannot be found."): errors.Is(err, Code) holds, and
// Error is the message alone, for the IAM API to send as it is.
type IAMError struct {
	Code    error // ErrNoSuchEntity, ErrEntityAlreadyExists, ErrLimitExceeded, ErrDeleteConflict
	Message string
}

// IAMErrorf returns an *IAMError of code with a formatted message.
func IAMErrorf(code error, format string, args ...any) error {
	return &IAMError{Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *IAMError) Error() string { return e.Message }
func (e *IAMError) Unwrap() error { return e.Code }

// VersioningChangedError is ErrVersioningChanged (errors.Is) with the
// bucket's state the failed write's transaction saw: the state a writer
// retrying decides under, exact where a read of the bucket (a cache, a
// hint) may not yet show the change.
type VersioningChangedError struct{ Now BucketState }

func (e *VersioningChangedError) Error() string { return ErrVersioningChanged.Error() }

// Unwrap makes the error ErrVersioningChanged, and ErrConflict.
func (e *VersioningChangedError) Unwrap() error { return ErrVersioningChanged }
