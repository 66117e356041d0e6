package worker

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/lifecycle"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/service"
	"github.com/jogstore/jog/internal/sse"
	"github.com/jogstore/jog/internal/storage"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// openService opens the real stores of dir (as a server start does) and a
// service over them; the returned func closes them, as a shutdown does.
func openService(t testing.TB, dir string) (*service.Service, func()) {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir, cfg.Fsync = dir, "never"
	st, err := storage.Open(context.Background(), cfg, quiet)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	closeFn := func() {
		if !closed {
			closed = true
			if err := st.Close(); err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(closeFn)
	return service.New(st.Meta, st.Blobs, quiet), closeFn
}

func setup(t testing.TB, svc *service.Service, rules string, keys ...string) {
	t.Helper()
	ctx := context.Background()
	if err := svc.CreateBucket(ctx, "bkt", "us-east-1", "owner"); err != nil {
		t.Fatal(err)
	}
	c, err := lifecycle.ParseXML([]byte(`<LifecycleConfiguration>` + rules + `</LifecycleConfiguration>`))
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.PutBucketLifecycle(ctx, "bkt", c); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if _, err := svc.PutObject(ctx, service.PutInput{Bucket: "bkt", Key: k, Body: strings.NewReader(k), Size: int64(len(k))}); err != nil {
			t.Fatal(err)
		}
	}
}

func keys(t *testing.T, svc *service.Service) []string {
	t.Helper()
	page, err := svc.ListObjects(context.Background(), "bkt", meta.ListOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range page.Objects {
		out = append(out, o.Key)
	}
	return out
}

func uploads(t *testing.T, svc *service.Service) int {
	t.Helper()
	page, err := svc.ListUploads(context.Background(), "bkt", meta.ListUploadsOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return len(page.Uploads)
}

// inThreeDays is a Now three days from now: one-day rules have come due
// (the standard day, no waiting).
func inThreeDays() time.Time { return time.Now().Add(72 * time.Hour) }

func TestPassExpiresAndAborts(t *testing.T) {
	svc, _ := openService(t, t.TempDir())
	setup(t, svc,
		`<Rule><ID>old</ID><Filter><Prefix>old/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`+
			`<Rule><ID>big</ID><Filter><ObjectSizeGreaterThan>100</ObjectSizeGreaterThan></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`+
			`<Rule><ID>tmp</ID><Filter><Prefix>tmp/</Prefix></Filter><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>`,
		"old/1", "old/2", "old/3", "keep/1", "keep/2")
	ctx := context.Background()
	for _, k := range []string{"tmp/a", "tmp/b", "other/c"} {
		if _, err := svc.CreateUpload(ctx, meta.Upload{Bucket: "bkt", Key: k}, sse.Request{}); err != nil {
			t.Fatal(err)
		}
	}

	// Today nothing is due: a pass changes nothing.
	w := New(svc, quiet, Options{PageSize: 2})
	rep, err := w.Pass(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Expired != 0 || rep.Aborted != 0 || len(keys(t, svc)) != 5 || uploads(t, svc) != 3 {
		t.Fatalf("a pass before anything is due: %+v, keys %v", rep, keys(t, svc))
	}

	w = New(svc, quiet, Options{PageSize: 2, Now: inThreeDays})
	rep, err = w.Pass(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(keys(t, svc), ","); got != "keep/1,keep/2" {
		t.Errorf("left %s, want keep/1,keep/2", got)
	}
	// Every key (the big rule names no prefix), the uploads under tmp/ only.
	if rep.Buckets != 1 || rep.Expired != 3 || rep.Aborted != 2 || rep.Scanned != 5+2 {
		t.Errorf("report %+v", rep)
	}
	if n := uploads(t, svc); n != 1 {
		t.Errorf("%d uploads left, want other/c only", n)
	}
	if doc, err := svc.LifecycleCursor(ctx, "bkt"); err != nil || doc != nil {
		t.Errorf("a finished pass left its cursor: %s %v", doc, err)
	}
}

// TestPassResumesAfterRestart stops a pass after its first page, as a
// shutdown would, restarts the stores on the same data dir and checks the
// next pass starts where the first stopped.
func TestPassResumesAfterRestart(t *testing.T) {
	dir := t.TempDir()
	svc, closeStores := openService(t, dir)
	setup(t, svc, `<Rule><ID>all</ID><Filter/><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`,
		"k1", "k2", "k3", "k4", "k5", "k6")
	if cur := interruptedPass(t, svc, 2); cur.Phase != phaseObjects || cur.After != "k2" {
		t.Fatalf("cursor %+v, want objects after k2", cur)
	}
	closeStores()

	svc, _ = openService(t, dir)
	if got := strings.Join(keys(t, svc), ","); got != "k3,k4,k5,k6" {
		t.Fatalf("after the first page: %s", got)
	}
	w := New(svc, quiet, Options{PageSize: 2, Now: inThreeDays})
	rep, err := w.Pass(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Resumed != 1 || rep.Scanned != 4 || rep.Expired != 4 {
		t.Errorf("resumed pass %+v, want it to start after k2", rep)
	}
	if got := keys(t, svc); len(got) != 0 {
		t.Errorf("left %v", got)
	}
	if doc, _ := svc.LifecycleCursor(context.Background(), "bkt"); doc != nil {
		t.Errorf("cursor left: %s", doc)
	}
}

// interruptedPass makes a pass of pageSize stopped after its first page,
// as a shutdown would, and returns the cursor it stored.
func interruptedPass(t *testing.T, svc *service.Service, pageSize int) cursor {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := New(svc, quiet, Options{PageSize: pageSize, Now: inThreeDays, OnPage: func(string) { cancel() }})
	if _, err := w.Pass(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted pass: %v", err)
	}
	doc, err := svc.LifecycleCursor(context.Background(), "bkt")
	if err != nil || doc == nil {
		t.Fatalf("no cursor after an interrupted pass: %v", err)
	}
	var cur cursor
	if err := json.Unmarshal(doc, &cur); err != nil {
		t.Fatalf("cursor %s: %v", doc, err)
	}
	return cur
}

// An object overwritten after it was listed is not expired: the delete
// holds only for the version listed.
func TestExpireSkipsChangedObject(t *testing.T) {
	svc, _ := openService(t, t.TempDir())
	setup(t, svc, `<Rule><ID>all</ID><Filter/><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`, "k")
	ctx := context.Background()
	page, err := svc.ListObjects(ctx, "bkt", meta.ListOptions{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.PutObject(ctx, service.PutInput{Bucket: "bkt", Key: "k", Body: strings.NewReader("new body"), Size: 8}); err != nil {
		t.Fatal(err)
	}
	w := New(svc, quiet, Options{})
	ok, err := w.expire(ctx, "bkt", page.Objects[0], "all")
	if err != nil || ok {
		t.Fatalf("expire of a replaced object: %v %v", ok, err)
	}
	if got := keys(t, svc); len(got) != 1 {
		t.Fatalf("the new object was removed: %v", got)
	}
}

// Without a configuration a pass touches nothing, and a stale cursor of a
// removed configuration is dropped.
func TestPassWithoutRules(t *testing.T) {
	svc, _ := openService(t, t.TempDir())
	setup(t, svc, `<Rule><ID>all</ID><Filter/><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`, "k")
	ctx := context.Background()
	if err := svc.SetLifecycleCursor(ctx, "bkt", []byte(`{"phase":"objects","after":"a"}`)); err != nil {
		t.Fatal(err)
	}
	if err := svc.DeleteBucketLifecycle(ctx, "bkt"); err != nil {
		t.Fatal(err)
	}
	rep, err := New(svc, quiet, Options{Now: inThreeDays}).Pass(ctx)
	if err != nil || rep.Buckets != 0 || rep.Expired != 0 {
		t.Fatalf("%+v %v", rep, err)
	}
	if got := keys(t, svc); len(got) != 1 {
		t.Errorf("objects removed without rules: %v", got)
	}
	if doc, _ := svc.LifecycleCursor(ctx, "bkt"); doc != nil {
		t.Errorf("stale cursor kept: %s", doc)
	}
}

// TestPassKeepsLockedVersions: on a bucket with object lock, expiration
// writes a delete marker and the locked version it hides stays.
func TestPassKeepsLockedVersions(t *testing.T) {
	svc, _ := openService(t, t.TempDir())
	ctx := context.Background()
	if err := svc.CreateObjectLockBucket(ctx, "lkd", "us-east-1", "owner"); err != nil {
		t.Fatal(err)
	}
	c, err := lifecycle.ParseXML([]byte(`<LifecycleConfiguration><Rule><ID>all</ID><Filter/><Status>Enabled</Status>` +
		`<Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`))
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.PutBucketLifecycle(ctx, "lkd", c); err != nil {
		t.Fatal(err)
	}
	o, err := svc.PutObject(ctx, service.PutInput{Bucket: "lkd", Key: "k", Body: strings.NewReader("k"), Size: 1, Integrity: true,
		Lock: service.LockRequest{Set: true, Lock: meta.ObjectLock{Mode: meta.LockCompliance, RetainUntil: time.Now().Add(time.Hour)}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(svc, quiet, Options{Now: inThreeDays}).Pass(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.HeadObject(ctx, "lkd", "k", "", false); !errors.Is(err, meta.ErrObjectNotFound) {
		t.Errorf("HEAD of the expired key: %v, want a delete marker", err)
	}
	if _, err := svc.HeadObject(ctx, "lkd", "k", o.VersionID, false); err != nil {
		t.Errorf("the locked version is gone: %v", err)
	}
	if _, err := svc.DeleteObject(ctx, "lkd", "k", o.VersionID, "owner", meta.Condition{BypassGovernance: true}); !errors.Is(err, meta.ErrObjectLocked) {
		t.Errorf("DeleteObject of the locked version: %v, want ErrObjectLocked", err)
	}
}
