package metatest

import (
	"errors"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// Cases of the conditions that hold a write to the key's and the bucket's
// state: Condition.IfLatestVersion and Condition.Versioning.
var keyStateCases = []testCase{
	{"Conditions/IfLatestVersion", testConditionsIfLatestVersion},
	{"Conditions/Versioning", testConditionsVersioning},
	{"Conditions/ObjectLock", testConditionsObjectLock},
	{"Objects/InBucket", testObjectInBucket},
}

// testConditionsIfLatestVersion: a removal held to the latest version's ID
// is refused once another version became the latest — the lifecycle
// worker's case: v1 and v2 alike in ETag and second, v2 deleted by ID,
// v1 (now current) must not go as noncurrent.
func testConditionsIfLatestVersion(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	if err := s.SetBucketVersioning(ctx, "b", meta.VersioningEnabled); err != nil {
		t.Fatal(err)
	}
	v1 := putVersion(t, s, "b", "k", "v1", nil)
	putVersion(t, s, "b", "k", "v2", nil)
	del := func(version, latest string) error {
		_, err := s.DeleteObject(ctx, "b", "k", version, meta.Condition{IfLatestVersion: latest})
		return err
	}
	wantErr(t, "delete v1 held to a latest it is not", del("v1", "v3"), meta.ErrPreconditionFailed)
	wantVersion(t, s, "b", "k", "v1")
	if _, err := s.DeleteObject(ctx, "b", "k", "v2", meta.Condition{}); err != nil {
		t.Fatalf("delete v2: %v", err)
	}
	wantErr(t, "delete v1 held to v2 after v2 went", del("v1", "v2"), meta.ErrPreconditionFailed)
	checkObject(t, get(t, s, "b", "k"), v1)

	// A latest delete marker is the latest version too.
	put(t, s, marker("b", "k", "m1", t0.Add(time.Second)))
	wantErr(t, "delete v1 held to v1 under a marker", del("v1", "v1"), meta.ErrPreconditionFailed)
	wantErr(t, "PUT held to a marker that is not latest", errOnly(s.PutObject(ctx, object("b", "k", newBlob()), meta.Condition{IfLatestVersion: "m0"})), meta.ErrPreconditionFailed)
	if err := del("v1", "m1"); err != nil {
		t.Fatalf("delete v1 held to the latest marker m1: %v", err)
	}
	if _, err := s.GetObject(ctx, "b", "k", "v1"); !errors.Is(err, meta.ErrObjectNotFound) {
		t.Errorf("GetObject(v1) after its removal: %v", err)
	}
	if err := del("m1", "m1"); err != nil {
		t.Fatalf("delete the marker m1 held to itself: %v", err)
	}
	wantMissing(t, s, "b", "k")
	wantErr(t, "a missing key has no latest version", del("", "m1"), meta.ErrPreconditionFailed)
}

// testConditionsVersioning: a write held to a versioning state fails with
// ErrVersioningChanged, changing nothing, once the state is another; the
// error carries the state the write saw.
func testConditionsVersioning(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	null := putVersion(t, s, "b", "k", meta.NullVersion, nil)
	never, enabled := "", meta.VersioningEnabled
	if err := s.SetBucketVersioning(ctx, "b", meta.VersioningEnabled); err != nil {
		t.Fatal(err)
	}
	o := object("b", "k", newBlob()) // the null version a write under "never set" would make
	wantErr(t, "PUT held to never-set versioning", errOnly(s.PutObject(ctx, o, meta.Condition{Versioning: &never})), meta.ErrVersioningChanged)
	wantErr(t, "delete held to never-set versioning", errOnly(s.DeleteObject(ctx, "b", "k", "", meta.Condition{Versioning: &never})), meta.ErrVersioningChanged)
	wantChangedTo(t, "PUT held to never-set versioning", errOnly(s.PutObject(ctx, o, meta.Condition{Versioning: &never})), meta.BucketState{Known: true, Versioning: enabled})
	checkObject(t, get(t, s, "b", "k"), null)
	if got := versionIDs(listVersions(t, s, "b", meta.ListVersionsOptions{Limit: 10}).Versions); len(got) != 1 {
		t.Errorf("versions after refused writes = %q, want the null version alone", got)
	}
	o.VersionID = "v1"
	if _, err := s.PutObject(ctx, o, meta.Condition{Versioning: &enabled}); err != nil {
		t.Fatalf("PUT held to the state it has: %v", err)
	}
	checkObject(t, get(t, s, "b", "k"), o)
	wantVersion(t, s, "b", "k", meta.NullVersion)
}

// testConditionsObjectLock: a write held to a bucket's object lock fails
// with ErrVersioningChanged, changing nothing, once the bucket has it.
func testConditionsObjectLock(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	if err := s.SetBucketVersioning(ctx, "b", meta.VersioningEnabled); err != nil {
		t.Fatal(err)
	}
	unlocked, locked := false, true
	o := object("b", "k", newBlob())
	o.VersionID = "v1"
	if err := s.EnableObjectLock(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	wantChangedTo(t, "PUT held to no object lock", errOnly(s.PutObject(ctx, o, meta.Condition{ObjectLock: &unlocked})),
		meta.BucketState{Known: true, Versioning: meta.VersioningEnabled, ObjectLock: true})
	wantMissing(t, s, "b", "k")
	if _, err := s.PutObject(ctx, o, meta.Condition{ObjectLock: &locked}); err != nil {
		t.Fatalf("PUT held to the object lock the bucket has: %v", err)
	}
	checkObject(t, get(t, s, "b", "k"), o)
}

// testObjectInBucket: a store that reads a version's bucket with it
// (Object.InBucket.Known) reports the bucket's state at that read.
func testObjectInBucket(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	putVersion(t, s, "b", "k", meta.NullVersion, nil)
	check := func(when string, want meta.BucketState) {
		t.Helper()
		o := get(t, s, "b", "k")
		if o.InBucket.Known && o.InBucket != want {
			t.Errorf("%s: InBucket = %+v, want %+v", when, o.InBucket, want)
		}
	}
	check("versioning never set", meta.BucketState{Known: true})
	if err := s.SetBucketVersioning(ctx, "b", meta.VersioningEnabled); err != nil {
		t.Fatal(err)
	}
	check("versioning enabled", meta.BucketState{Known: true, Versioning: meta.VersioningEnabled})
	if err := s.EnableObjectLock(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	check("object lock enabled", meta.BucketState{Known: true, Versioning: meta.VersioningEnabled, ObjectLock: true})
}

// wantChangedTo checks that err is a *meta.VersioningChangedError carrying
// the bucket state now.
func wantChangedTo(t *testing.T, what string, err error, now meta.BucketState) {
	t.Helper()
	var changed *meta.VersioningChangedError
	if !errors.As(err, &changed) || changed.Now != now {
		t.Errorf("%s: err = %#v, want a VersioningChangedError with %+v", what, err, now)
	}
}
