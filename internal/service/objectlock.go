package service

import (
	"context"
	"errors"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// Object lock. A bucket created with object lock (meta.Bucket.ObjectLock)
// has versioning Enabled for good and may hold a default retention (its
// object-lock configuration document); each version's retention and
// legal hold live in the metadata store, which enforces them in the
// transaction of every removal (meta.ObjectStore.DeleteObject). A bucket
// without object lock pays nothing: its flag comes with the cached bucket
// lookup every write already does.

// Errors of object lock.
var (
	// ErrLockedVersioning: versioning cannot be suspended on a bucket
	// with object lock.
	ErrLockedVersioning = errors.New("versioning cannot be suspended on a bucket with object lock")
	// ErrNoLockConfig: GetObjectLockConfiguration on a bucket without
	// object lock.
	ErrNoLockConfig = errors.New("object lock configuration does not exist for this bucket")
	// ErrLockNotEnabled: PutObjectLockConfiguration on a bucket without
	// object lock whose versioning is not Enabled (with versioning
	// Enabled it turns object lock on, as S3 does since 2023).
	ErrLockNotEnabled = errors.New("object lock needs versioning Enabled on the bucket")
	// ErrNoVersionLock: a version without the retention (or, for the
	// legal hold, any lock) asked for.
	ErrNoVersionLock = errors.New("the object version has no object lock configuration")
	// ErrRetainUntilPast: a retention that would end before now.
	ErrRetainUntilPast = errors.New("the retain until date must be in the future")
	// ErrLockNeedsIntegrity: a PutObject with lock parameters (its own or
	// the bucket's default retention) without Content-MD5 or a checksum.
	ErrLockNeedsIntegrity = errors.New("Content-MD5 or a checksum header is required with object lock parameters")
	// ErrLockPartNeedsIntegrity: an UploadPart of an object to be locked
	// (the upload's lock or the bucket's default retention) without
	// Content-MD5 or a checksum.
	ErrLockPartNeedsIntegrity = errors.New("Content-MD5 or a checksum header is required for parts of an object with object lock parameters")
)

// lockConfig is the name of a bucket's object lock configuration document.
const lockConfig = "object-lock"

// LockConfig is a bucket's object lock configuration: the default
// retention of new versions (Mode "" for none), Days or Years.
type LockConfig struct {
	Mode  string `json:"mode,omitempty"`
	Days  int    `json:"days,omitempty"`
	Years int    `json:"years,omitempty"`
}

// until is the retain-until date of a version created at t under c.
func (c LockConfig) until(t time.Time) time.Time {
	if c.Years > 0 {
		return t.AddDate(c.Years, 0, 0)
	}
	return t.AddDate(0, 0, c.Days)
}

// PutObjectLockConfiguration stores bucket's default retention (the
// caller validated c); ErrLockNotEnabled on a bucket without object lock.
func (s *Service) PutObjectLockConfiguration(ctx context.Context, bucket string, c LockConfig) error {
	b, err := s.meta.GetBucket(ctx, bucket)
	if err != nil {
		return err
	}
	if !b.ObjectLock {
		// An existing bucket gets object lock when its versioning is
		// Enabled; the store checks that in the change's transaction.
		err := s.meta.EnableObjectLock(ctx, bucket)
		if errors.Is(err, meta.ErrInvalidBucketState) {
			return ErrLockNotEnabled
		}
		if err != nil {
			return err
		}
	}
	return s.putConfigDoc(ctx, bucket, lockConfig, c, s.lockDefaultsCache.drop)
}

// GetObjectLockConfiguration returns bucket's default retention (a zero
// LockConfig when it has none); ErrNoLockConfig without object lock.
func (s *Service) GetObjectLockConfiguration(ctx context.Context, bucket string) (LockConfig, error) {
	b, err := s.meta.GetBucket(ctx, bucket)
	if err != nil {
		return LockConfig{}, err
	}
	if !b.ObjectLock {
		return LockConfig{}, ErrNoLockConfig
	}
	// Read through, not from the cache: a GET sees a change made through
	// another gateway at once.
	return getConfigDoc[LockConfig](ctx, s, bucket, lockConfig, nil)
}

// LockRequest is the lock a write asks for (x-amz-object-lock-*): Set
// when it asks for a retention or a legal hold (a bucket without object
// lock refuses it); a legal hold OFF alone is only recorded (HoldSet), on
// a bucket with object lock.
type LockRequest struct {
	Set  bool
	Lock meta.ObjectLock
}

// newVersionLock is the lock of a version written now to bucket b: the
// request's, else the bucket's default retention; nil for none. A request
// on a bucket without object lock is meta.ErrNoObjectLock. integrity says
// the body came with Content-MD5 or a checksum; copies pass true.
func (s *Service) newVersionLock(ctx context.Context, b meta.Bucket, req LockRequest, integrity bool) (*meta.ObjectLock, error) {
	if err := checkLockRequest(b, req); err != nil {
		return nil, err
	}
	l, err := s.versionLock(ctx, b, req.Lock)
	if l != nil && !integrity {
		return nil, ErrLockNeedsIntegrity
	}
	return l, err
}

// LockRequestOf is the request for lock l: Set unless l only records a
// legal hold OFF, which any bucket can honour.
func LockRequestOf(l meta.ObjectLock) LockRequest {
	return LockRequest{Set: l.Mode != "" || l.LegalHold, Lock: l}
}

// checkLockRequest validates the lock a write asks for: only a bucket with
// object lock takes one (meta.ErrNoObjectLock), and a retention must end
// in the future (ErrRetainUntilPast). PutObject, CopyObject and
// CreateMultipartUpload check alike.
func checkLockRequest(b meta.Bucket, req LockRequest) error {
	if !req.Set {
		return nil
	}
	if !b.ObjectLock {
		return meta.ErrNoObjectLock
	}
	if req.Lock.Mode != "" && !req.Lock.RetainUntil.After(time.Now()) {
		return ErrRetainUntilPast
	}
	return nil
}

// versionLock is the lock a version created now in bucket b gets: l (a
// checked request's), with the bucket's default retention when l has no
// retention of its own; nil when that locks nothing.
func (s *Service) versionLock(ctx context.Context, b meta.Bucket, l meta.ObjectLock) (*meta.ObjectLock, error) {
	if !b.ObjectLock {
		return nil, nil
	}
	if l.Mode == "" {
		c, err := s.lockDefaults(ctx, b.Name)
		if err != nil {
			return nil, err
		}
		if c.Mode != "" {
			l.Mode, l.RetainUntil = c.Mode, c.until(meta.Now())
		}
	}
	if l.IsZero() {
		return nil, nil
	}
	return &l, nil
}

// lockDefaults is bucket's default retention (a bucket with object lock),
// from the cache (ConfigCacheTTL), so that writes to a bucket with object
// lock cost no query for it on repeat. PutObjectLockConfiguration drops the
// entry before and after its write, and a lookup that raced with it is not
// kept (configCache): once it has answered, no write that starts on this
// gateway gets the old default retention. Another gateway sharing the
// database sees the change within ConfigCacheTTL (docs/ARCHITECTURE.md).
func (s *Service) lockDefaults(ctx context.Context, bucket string) (LockConfig, error) {
	return s.lockDefaultsCache.load(bucket, func() (LockConfig, error) {
		return getConfigDoc[LockConfig](ctx, s, bucket, lockConfig, nil)
	}, func(err error) bool { return errors.Is(err, meta.ErrBucketNotFound) })
}

// GetObjectRetention returns the retention of a version (the latest for
// versionID ""); ErrNoVersionLock when it has none.
func (s *Service) GetObjectRetention(ctx context.Context, bucket, key, versionID string) (meta.ObjectLock, error) {
	l, err := s.getObjectLock(ctx, bucket, key, versionID)
	if err == nil && l.Mode == "" {
		err = ErrNoVersionLock
	}
	return l, err
}

// GetObjectLegalHold returns whether a version is under a legal hold;
// ErrNoVersionLock when none was ever placed or released on it (S3 answers
// a released hold with OFF, one never set with no configuration).
func (s *Service) GetObjectLegalHold(ctx context.Context, bucket, key, versionID string) (bool, error) {
	l, err := s.getObjectLock(ctx, bucket, key, versionID)
	if err == nil && !l.HoldSet {
		err = ErrNoVersionLock
	}
	return l.LegalHold, err
}

func (s *Service) getObjectLock(ctx context.Context, bucket, key, versionID string) (meta.ObjectLock, error) {
	b, err := s.meta.GetBucket(ctx, bucket)
	if err != nil {
		return meta.ObjectLock{}, err
	}
	if !b.ObjectLock {
		return meta.ObjectLock{}, meta.ErrNoObjectLock
	}
	l, _, err := s.meta.GetObjectLock(ctx, bucket, key, versionID)
	return l, err
}

// PutObjectRetention sets a version's retention (l.Mode "" removes it):
// COMPLIANCE can only be extended; GOVERNANCE shortened or removed only
// with bypassGovernance (meta.ErrObjectLocked otherwise).
func (s *Service) PutObjectRetention(ctx context.Context, bucket, key, versionID string, l meta.ObjectLock, bypassGovernance bool) error {
	if l.Mode != "" && !l.RetainUntil.After(time.Now()) {
		return ErrRetainUntilPast
	}
	return s.meta.PutObjectRetention(ctx, bucket, key, versionID, l, bypassGovernance)
}

// PutObjectLegalHold sets or clears a version's legal hold.
func (s *Service) PutObjectLegalHold(ctx context.Context, bucket, key, versionID string, on bool) error {
	return s.meta.PutObjectLegalHold(ctx, bucket, key, versionID, on)
}

// ObjectLockOf returns the lock of a version read from bucket for GET and
// HEAD: none, without a query, on a bucket without object lock.
func (s *Service) ObjectLockOf(ctx context.Context, bucket, key, versionID string) (meta.ObjectLock, error) {
	b, err := s.meta.GetBucket(ctx, bucket)
	if err != nil || !b.ObjectLock {
		return meta.ObjectLock{}, err
	}
	l, _, err := s.meta.GetObjectLock(ctx, bucket, key, versionID)
	return l, err
}
