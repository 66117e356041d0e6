package metatest

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// Cases of object lock: retention and legal hold per version, enforced by
// every removal.
var lockCases = []testCase{
	{"Lock/Bucket", testLockBucket},
	{"Lock/Enforced", testLockEnforced},
	{"Lock/Retention", testLockRetention},
	{"Lock/PutWithLock", testLockPutWithLock},
	{"Lock/HoldSet", testLockHoldSet},
}

func init() {
	objectCases = append(objectCases, lockCases...)
	uploadCases = append(uploadCases, testCase{"Multipart/Lock", testUploadLock})
}

// mkLockBucket creates bucket name with object lock.
func mkLockBucket(t *testing.T, s meta.Store, name string) {
	t.Helper()
	err := s.CreateBucket(t.Context(), meta.Bucket{Name: name, Region: "us-east-1", Owner: "owner", CreatedAt: t0, ObjectLock: true})
	if err != nil {
		t.Fatalf("CreateBucket(%q, lock): %v", name, err)
	}
}

// putVersion writes a new version of key in bucket with its own blob.
func putVersion(t *testing.T, s meta.Store, bucket, key, versionID string, lock *meta.ObjectLock) meta.Object {
	t.Helper()
	o := object(bucket, key, newBlob())
	o.VersionID, o.Lock = versionID, lock
	put(t, s, o)
	o.Lock = nil
	return o
}

func wantVersion(t *testing.T, s meta.Store, bucket, key, versionID string) {
	t.Helper()
	if _, err := s.GetObject(t.Context(), bucket, key, versionID); err != nil {
		t.Errorf("version %s of %q is gone: %v", versionID, key, err)
	}
}

func testLockBucket(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkLockBucket(t, s, "locked")
	mkBucket(t, s, "plain")
	b, err := s.GetBucket(ctx, "locked")
	if err != nil || !b.ObjectLock || b.Versioning != meta.VersioningEnabled {
		t.Errorf("GetBucket(locked) = %+v, %v; want ObjectLock, Enabled", b, err)
	}
	if b, _ := s.GetBucket(ctx, "plain"); b.ObjectLock {
		t.Errorf("GetBucket(plain).ObjectLock = true")
	}
	putVersion(t, s, "plain", "k", "", nil)
	wantErr(t, "PutObjectLegalHold on a plain bucket", s.PutObjectLegalHold(ctx, "plain", "k", "", true), meta.ErrNoObjectLock)
	wantErr(t, "PutObjectRetention on a plain bucket",
		s.PutObjectRetention(ctx, "plain", "k", "", meta.ObjectLock{Mode: meta.LockCompliance, RetainUntil: time.Now().Add(time.Hour)}, false),
		meta.ErrNoObjectLock)
	o := object("plain", "k2", newBlob())
	o.Lock = &meta.ObjectLock{LegalHold: true}
	wantErr(t, "PutObject with a lock on a plain bucket", errOnly(s.PutObject(ctx, o, meta.Condition{})), meta.ErrNoObjectLock)
	wantMissing(t, s, "plain", "k2")
	l, vid, err := s.GetObjectLock(ctx, "plain", "k", "")
	if err != nil || !l.IsZero() || vid != meta.NullVersion {
		t.Errorf("GetObjectLock(plain) = %+v, %q, %v", l, vid, err)
	}
	_, _, err = s.GetObjectLock(ctx, "locked", "nope", "")
	wantErr(t, "GetObjectLock of a missing key", err, meta.ErrObjectNotFound)
}

