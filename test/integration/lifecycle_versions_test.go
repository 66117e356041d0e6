package integration

// Lifecycle on a versioned bucket: the worker, with a one-second lifecycle
// day, expiring noncurrent versions (NewerNoncurrentVersions kept) and
// removing a lone delete marker.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

func TestLifecycleWorkerExpiresVersions(t *testing.T) {
	srv, c := itest.StartBucket(t, "lcv", testutil.WithLifecycle(time.Second, 50*time.Millisecond))
	ctx := context.Background()
	setVersioning(t, c, "lcv", types.BucketVersioningStatusEnabled)
	var ks []string // k's version IDs, oldest first
	for i := range 4 {
		ks = append(ks, aws.ToString(itest.Put(t, c, "lcv", "k", fmt.Appendf(nil, "k%d", i)).VersionId))
	}
	del := func(key string) string {
		t.Helper()
		out, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("lcv"), Key: aws.String(key)})
		if err != nil || !aws.ToBool(out.DeleteMarker) {
			t.Fatalf("DeleteObject(%s): %v", key, err)
		}
		return aws.ToString(out.VersionId)
	}
	del("gone") // a lone delete marker
	kept := aws.ToString(itest.Put(t, c, "lcv", "kept", []byte("kept")).VersionId)
	keptDM := del("kept") // a delete marker over a version: stays
	other := itest.Put(t, c, "lcv", "other/x", []byte("x0"))
	itest.Put(t, c, "lcv", "other/x", []byte("x1"))

	err := lcPut(ctx, c, "lcv", []types.LifecycleRule{
		{ID: aws.String("nc"), Status: types.ExpirationStatusEnabled, Filter: &types.LifecycleRuleFilter{Prefix: aws.String("k")},
			NoncurrentVersionExpiration: &types.NoncurrentVersionExpiration{NoncurrentDays: aws.Int32(1), NewerNoncurrentVersions: aws.Int32(1)}},
		{ID: aws.String("dm"), Status: types.ExpirationStatusEnabled, Filter: &types.LifecycleRuleFilter{},
			Expiration: &types.LifecycleExpiration{ExpiredObjectDeleteMarker: aws.Bool(true)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"k@" + ks[3] + "*", "k@" + ks[2], "kept@" + keptDM + "(DM)*", "kept@" + kept}
	lcWait(t, "k's older noncurrent versions and the lone marker to go", func() bool {
		got := rawVersions(t, srv, "lcv", 1000)
		return len(got) >= 2 && slices.Equal(got[:len(got)-2], want)
	})
	got := versionsOf(t, srv, c, "lcv", 1000)
	if x := got[len(got)-2:]; len(x) != 2 || !strings.HasPrefix(x[1], "other/x@"+aws.ToString(other.VersionId)) {
		t.Errorf("other/x, under no noncurrent rule, lost a version: %q", got)
	}
	itest.WantObject(t, c, "lcv", "k", []byte("k3"))
	b, _ := itest.Get(t, c, "lcv", "k", func(in *s3.GetObjectInput) { in.VersionId = aws.String(ks[2]) })
	if string(b) != "k2" {
		t.Errorf("the newest noncurrent version reads %q", b)
	}
}

// TestLifecycleWorkerVersionTags: a NoncurrentVersionExpiration rule with a
// Tag filter removes the noncurrent versions whose own tags match and
// leaves the untagged ones.
func TestLifecycleWorkerVersionTags(t *testing.T) {
	srv, c := itest.StartBucket(t, "lcvt", testutil.WithLifecycle(time.Second, 50*time.Millisecond))
	ctx := context.Background()
	setVersioning(t, c, "lcvt", types.BucketVersioningStatusEnabled)
	put := func(key, body, tags string) string {
		t.Helper()
		return aws.ToString(itest.Put(t, c, "lcvt", key, []byte(body), func(in *s3.PutObjectInput) {
			if tags != "" {
				in.Tagging = aws.String(tags)
			}
		}).VersionId)
	}
	t0 := put("t", "t0", "")        // noncurrent, untagged: stays
	t1 := put("t", "t1", "tmp=yes") // noncurrent, tagged: goes
	t2 := put("t", "t2", "tmp=yes") // current: stays
	u0 := put("u", "u0", "tmp=yes") // noncurrent, tagged: goes (after t's versions are judged)
	u1 := put("u", "u1", "tmp=no")  // current
	err := lcPut(ctx, c, "lcvt", []types.LifecycleRule{
		{ID: aws.String("tmp"), Status: types.ExpirationStatusEnabled,
			Filter:                      &types.LifecycleRuleFilter{Tag: &types.Tag{Key: aws.String("tmp"), Value: aws.String("yes")}},
			NoncurrentVersionExpiration: &types.NoncurrentVersionExpiration{NoncurrentDays: aws.Int32(1)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"t@" + t2 + "*", "t@" + t0, "u@" + u1 + "*"}
	lcWait(t, "the tagged noncurrent versions to go", func() bool {
		got := rawVersions(t, srv, "lcvt", 1000)
		return !slices.Contains(got, "t@"+t1) && !slices.Contains(got, "u@"+u0)
	})
	if got := versionsOf(t, srv, c, "lcvt", 1000); !slices.Equal(got, want) {
		t.Errorf("versions %q\nwant %q", got, want)
	}
}
