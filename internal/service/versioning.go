package service

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/jogstore/jog/internal/bucketrepl"
	"github.com/jogstore/jog/internal/meta"
)

// ErrVersioningState is a versioning state other than Enabled or
// Suspended (a bucket cannot go back to unversioned).
var ErrVersioningState = errors.New("versioning state must be Enabled or Suspended")

// newVersionID returns a version ID that is unique, URL-safe and sorts in
// creation order, as upload IDs: 16 hex digits of Unix nanoseconds, then
// 16 of randomness. Order among a key's versions is the store's (ADR
// 0012); the time prefix only makes IDs readable and spread.
func newVersionID() string {
	var b [8]byte
	rand.Read(b[:])
	return fmt.Sprintf("%016x", time.Now().UnixNano()) + hex.EncodeToString(b[:])
}

// ValidVersionID reports whether v is a version ID a JOG store can hold:
// "null" or the form newVersionID makes (32 lower-case hex digits).
func ValidVersionID(v string) bool {
	if v == meta.NullVersion {
		return true
	}
	if len(v) != 32 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// writeVersion is the version ID a write to bucket b creates: a new one
// while versioning is Enabled, else the null version (replaced by the
// write).
func writeVersion(b meta.Bucket) string {
	if b.Versioning == meta.VersioningEnabled {
		return newVersionID()
	}
	return meta.NullVersion
}

// versioningTries bounds the writes underVersioning tries: each retry
// decides under the state the last one's transaction saw, so only a change
// of the bucket's versioning (or object lock) between two of them fails
// it again.
const versioningTries = 16

// versioningBackoff waits before the write's next try once two have lost
// to a change of the bucket's versioning: a random part of a millisecond
// per try, so that writes racing a client that toggles versioning without
// pause (a test's, an attacker's) get between its commits on a busy
// machine rather than each losing all its tries (at most about 0.12 s in
// all). Nil, at once, for the first retry; the context's error when it
// ends first.
func versioningBackoff(ctx context.Context, tries int) error {
	if tries < 2 {
		return nil
	}
	var b [2]byte
	_, _ = rand.Read(b[:])
	d := time.Duration(int(b[0])<<8|int(b[1])) * time.Duration(tries) * time.Millisecond / (1 << 16)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ErrVersioningBusy reports a write that gave up after its bucket's
// versioning changed under each of versioningTries attempts: for a
// write with no condition of its own, a reason to slow down and retry, not
// a conflict (S3 answers ConditionalRequestConflict to conditional writes
// only). Nothing changed.
var ErrVersioningBusy = errors.New("bucket versioning changed under every attempt of the write")

// underVersioning runs write with bucket b's versioning state and object
// lock and cond holding the store to them (meta.Condition.Versioning,
// meta.Condition.ObjectLock), again while the store answers
// meta.ErrVersioningChanged, with the bucket read anew and the state the
// store reported with the error (meta.VersioningChangedError, exact where
// the read may lag): what a write makes (a new version ID or the null
// version, a delete marker or a removal, a default retention) follows the
// state its commit sees, even when versioning was enabled while a long PUT
// streamed its body — or when b was a hint (bucketForWrite). write must
// reuse what it wrote before (the body is read once). A write that never
// commits fails with the store's ErrVersioningChanged when cond holds a
// condition of the request, else with ErrVersioningBusy.
func (s *Service) underVersioning(ctx context.Context, b meta.Bucket, cond meta.Condition, write func(meta.Bucket, meta.Condition) error) error {
	for tries := 1; ; tries++ {
		state, lock := b.Versioning, b.ObjectLock
		cond.Versioning, cond.ObjectLock = &state, &lock
		err := write(b, cond)
		switch {
		case !errors.Is(err, meta.ErrVersioningChanged):
			return err
		case tries == versioningTries && cond.IsZero():
			return ErrVersioningBusy
		case tries == versioningTries:
			return err
		}
		var changed *meta.VersioningChangedError
		lost := errors.As(err, &changed)
		if err := versioningBackoff(ctx, tries); err != nil {
			return err
		}
		if b, err = s.meta.GetBucket(ctx, b.Name); err != nil {
			return err
		}
		if lost {
			b.Versioning, b.ObjectLock = changed.Now.Versioning, changed.Now.ObjectLock
		}
	}
}

// GetBucketVersioning returns bucket's versioning state: "" while it was
// never set, else meta.VersioningEnabled or meta.VersioningSuspended.
func (s *Service) GetBucketVersioning(ctx context.Context, bucket string) (string, error) {
	b, err := s.meta.GetBucket(ctx, bucket)
	return b.Versioning, err
}

// PutBucketVersioning enables or suspends versioning on bucket. A bucket
// with a replication configuration cannot be suspended
// (bucketrepl.ErrVersioningLocked): checked before the write, and after
// it, since PutBucketReplication writes, then checks versioning — one of
// two that race sees the other; a suspension that finds a configuration
// after it enables versioning again.
func (s *Service) PutBucketVersioning(ctx context.Context, bucket, state string) error {
	if state != meta.VersioningEnabled && state != meta.VersioningSuspended {
		return ErrVersioningState
	}
	suspend := state == meta.VersioningSuspended
	if suspend {
		if err := s.refuseReplicated(ctx, bucket); err != nil {
			return err
		}
	}
	err := s.meta.SetBucketVersioning(ctx, bucket, state)
	if errors.Is(err, meta.ErrInvalidBucketState) { // the store checks in its transaction
		return ErrLockedVersioning
	}
	if err != nil || !suspend {
		return err
	}
	switch err := s.refuseReplicated(ctx, bucket); {
	case errors.Is(err, bucketrepl.ErrVersioningLocked):
		return errors.Join(err, s.meta.SetBucketVersioning(ctx, bucket, meta.VersioningEnabled))
	case err != nil: // suspended all the same; a racing Put sees it
		s.log.Warn("replication configuration not checked after suspending versioning", "bucket", bucket, "err", err)
	}
	return nil
}

// refuseReplicated refuses to suspend versioning on a bucket with a
// replication configuration.
func (s *Service) refuseReplicated(ctx context.Context, bucket string) error {
	has, err := s.hasReplication(ctx, bucket)
	if err == nil && has {
		return bucketrepl.ErrVersioningLocked
	}
	return err
}

// VersionHeader returns the x-amz-version-id S3 sends for versionID of an
// object in bucket: none ("") for the null version of a bucket whose
// versioning was never set, versionID otherwise. The bucket lookup is the
// store's cached one.
func (s *Service) VersionHeader(ctx context.Context, bucket, versionID string) string {
	if versionID != meta.NullVersion {
		return versionID
	}
	b, err := s.meta.GetBucket(ctx, bucket)
	if err != nil {
		return ""
	}
	return VersionHeaderOf(b, versionID)
}

// ObjectVersionHeader is VersionHeader for object o read or written:
// from the bucket's state o carries (meta.Object.InBucket) when known,
// without a lookup.
func (s *Service) ObjectVersionHeader(ctx context.Context, bucket string, o meta.Object) string {
	if o.InBucket.Known {
		return VersionHeaderOf(meta.Bucket{Versioning: o.InBucket.Versioning}, o.VersionID)
	}
	return s.VersionHeader(ctx, bucket, o.VersionID)
}

// ObjectBucket returns the bucket an answer about object o depends on
// (its version and lock headers): the state read or written with o
// (meta.Object.InBucket) when known, in the same snapshot and without a
// round trip; else the bucket read now. Only Name, Versioning and
// ObjectLock are set in the first case.
func (s *Service) ObjectBucket(ctx context.Context, bucket string, o meta.Object) (meta.Bucket, error) {
	if o.InBucket.Known {
		return meta.Bucket{Name: bucket, Versioning: o.InBucket.Versioning, ObjectLock: o.InBucket.ObjectLock}, nil
	}
	return s.meta.GetBucket(ctx, bucket)
}

// bucketForWrite returns bucket as a write starts from it: the store's
// hint when it gives one (meta.BucketHinter: no round trip), which the
// write's transaction checks (underVersioning); hinted says so.
func (s *Service) bucketForWrite(ctx context.Context, bucket string) (b meta.Bucket, hinted bool, err error) {
	if h, ok := s.meta.(meta.BucketHinter); ok {
		b, err = h.BucketHint(ctx, bucket)
		return b, true, err
	}
	b, err = s.meta.GetBucket(ctx, bucket)
	return b, false, err
}

// VersionHeaderOf is VersionHeader for a bucket already read.
func VersionHeaderOf(b meta.Bucket, versionID string) string {
	if versionID == meta.NullVersion && b.Versioning == "" {
		return ""
	}
	return versionID
}

// ListObjectVersions returns a page of a bucket's object versions, delete
// markers included (meta.ErrBucketNotFound).
func (s *Service) ListObjectVersions(ctx context.Context, bucket string, opts meta.ListVersionsOptions) (meta.VersionsPage, error) {
	return s.meta.ListObjectVersions(ctx, bucket, opts)
}

// DeleteResult is what a delete did, as S3 reports it.
type DeleteResult struct {
	// VersionID is the version removed, or the delete marker created; ""
	// on a bucket whose versioning was never set.
	VersionID string
	// DeleteMarker: a delete marker was created, or the version removed
	// was one.
	DeleteMarker bool
}

// DeleteObject deletes a key as S3 does (idempotent: a missing key or
// version is not an error). With a versionID that version goes for good.
// Without one, a bucket whose versioning was never set loses the key's
// object; an Enabled bucket gets a new delete marker as the key's latest
// version, a Suspended one a delete marker that is the null version
// (replacing the null version, if any). cond is checked against the
// latest version in the transaction that commits the change. owner is the
// requester, the owner of a delete marker.
func (s *Service) DeleteObject(ctx context.Context, bucket, key, versionID, owner string, cond meta.Condition) (DeleteResult, error) {
	if err := ValidateKey(key); err != nil {
		return DeleteResult{}, err
	}
	var res DeleteResult
	var freed []string
	var err error
	var task bucketrepl.Task
	var owed bool
	if versionID != "" {
		// Whether it is a marker is only reported: read before, outside
		// the delete's transaction.
		_, gerr := s.meta.GetObject(ctx, bucket, key, versionID)
		var dm *meta.DeleteMarkerError
		res = DeleteResult{VersionID: versionID, DeleteMarker: errors.As(gerr, &dm)}
		if gerr == nil || res.DeleteMarker { // a version to remove: replicated (replicateDelete)
			if err := s.replicateDelete(ctx, bucket, key, versionID, cond); err != nil {
				return DeleteResult{}, err
			}
		}
		freed, err = s.meta.DeleteObject(ctx, bucket, key, versionID, cond)
	} else {
		if _, marker, held := s.replicaHeld(ctx, bucket, key); held {
			return DeleteResult{VersionID: replicaOf(ctx), DeleteMarker: marker}, nil // sent again
		}
		b, berr := s.meta.GetBucket(ctx, bucket)
		if berr != nil {
			return DeleteResult{}, berr
		}
		task, owed = s.owed(ctx, bucket, key, "", true)
		err = s.underVersioning(ctx, b, cond, func(b meta.Bucket, cond meta.Condition) (err error) {
			if b.Versioning == "" {
				res = DeleteResult{}
				freed, err = s.meta.DeleteObject(ctx, bucket, key, "", cond)
				return err
			}
			res = DeleteResult{DeleteMarker: true}
			if res.VersionID, err = replicaVersion(ctx, b); err != nil {
				return err
			}
			freed, err = s.meta.PutObject(ctx, meta.Object{
				Bucket: bucket, Key: key, VersionID: res.VersionID, DeleteMarker: true, LastModified: meta.Now(), Owner: owner,
				Replication: replicationStatus(ctx, owed),
			}, cond)
			return err
		})
	}
	if err != nil {
		return DeleteResult{}, err
	}
	s.freeBlobs(ctx, freed)
	if owed && res.DeleteMarker && versionID == "" {
		s.replicate(ctx, task, res.VersionID, 0)
	}
	s.emitRemoval(ctx, bucket, key, versionID, res)
	return res, nil
}