func testLockEnforced(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkLockBucket(t, s, "b")
	future := time.Now().Add(time.Hour).UTC().Truncate(time.Millisecond)
	putVersion(t, s, "b", "comp", "v1", &meta.ObjectLock{Mode: meta.LockCompliance, RetainUntil: future})
	putVersion(t, s, "b", "gov", "v1", &meta.ObjectLock{Mode: meta.LockGovernance, RetainUntil: future})
	putVersion(t, s, "b", "hold", "v1", &meta.ObjectLock{LegalHold: true})
	putVersion(t, s, "b", "past", "v1", &meta.ObjectLock{Mode: meta.LockCompliance, RetainUntil: time.Now().Add(-time.Hour)})
	putVersion(t, s, "b", "hold", "v2", nil) // a newer version: v1 is noncurrent and still held

	bypass := meta.Condition{BypassGovernance: true}
	for _, c := range []struct {
		key  string
		cond meta.Condition
	}{{"comp", meta.Condition{}}, {"comp", bypass}, {"gov", meta.Condition{}}, {"hold", meta.Condition{}}, {"hold", bypass}} {
		wantErr(t, "DeleteObject("+c.key+"@v1)", errOnly(s.DeleteObject(ctx, "b", c.key, "v1", c.cond)), meta.ErrObjectLocked)
		wantVersion(t, s, "b", c.key, "v1")
		// A write replacing the version (same ID) is a removal too.
		o := object("b", c.key, newBlob())
		o.VersionID = "v1"
		wantErr(t, "PutObject over "+c.key+"@v1", errOnly(s.PutObject(ctx, o, c.cond)), meta.ErrObjectLocked)
		wantVersion(t, s, "b", c.key, "v1")
	}
	if _, err := s.DeleteBucket(ctx, "b"); err == nil {
		t.Fatalf("DeleteBucket of a bucket with locked versions succeeded")
	}
	wantVersion(t, s, "b", "comp", "v1")

	// A delete marker over a locked version is allowed: the version stays.
	put(t, s, marker("b", "comp", "dm1", t0))
	wantVersion(t, s, "b", "comp", "v1")
	if _, err := s.DeleteObject(ctx, "b", "comp", "dm1", meta.Condition{}); err != nil {
		t.Errorf("DeleteObject of a delete marker: %v", err)
	}

	if _, err := s.DeleteObject(ctx, "b", "gov", "v1", bypass); err != nil {
		t.Errorf("DeleteObject(gov@v1, bypass): %v", err)
	}
	if _, err := s.DeleteObject(ctx, "b", "past", "v1", meta.Condition{}); err != nil {
		t.Errorf("DeleteObject of an expired retention: %v", err)
	}
	if err := s.PutObjectLegalHold(ctx, "b", "hold", "v1", false); err != nil {
		t.Fatalf("PutObjectLegalHold off: %v", err)
	}
	if _, err := s.DeleteObject(ctx, "b", "hold", "v1", meta.Condition{}); err != nil {
		t.Errorf("DeleteObject after the hold is released: %v", err)
	}
	// A version ID used again does not inherit a removed version's lock.
	putVersion(t, s, "b", "gov", "v1", nil)
	if l, _, err := s.GetObjectLock(ctx, "b", "gov", "v1"); err != nil || !l.IsZero() {
		t.Errorf("GetObjectLock of a new version = %+v, %v; want none", l, err)
	}
}

func testLockRetention(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkLockBucket(t, s, "b")
	now := time.Now().UTC().Truncate(time.Millisecond)
	putVersion(t, s, "b", "k", "v1", nil)
	set := func(mode string, until time.Time, bypass bool) error {
		return s.PutObjectRetention(ctx, "b", "k", "v1", meta.ObjectLock{Mode: mode, RetainUntil: until}, bypass)
	}
	check := func(want meta.ObjectLock) {
		t.Helper()
		l, vid, err := s.GetObjectLock(ctx, "b", "k", "")
		if err != nil || vid != "v1" || l.Mode != want.Mode || !l.RetainUntil.Equal(want.RetainUntil) || l.LegalHold != want.LegalHold {
			t.Errorf("GetObjectLock = %+v, %q, %v; want %+v", l, vid, err, want)
		}
	}
	if err := set(meta.LockGovernance, now.Add(time.Hour), false); err != nil {
		t.Fatalf("set GOVERNANCE: %v", err)
	}
	wantErr(t, "shorten GOVERNANCE", set(meta.LockGovernance, now.Add(time.Minute), false), meta.ErrObjectLocked)
	wantErr(t, "remove GOVERNANCE", set("", time.Time{}, false), meta.ErrObjectLocked)
	check(meta.ObjectLock{Mode: meta.LockGovernance, RetainUntil: now.Add(time.Hour)})
	if err := set(meta.LockGovernance, now.Add(time.Minute), true); err != nil {
		t.Errorf("shorten GOVERNANCE with bypass: %v", err)
	}
	if err := s.PutObjectLegalHold(ctx, "b", "k", "", true); err != nil {
		t.Fatalf("PutObjectLegalHold: %v", err)
	}
	// GOVERNANCE becomes COMPLIANCE only with the bypass, as in S3: the
	// change would take the bypass away from everyone.
	wantErr(t, "GOVERNANCE to COMPLIANCE without bypass", set(meta.LockCompliance, now.Add(2*time.Hour), false), meta.ErrObjectLocked)
	check(meta.ObjectLock{Mode: meta.LockGovernance, RetainUntil: now.Add(time.Minute), LegalHold: true})
	if err := set(meta.LockCompliance, now.Add(2*time.Hour), true); err != nil {
		t.Fatalf("GOVERNANCE to COMPLIANCE with bypass: %v", err)
	}
	check(meta.ObjectLock{Mode: meta.LockCompliance, RetainUntil: now.Add(2 * time.Hour), LegalHold: true})
	for _, c := range []struct {
		what string
		l    meta.ObjectLock
	}{
		{"shorten COMPLIANCE", meta.ObjectLock{Mode: meta.LockCompliance, RetainUntil: now.Add(time.Hour)}},
		{"COMPLIANCE to GOVERNANCE", meta.ObjectLock{Mode: meta.LockGovernance, RetainUntil: now.Add(3 * time.Hour)}},
		{"remove COMPLIANCE", meta.ObjectLock{}},
	} {
		wantErr(t, c.what, set(c.l.Mode, c.l.RetainUntil, true), meta.ErrObjectLocked)
	}
	check(meta.ObjectLock{Mode: meta.LockCompliance, RetainUntil: now.Add(2 * time.Hour), LegalHold: true})
	if err := set(meta.LockCompliance, now.Add(3*time.Hour), false); err != nil {
		t.Errorf("extend COMPLIANCE: %v", err)
	}
	check(meta.ObjectLock{Mode: meta.LockCompliance, RetainUntil: now.Add(3 * time.Hour), LegalHold: true})
	put(t, s, marker("b", "k", "dm", t0))
	_, _, err := s.GetObjectLock(ctx, "b", "k", "")
	wantErr(t, "GetObjectLock of a delete marker", err, meta.ErrObjectNotFound)
	wantErr(t, "PutObjectLegalHold on a missing version", s.PutObjectLegalHold(ctx, "b", "k", "nope", true), meta.ErrObjectNotFound)
}

