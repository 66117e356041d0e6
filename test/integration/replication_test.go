package integration

// Bucket replication's delivery (internal/bucketrepl/delivery, ADR 0031)
// between two real JOG servers: every write, overwrite, multipart
// completion, delete marker and version delete on the source arrives on
// the destination with the source's version IDs, in order, byte-exact,
// with its metadata and tags; the source reports COMPLETED, the
// destination REPLICA; a target that is down holds the versions PENDING
// until it is back.

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/manager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// replicateTo gives the server one replication target, "dr", at url, with
// the test credentials (the servers share them).
func replicateTo(url string) testutil.Option {
	return func(c *config.Config) {
		c.Replication.Targets.Items = []string{"dr=" + url}
		c.Replication.Credentials.Items = []string{"dr=" + testutil.AccessKey + ":" + testutil.SecretKey}
	}
}

func TestReplicationDelivers(t *testing.T) {
	ctx := context.Background()
	dst, dc := itest.Start(t, testutil.WithoutFsync())
	itest.VersionedBucket(t, dc, "copy")
	_, sc := itest.Start(t, replicateTo(dst.URL), testutil.WithoutFsync())
	itest.VersionedBucket(t, sc, "orig")
	itest.ReplicateAll(t, sc, "orig", "arn:jog:replication::dr:copy")

	small := itest.RandBytes(1, 700)
	blob := itest.RandBytes(2, 1<<20+3)
	itest.Put(t, sc, "orig", "a/small", small, func(in *s3.PutObjectInput) {
		in.ContentType = aws.String("text/plain")
		in.Metadata = map[string]string{"colour": "blue"}
		in.Tagging = aws.String("team=dr&tier=1")
	})
	itest.Put(t, sc, "orig", "b/blob", blob)
	itest.Put(t, sc, "orig", "b/blob", small) // a second version of the key
	big := itest.RandBytes(3, 11<<20+17)
	up := manager.NewUploader(sc, func(u *manager.Uploader) { u.PartSize = 5 << 20 })
	if _, err := up.Upload(ctx, &s3.PutObjectInput{Bucket: aws.String("orig"), Key: aws.String("c/multi"), Body: bytes.NewReader(big)}); err != nil {
		t.Fatal(err)
	}
	itest.Put(t, sc, "orig", "d/gone", small)
	if _, err := sc.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("orig"), Key: aws.String("d/gone")}); err != nil {
		t.Fatal(err) // a delete marker
	}
	v := itest.Put(t, sc, "orig", "e/version", blob)
	itest.Put(t, sc, "orig", "e/version", small)
	if _, err := sc.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("orig"), Key: aws.String("e/version"), VersionId: v.VersionId}); err != nil {
		t.Fatal(err) // a version removed
	}

	rows := itest.WaitReplicated(t, sc, dc, "orig", "copy")
	if len(rows) != 7 {
		t.Fatalf("%d versions, want 7: %v", len(rows), rows)
	}
	for _, r := range rows {
		if r.Marker {
			continue
		}
		if got := itest.ReplicationStatus(t, sc, "orig", r.Key, r.VersionID); got != "COMPLETED" {
			t.Errorf("source %v: status %q, want COMPLETED", r, got)
		}
		if got := itest.ReplicationStatus(t, dc, "copy", r.Key, r.VersionID); got != "REPLICA" {
			t.Errorf("destination %v: status %q, want REPLICA", r, got)
		}
	}
	if got, _ := itest.Get(t, dc, "copy", "c/multi"); !bytes.Equal(got, big) { // its ETag, of 3 parts, is compared above
		t.Errorf("c/multi on the destination: %s, want %s", itest.Short(got), itest.Short(big))
	}
	itest.WantObject(t, dc, "copy", "b/blob", small)
	itest.WantNoObject(t, dc, "copy", "d/gone")
	got, out := itest.Get(t, dc, "copy", "a/small")
	if !bytes.Equal(got, small) || aws.ToString(out.ContentType) != "text/plain" || out.Metadata["colour"] != "blue" || aws.ToInt32(out.TagCount) != 2 {
		t.Errorf("a/small on the destination: type %q meta %v tags %d", aws.ToString(out.ContentType), out.Metadata, aws.ToInt32(out.TagCount))
	}
}

