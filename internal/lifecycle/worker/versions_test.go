package worker

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/service"
)

const versionRules = `<Rule><ID>nc</ID><Filter/><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>1</NewerNoncurrentVersions></NoncurrentVersionExpiration></Rule>` +
	`<Rule><ID>dm</ID><Filter><Prefix>m</Prefix></Filter><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>`

// setupVersions makes a versioned bucket with versionRules and
//
//	k:  four versions (k3 noncurrent kept as the newest, k2 and k1 due);
//	m1: a lone delete marker (due);
//	m2: a delete marker over one version (kept: not lone; the version is
//	    the newest noncurrent);
//	x:  a delete marker over three versions (the two older due; the marker
//	    stays: a version is left and "x" is not under the marker rule).
func setupVersions(t *testing.T, svc *service.Service) {
	t.Helper()
	ctx := context.Background()
	setup(t, svc, versionRules)
	if err := svc.PutBucketVersioning(ctx, "bkt", meta.VersioningEnabled); err != nil {
		t.Fatal(err)
	}
	put := func(key, body string) {
		t.Helper()
		if _, err := svc.PutObject(ctx, service.PutInput{Bucket: "bkt", Key: key, Body: strings.NewReader(body), Size: int64(len(body))}); err != nil {
			t.Fatal(err)
		}
	}
	del := func(key string) {
		t.Helper()
		if _, err := svc.DeleteObject(ctx, "bkt", key, "", "owner", meta.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 4; i++ {
		put("k", fmt.Sprint("k", i))
	}
	del("m1")
	put("m2", "m2")
	del("m2")
	for i := 1; i <= 3; i++ {
		put("x", fmt.Sprint("x", i))
	}
	del("x")
}

// versionsLeft lists every version as key:body (key:DM for a marker),
// newest first per key.
func versionsLeft(t *testing.T, svc *service.Service) string {
	t.Helper()
	ctx := context.Background()
	page, err := svc.ListObjectVersions(ctx, "bkt", meta.ListVersionsOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range page.Versions {
		if v.DeleteMarker {
			out = append(out, v.Key+":DM")
			continue
		}
		_, r, err := svc.OpenObject(ctx, "bkt", v.Key, v.VersionID, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v.Key+":"+string(body))
	}
	return strings.Join(out, ",")
}

const wantVersionsLeft = "k:k4,k:k3,m2:DM,m2:m2,x:DM,x:x3"

func TestPassExpiresVersions(t *testing.T) {
	svc, _ := openService(t, t.TempDir())
	setupVersions(t, svc)
	ctx := context.Background()

	// Today no version is due; a lone delete marker is, whatever its age,
	// as in S3.
	rep, err := New(svc, quiet, Options{PageSize: 2}).Pass(ctx)
	want := "k:k4,k:k3,k:k2,k:k1,m2:DM,m2:m2,x:DM,x:x3,x:x2,x:x1"
	if got := versionsLeft(t, svc); err != nil || rep.Noncurrent != 0 || rep.Markers != 1 || got != want {
		t.Fatalf("a pass before any version is due: %+v %v: %s", rep, err, got)
	}
	// The lone marker again.
	if _, err := svc.DeleteObject(ctx, "bkt", "m1", "", "owner", meta.Condition{}); err != nil {
		t.Fatal(err)
	}

	rep, err = New(svc, quiet, Options{PageSize: 2, Now: inThreeDays}).Pass(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := versionsLeft(t, svc); got != wantVersionsLeft {
		t.Errorf("left %s\nwant %s", got, wantVersionsLeft)
	}
	if rep.Noncurrent != 4 || rep.Markers != 1 || rep.Scanned != 4+1+2+4 {
		t.Errorf("report %+v", rep)
	}
	if doc, err := svc.LifecycleCursor(ctx, "bkt"); err != nil || doc != nil {
		t.Errorf("a finished pass left its cursor: %s %v", doc, err)
	}
	// The next pass finds nothing more to do.
	if rep, err = New(svc, quiet, Options{PageSize: 2, Now: inThreeDays}).Pass(ctx); err != nil || rep.Noncurrent+rep.Markers != 0 {
		t.Errorf("second pass %+v %v", rep, err)
	}
}

// TestVersionsResumeAfterRestart stops the versions phase after its first
// page, restarts the stores and checks the next pass resumes it from the
// cursor and ends where an uninterrupted pass does.
func TestVersionsResumeAfterRestart(t *testing.T) {
	dir := t.TempDir()
	svc, closeStores := openService(t, dir)
	setupVersions(t, svc)
	if cur := interruptedPass(t, svc, 3); cur.Phase != phaseVersions || cur.After != "k" || cur.Key == nil || cur.Key.Key != "k" {
		t.Fatalf("cursor %+v, want the versions phase inside k", cur)
	}
	closeStores()

	svc, _ = openService(t, dir)
	// The first page (k4, k3, k2) removed k2 only.
	if got := versionsLeft(t, svc); !strings.HasPrefix(got, "k:k4,k:k3,k:k1,m1:DM") {
		t.Fatalf("after the first page: %s", got)
	}
	rep, err := New(svc, quiet, Options{PageSize: 3, Now: inThreeDays}).Pass(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Resumed != 1 || rep.Noncurrent != 3 || rep.Markers != 1 || rep.Scanned != 1+1+2+4 {
		t.Errorf("resumed pass %+v, want it to start after k2", rep)
	}
	if got := versionsLeft(t, svc); got != wantVersionsLeft {
		t.Errorf("left %s\nwant %s", got, wantVersionsLeft)
	}
	if doc, _ := svc.LifecycleCursor(context.Background(), "bkt"); doc != nil {
		t.Errorf("cursor left: %s", doc)
	}
}

// A removal holds only while the key's latest version is the one listed:
// a noncurrent version that became the latest, or a lone marker a PUT
// superseded, is left alone.
func TestRemoveVersionSkipsChangedKey(t *testing.T) {
	svc, _ := openService(t, t.TempDir())
	setupVersions(t, svc)
	ctx := context.Background()
	page, err := svc.ListObjectVersions(ctx, "bkt", meta.ListVersionsOptions{Prefix: "k", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	k4, k3 := page.Versions[0], page.Versions[1]
	// k4 goes: k3 is the latest now.
	if _, err := svc.DeleteObject(ctx, "bkt", "k", k4.VersionID, "", meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	w := New(svc, quiet, Options{})
	ks := &keyState{Key: "k", LatestVersion: k4.VersionID}
	if ok, err := w.removeVersion(ctx, "bkt", ks, k3.VersionID); err != nil || ok {
		t.Fatalf("removal of a version that became the latest: %v %v", ok, err)
	}

	page, err = svc.ListObjectVersions(ctx, "bkt", meta.ListVersionsOptions{Prefix: "m1", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	marker := page.Versions[0]
	if _, err := svc.PutObject(ctx, service.PutInput{Bucket: "bkt", Key: "m1", Body: strings.NewReader("new"), Size: 3}); err != nil {
		t.Fatal(err)
	}
	if ok, err := w.removeVersion(ctx, "bkt", &keyState{Key: "m1", LatestVersion: marker.VersionID}, marker.VersionID); err != nil || ok {
		t.Fatalf("removal of a superseded marker: %v %v", ok, err)
	}
	if got := versionsLeft(t, svc); !strings.HasPrefix(got, "k:k3,k:k2,k:k1,m1:new,m1:DM,") {
		t.Errorf("versions removed by a refused removal: %s", got)
	}
}

// A version that marks the cursor's position and is removed (by a client)
// before the pass resumes gives no position any more
// (meta.ErrVersionMarker): the pass goes on after its key, and the next
// pass sees the rest of that key.
func TestVersionsResumeAfterMarkerVersionRemoved(t *testing.T) {
	svc, _ := openService(t, t.TempDir())
	setupVersions(t, svc)
	cur := interruptedPass(t, svc, 3)
	if cur.Phase != phaseVersions || cur.After != "k" || cur.VersionID == "" {
		t.Fatalf("cursor %+v, want the versions phase inside k", cur)
	}
	ctx := context.Background()
	if _, err := svc.DeleteObject(ctx, "bkt", "k", cur.VersionID, "", meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	rep, err := New(svc, quiet, Options{PageSize: 3, Now: inThreeDays}).Pass(ctx)
	if err != nil || rep.Resumed != 1 {
		t.Fatalf("resumed pass %+v, %v", rep, err)
	}
	// k4 and k3 were listed, k2 removed by the first page, k3 by the
	// client; k1 waits for the next pass.
	if got, want := versionsLeft(t, svc), "k:k4,k:k1,m2:DM,m2:m2,x:DM,x:x3"; got != want {
		t.Errorf("left %s\nwant %s", got, want)
	}
}

// TestRemoveVersionAlikeVersions: two versions with the same ETag written
// in the same second (a retried PUT); the newer deleted by ID after the
// listing makes the older the current object, which must stay.
func TestRemoveVersionAlikeVersions(t *testing.T) {
	svc, _ := openService(t, t.TempDir())
	setupVersions(t, svc)
	ctx := context.Background()
	var ids []string
	for range 2 {
		o, err := svc.PutObject(ctx, service.PutInput{Bucket: "bkt", Key: "same", Body: strings.NewReader("retried"), Size: 7})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, o.VersionID)
	}
	if _, err := svc.DeleteObject(ctx, "bkt", "same", ids[1], "", meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	w := New(svc, quiet, Options{})
	if ok, err := w.removeVersion(ctx, "bkt", &keyState{Key: "same", LatestVersion: ids[1]}, ids[0]); err != nil || ok {
		t.Fatalf("removal of the version that became current: %v %v", ok, err)
	}
	if o, err := svc.HeadObject(ctx, "bkt", "same", "", false); err != nil || o.VersionID != ids[0] {
		t.Fatalf("HEAD same = %+v, %v; want version %s current", o, err, ids[0])
	}
	// A cursor saved before LatestVersion existed removes nothing in the key.
	if ok, err := w.removeVersion(ctx, "bkt", &keyState{Key: "same"}, ids[0]); err != nil || ok {
		t.Fatalf("removal under an old cursor: %v %v", ok, err)
	}
}

// TestPassEmptiesBucketWithDays: the usual rule to empty a versioned
// bucket — Expiration Days with NoncurrentVersionExpiration — leaves no
// delete marker behind: Expiration Days removes expired object delete
// markers once they are old enough, as S3 does, so the bucket can then be
// deleted.
func TestPassEmptiesBucketWithDays(t *testing.T) {
	svc, _ := openService(t, t.TempDir())
	setup(t, svc, `<Rule><ID>empty</ID><Filter></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration>`+
		`<NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>`)
	ctx := context.Background()
	if err := svc.PutBucketVersioning(ctx, "bkt", meta.VersioningEnabled); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{"one", "two"} {
		if _, err := svc.PutObject(ctx, service.PutInput{Bucket: "bkt", Key: "k", Body: strings.NewReader(body), Size: int64(len(body))}); err != nil {
			t.Fatal(err)
		}
	}
	w := New(svc, quiet, Options{Now: inThreeDays})
	for range 2 { // the first pass expires k (a marker); the markers' age counts from then
		if _, err := w.Pass(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := versionsLeft(t, svc); got != "" {
		t.Fatalf("versions left: %s, want none", got)
	}
	if err := svc.DeleteBucket(ctx, "bkt"); err != nil {
		t.Fatalf("DeleteBucket of the emptied bucket: %v", err)
	}
}