func testLockPutWithLock(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkLockBucket(t, s, "b")
	until := time.Now().Add(time.Hour).UTC().Truncate(time.Millisecond)
	putVersion(t, s, "b", "k", "v1", &meta.ObjectLock{Mode: meta.LockGovernance, RetainUntil: until, LegalHold: true})
	l, _, err := s.GetObjectLock(ctx, "b", "k", "v1")
	if err != nil || l.Mode != meta.LockGovernance || !l.RetainUntil.Equal(until) || !l.LegalHold {
		t.Errorf("GetObjectLock = %+v, %v", l, err)
	}
	if o, err := s.GetObject(ctx, "b", "k", "v1"); err != nil || o.Lock != nil {
		t.Errorf("GetObject = Lock %v, %v; want no lock on reads", o.Lock, err)
	}
}

// testLockHoldSet: a legal hold released (OFF) is recorded, unlike one
// never set, whatever else the version's lock holds.
func testLockHoldSet(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkLockBucket(t, s, "b")
	until := time.Now().Add(time.Hour).UTC().Truncate(time.Millisecond)
	putVersion(t, s, "b", "none", "v1", nil)
	putVersion(t, s, "b", "ret", "v1", &meta.ObjectLock{Mode: meta.LockGovernance, RetainUntil: until})
	putVersion(t, s, "b", "on", "v1", &meta.ObjectLock{LegalHold: true})
	putVersion(t, s, "b", "off", "v1", &meta.ObjectLock{HoldSet: true})
	check := func(key string, held, set bool) {
		t.Helper()
		l, _, err := s.GetObjectLock(ctx, "b", key, "v1")
		if err != nil || l.LegalHold != held || l.HoldSet != set {
			t.Errorf("GetObjectLock(%s) = %+v, %v; want LegalHold %v, HoldSet %v", key, l, err, held, set)
		}
	}
	check("none", false, false)
	check("ret", false, false)
	check("on", true, true)
	check("off", false, true)
	for _, key := range []string{"none", "ret", "on"} {
		if err := s.PutObjectLegalHold(ctx, "b", key, "v1", false); err != nil {
			t.Fatalf("PutObjectLegalHold(%s, off): %v", key, err)
		}
		check(key, false, true)
	}
	// Removing the retention keeps the record of the released hold.
	if err := s.PutObjectRetention(ctx, "b", "ret", "v1", meta.ObjectLock{}, true); err != nil {
		t.Fatalf("remove GOVERNANCE with bypass: %v", err)
	}
	check("ret", false, true)
	if _, err := s.DeleteObject(ctx, "b", "off", "v1", meta.Condition{}); err != nil {
		t.Fatalf("DeleteObject of a version whose hold is released: %v", err)
	}
}