// TestReplicationTargetDown: writes made while the target is down stay
// PENDING, and arrive, in order, once it is back on the same address.
func TestReplicationTargetDown(t *testing.T) {
	dst := testutil.StartServer(t, testutil.WithoutFsync())
	dc := itest.AWSClient(t, dst)
	itest.VersionedBucket(t, dc, "copy")
	addr, dir := dst.Addr, dst.DataDir
	src, sc := itest.Start(t, replicateTo(dst.URL), testutil.WithoutFsync(), withMetricsToken)
	itest.VersionedBucket(t, sc, "orig")
	itest.ReplicateAll(t, sc, "orig", "arn:jog:replication::dr:copy")
	dst.Stop()

	var last *s3.PutObjectOutput
	for i := range 20 {
		last = itest.Put(t, sc, "orig", fmt.Sprintf("k%d", i%3), itest.RandBytes(uint64(i), 100+i))
	}
	if got := itest.ReplicationStatus(t, sc, "orig", "k1", aws.ToString(last.VersionId)); got != "PENDING" {
		t.Errorf("with the target down: %q, want PENDING", got)
	}
	// The metrics say the target is down and what waits for it.
	m := scrapeUntil(t, src, func(m scrape) bool { return m.value("jog_replication_target_up", "target", "dr") == 0 })
	if up, pending, failures := m.value("jog_replication_target_up", "target", "dr"), m.value("jog_replication_pending", "target", "dr"),
		m.value("jog_replication_failures_total", "target", "dr"); up != 0 || pending != 20 || failures == 0 {
		t.Errorf("target down: up %v, pending %v, failures %v; want 0, 20, > 0", up, pending, failures)
	}
	dst = testutil.StartServer(t, testutil.WithoutFsync(), testutil.WithDataDir(dir), func(c *config.Config) { c.Addr = addr })
	dc = itest.AWSClient(t, dst)
	itest.WaitReplicated(t, sc, dc, "orig", "copy")
	m = scrapeUntil(t, src, func(m scrape) bool { return m.value("jog_replication_pending", "target", "dr") == 0 })
	if up, sent, lags := m.value("jog_replication_target_up", "target", "dr"), m.value("jog_replication_sent_total", "target", "dr"),
		m.value("jog_replication_lag_seconds", "target", "dr"); up != 1 || sent != 20 || lags != 20 {
		t.Errorf("target back: up %v, sent %v, lags observed %v; want 1, 20, 20", up, sent, lags)
	}
}

// TestReplicationSkipsLifecycle: as in S3, the lifecycle worker's removals
// on the source (here a noncurrent version expired) are not replicated;
// the destination expires by its own rules.
func TestReplicationSkipsLifecycle(t *testing.T) {
	ctx := context.Background()
	dst, dc := itest.Start(t, testutil.WithoutFsync())
	itest.VersionedBucket(t, dc, "copy")
	_, sc := itest.Start(t, replicateTo(dst.URL), testutil.WithoutFsync(), testutil.WithLifecycle(time.Second, 50*time.Millisecond))
	itest.VersionedBucket(t, sc, "orig")
	itest.ReplicateAll(t, sc, "orig", "arn:jog:replication::dr:copy")
	for i := range 3 {
		itest.Put(t, sc, "orig", "k", fmt.Appendf(nil, "k%d", i))
	}
	before := itest.WaitReplicated(t, sc, dc, "orig", "copy")
	if err := lcPut(ctx, sc, "orig", []types.LifecycleRule{{ID: aws.String("nc"), Status: types.ExpirationStatusEnabled,
		Filter:                      &types.LifecycleRuleFilter{Prefix: aws.String("")},
		NoncurrentVersionExpiration: &types.NoncurrentVersionExpiration{NoncurrentDays: aws.Int32(1)}}}); err != nil {
		t.Fatal(err)
	}
	lcWait(t, "the noncurrent versions to expire on the source", func() bool { return len(itest.ListVersions(t, sc, "orig")) == 1 })
	time.Sleep(500 * time.Millisecond) // time for a delete to reach the destination, were one sent
	if got := itest.ListVersions(t, dc, "copy"); !slices.Equal(got, before) {
		t.Errorf("the destination changed with the source's lifecycle:\nbefore %v\nafter  %v", before, got)
	}
}
