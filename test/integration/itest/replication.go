package itest

// Bucket replication's helpers (internal/bucketrepl/delivery): shared by
// the in-process tests in test/integration and the real-process tests in
// test/replication.

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
)

// VersionedBucket creates bucket with versioning Enabled.
func VersionedBucket(t testing.TB, c *s3.Client, bucket string) {
	t.Helper()
	CreateBucket(t, c, bucket)
	EnableVersioning(t, c, bucket)
}

// EnableVersioning sets bucket's versioning to Enabled.
func EnableVersioning(t testing.TB, c *s3.Client, bucket string) {
	t.Helper()
	if _, err := c.PutBucketVersioning(context.Background(), &s3.PutBucketVersioningInput{Bucket: aws.String(bucket),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
}

// ReplicateAll puts a replication configuration of one rule, "all",
// replicating every object of bucket, delete markers included, to the
// Destination Bucket ARN dest.
func ReplicateAll(t testing.TB, c *s3.Client, bucket, dest string) {
	t.Helper()
	if _, err := c.PutBucketReplication(context.Background(), &s3.PutBucketReplicationInput{Bucket: aws.String(bucket),
		ReplicationConfiguration: &types.ReplicationConfiguration{Role: aws.String("arn:aws:iam::1:role/r"), Rules: []types.ReplicationRule{{
			ID: aws.String("all"), Priority: aws.Int32(1), Status: types.ReplicationRuleStatusEnabled,
			Filter:                  &types.ReplicationRuleFilter{Prefix: aws.String("")},
			DeleteMarkerReplication: &types.DeleteMarkerReplication{Status: types.DeleteMarkerReplicationStatusEnabled},
			Destination:             &types.Destination{Bucket: aws.String(dest)},
		}}}}); err != nil {
		t.Fatal(err)
	}
}

// VersionRow is what a ListObjectVersions entry says that replication
// must keep.
type VersionRow struct {
	Key, VersionID, ETag string
	Size                 int64
	Marker, Latest       bool
}

func (v VersionRow) String() string {
	return fmt.Sprintf("%s@%s marker=%v latest=%v size=%d etag=%s", v.Key, v.VersionID, v.Marker, v.Latest, v.Size, v.ETag)
}

// ListVersions lists every version and marker of bucket, keys in order,
// newest first within a key.
func ListVersions(t testing.TB, c *s3.Client, bucket string) []VersionRow {
	t.Helper()
	var rows []VersionRow
	p := s3.NewListObjectVersionsPaginator(c, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket)})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range out.Versions {
			rows = append(rows, VersionRow{Key: *v.Key, VersionID: *v.VersionId, ETag: *v.ETag, Size: *v.Size, Latest: *v.IsLatest})
		}
		for _, m := range out.DeleteMarkers {
			rows = append(rows, VersionRow{Key: *m.Key, VersionID: *m.VersionId, Marker: true, Latest: *m.IsLatest})
		}
	}
	slices.SortStableFunc(rows, func(a, b VersionRow) int { // versions then markers per page: merge by key, newest first
		if c := strings.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		return strings.Compare(b.VersionID, a.VersionID)
	})
	return rows
}

// WaitReplicated waits until bucket's versions on src are all COMPLETED
// (or none is PENDING any more) and dst's list of destBucket equals src's.
func WaitReplicated(t testing.TB, src, dst *s3.Client, bucket, destBucket string) []VersionRow {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		want, got := ListVersions(t, src, bucket), ListVersions(t, dst, destBucket)
		if slices.Equal(want, got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("not replicated after 90 s: %d versions on the source, %d on the destination\nthe source's alone:\n%v\nthe destination's alone:\n%v",
				len(want), len(got), without(want, got), without(got, want))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ReplicationStatus is HEAD's x-amz-replication-status of a version (the
// latest for "").
func ReplicationStatus(t testing.TB, c *s3.Client, bucket, key, version string) string {
	t.Helper()
	in := &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}
	if version != "" {
		in.VersionId = aws.String(version)
	}
	out, err := c.HeadObject(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return string(out.ReplicationStatus)
}

// without returns the rows of a that b does not hold.
func without(a, b []VersionRow) []VersionRow {
	var out []VersionRow
	for _, r := range a {
		if !slices.Contains(b, r) {
			out = append(out, r)
		}
	}
	return out
}