// testUploadLock: an upload keeps the lock CreateMultipartUpload was given
// (GetUpload, ListUploads), and the version its completion creates carries
// the lock set on the completed object, enforced from then on.
func testUploadLock(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkLockBucket(t, s, "b")
	until := time.Now().Add(time.Hour).UTC().Truncate(time.Millisecond)
	want := meta.ObjectLock{Mode: meta.LockGovernance, RetainUntil: until, LegalHold: true, HoldSet: true}
	locked := meta.Upload{Bucket: "b", Key: "k", UploadID: "up-locked", Initiated: t0, Lock: &want}
	plain := meta.Upload{Bucket: "b", Key: "k", UploadID: "up-plain", Initiated: t0}
	for _, u := range []meta.Upload{locked, plain} {
		if err := s.CreateUpload(ctx, u); err != nil {
			t.Fatalf("CreateUpload(%s): %v", u.UploadID, err)
		}
	}
	samePtr := func(got, want *meta.ObjectLock) bool {
		if got == nil || want == nil {
			return got == want
		}
		return sameLock(*got, *want)
	}
	for _, u := range []meta.Upload{locked, plain} {
		got, err := s.GetUpload(ctx, "b", "k", u.UploadID)
		if err != nil || !samePtr(got.Lock, u.Lock) {
			t.Errorf("GetUpload(%s).Lock = %+v, %v; want %+v", u.UploadID, got.Lock, err, u.Lock)
		}
	}
	page, err := s.ListUploads(ctx, "b", meta.ListUploadsOptions{Limit: 10})
	if err != nil || len(page.Uploads) != 2 {
		t.Fatalf("ListUploads = %+v, %v", page, err)
	}
	for _, u := range page.Uploads {
		if want := map[string]*meta.ObjectLock{"up-locked": &want, "up-plain": nil}[u.UploadID]; !samePtr(u.Lock, want) {
			t.Errorf("ListUploads: %s lock %+v, want %+v", u.UploadID, u.Lock, want)
		}
	}

	p, _ := putPart(t, s, locked, 1)
	o := meta.Object{Bucket: "b", Key: "k", VersionID: "v1", UploadID: locked.UploadID, Size: p.Size, ETag: "mp-1",
		LastModified: t0, Parts: []meta.Part{p}, Lock: locked.Lock}
	if _, err := s.CompleteUpload(ctx, o, meta.Condition{}); err != nil {
		t.Fatalf("CompleteUpload: %v", err)
	}
	l, vid, err := s.GetObjectLock(ctx, "b", "k", "")
	if err != nil || vid != "v1" || !sameLock(l, want) {
		t.Errorf("GetObjectLock of the completed version = %+v, %q, %v; want %+v", l, vid, err, want)
	}
	wantErr(t, "DeleteObject of the completed version", errOnly(s.DeleteObject(ctx, "b", "k", "v1", meta.Condition{BypassGovernance: true})), meta.ErrObjectLocked)
	wantVersion(t, s, "b", "k", "v1")
}

// randomLock is the lock of a version the lock model puts: nothing, or a
// retention of either mode that ends an hour from now or ended an hour
// ago (no step of the test can see one expire), with or without a legal
// hold placed (ON) or released (OFF).
func randomLock(rng *rand.Rand) meta.ObjectLock {
	var l meta.ObjectLock
	if r := rng.IntN(5); r > 0 {
		l.Mode = []string{meta.LockGovernance, meta.LockCompliance}[r%2]
		l.RetainUntil = time.Now().Add(map[bool]time.Duration{true: time.Hour, false: -time.Hour}[r > 2]).UTC().Truncate(time.Millisecond)
	}
	switch rng.IntN(8) {
	case 0, 1:
		l.LegalHold, l.HoldSet = true, true
	case 2:
		l.HoldSet = true
	}
	return l
}

// modelProtects is the lock model's rule, written apart from
// meta.ObjectLock.Protects: a legal hold forbids every removal; a
// retention that has not ended forbids it too, GOVERNANCE only without
// the bypass.
func modelProtects(l meta.ObjectLock, bypass bool) bool {
	switch {
	case l.LegalHold:
		return true
	case l.Mode == "" || !l.RetainUntil.After(time.Now()):
		return false
	case l.Mode == meta.LockCompliance:
		return true
	default:
		return !bypass
	}
}

// sameLock compares locks as the store returns them.
func sameLock(got, want meta.ObjectLock) bool {
	return got.Mode == want.Mode && got.RetainUntil.Equal(want.RetainUntil) && got.LegalHold == want.LegalHold &&
		got.HoldSet == (want.HoldSet || want.LegalHold)
}
