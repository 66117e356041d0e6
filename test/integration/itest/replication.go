package itest

import (
	"context"
	"testing"

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
