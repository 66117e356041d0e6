package meta

import (
	"errors"
	"time"
)

// Object lock (S3 Object Lock): a version of an object in a bucket created
// with object lock can carry a retention (a mode and a retain-until date)
// and a legal hold. The store enforces them inside the transaction that
// would remove the version (ObjectStore.DeleteObject), the one point every
// delete path goes through; see docs/ARCHITECTURE.md.

// Retention modes (ObjectLock.Mode).
const (
	LockGovernance = "GOVERNANCE"
	LockCompliance = "COMPLIANCE"
)

// ErrObjectLocked is a removal (or a retention change) of a version its
// retention or legal hold forbids.
var ErrObjectLocked = errors.New("meta: object version is locked")

// ErrNoObjectLock is a lock change on a bucket created without object lock.
var ErrNoObjectLock = errors.New("meta: bucket has no object lock")

// ObjectLock is the lock state of one object version: a retention (Mode
// "" means none) and a legal hold.
type ObjectLock struct {
	Mode        string    `json:"mode,omitempty"`       // "", LockGovernance or LockCompliance
	RetainUntil time.Time `json:"retainUntil,omitzero"` // meaningful when Mode is set
	LegalHold   bool      `json:"legalHold,omitempty"`
	// HoldSet records that a legal hold was placed or released on the
	// version: S3 tells a hold released (OFF) from one never set (no
	// legal hold configuration at all). LegalHold implies it; reads
	// (ObjectStore.GetObjectLock) return it set whenever LegalHold is.
	HoldSet bool `json:"holdSet,omitempty"`
}

// IsZero reports whether l locks nothing and records nothing.
func (l ObjectLock) IsZero() bool { return l.Mode == "" && !l.LegalHold && !l.HoldSet }

// Protects reports whether l forbids removing its version at now: a legal
// hold always does, a retention until it expires, except a GOVERNANCE
// retention when the caller bypasses it.
func (l ObjectLock) Protects(now time.Time, bypassGovernance bool) bool {
	if l.LegalHold {
		return true
	}
	if l.Mode == "" || !now.Before(l.RetainUntil) {
		return false
	}
	return l.Mode == LockCompliance || !bypassGovernance
}

// AllowsRetention reports whether retention next may replace l's at now:
// an active COMPLIANCE retention can only be extended (same mode, a later
// or equal date); an active GOVERNANCE one can be extended in GOVERNANCE by
// anyone and shortened, removed or turned into COMPLIANCE only with
// bypassGovernance (as S3: COMPLIANCE would take the bypass away for good).
func (l ObjectLock) AllowsRetention(next ObjectLock, now time.Time, bypassGovernance bool) bool {
	if l.Mode == "" || !now.Before(l.RetainUntil) {
		return true
	}
	extends := next.Mode != "" && !next.RetainUntil.Before(l.RetainUntil)
	switch l.Mode {
	case LockCompliance:
		return extends && next.Mode == LockCompliance
	default:
		return bypassGovernance || extends && next.Mode == LockGovernance
	}
}

// WithRetention returns l with next's retention (Mode, RetainUntil) in
// place of its own, its legal hold kept: ErrObjectLocked when l's
// retention forbids the change at now (AllowsRetention).
func (l ObjectLock) WithRetention(next ObjectLock, now time.Time, bypassGovernance bool) (ObjectLock, error) {
	if !l.AllowsRetention(next, now, bypassGovernance) {
		return l, ErrObjectLocked
	}
	l.Mode, l.RetainUntil = next.Mode, next.RetainUntil
	return l, nil
}

// WithLegalHold returns l with its legal hold placed (on) or released,
// its retention kept.
func (l ObjectLock) WithLegalHold(on bool) ObjectLock {
	l.LegalHold, l.HoldSet = on, true
	return l
}
