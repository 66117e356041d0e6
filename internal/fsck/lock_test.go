package fsck_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/blob/disk"
	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/meta/sqlite"
)

// TestDropLostKeepsLocked: --repair-drop-lost reports a damaged version
// under object lock and keeps it (the store refuses to drop it); the
// unlocked damaged version beside it goes.
func TestDropLostKeepsLocked(t *testing.T) {
	dir, srv, c := serverWithBucket(t, func(in *s3.CreateBucketInput) { in.ObjectLockEnabledForBucket = aws.Bool(true) })
	ctx := t.Context()
	for _, k := range []string{"held", "free"} {
		in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(k), Body: bytes.NewReader(seeded(8, 3000))}
		if k == "held" {
			in.ObjectLockLegalHoldStatus = types.ObjectLockLegalHoldStatusOn
		}
		if _, err := c.PutObject(ctx, in); err != nil {
			t.Fatalf("PUT %s: %v", k, err)
		}
	}
	srv.Stop()

	m, err := sqlite.Open(ctx, filepath.Join(dir, datadir.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	b, err := disk.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"held", "free"} {
		o, err := m.GetObject(ctx, bucket, k, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(b.Path(o.BlobID)); err != nil {
			t.Fatal(err)
		}
	}
	m.Close()

	code, r := runJSON(t, dir, "--repair-drop-lost")
	if code != 1 || r.Remaining != 1 {
		t.Errorf("fsck --repair-drop-lost: exit %d, remaining %d; want 1, 1 (the locked version)", code, r.Remaining)
	}
	wantFound(t, "fsck --repair-drop-lost", r, "missing free dropped", "missing held kept-locked")
	m, err = sqlite.Open(ctx, filepath.Join(dir, datadir.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.GetObject(ctx, bucket, "held", ""); err != nil {
		t.Errorf("the locked version was dropped: %v", err)
	}
	if _, err := m.GetObject(ctx, bucket, "free", ""); err == nil {
		t.Error("the unlocked damaged version was kept")
	}
}
