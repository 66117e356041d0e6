package integration

// Versioning details found by issue 20's review: restoring a version by
// copying it onto its own key, versionId validation, lifecycle's
// x-amz-expiration on versions, and re-created buckets.

import (
	"bytes"
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/test/integration/itest"
)

// TestVersioningRestoreByCopy copies a previous version onto its own key:
// S3 accepts it (a named source version is not a copy onto itself) and the
// copy becomes the key's latest version, with the old version's bytes.
func TestVersioningRestoreByCopy(t *testing.T) {
	ctx := context.Background()
	_, c := itest.StartBucket(t, "restore")
	setVersioning(t, c, "restore", types.BucketVersioningStatusEnabled)
	v1 := itest.Put(t, c, "restore", "k", []byte("first")).VersionId
	v2 := itest.Put(t, c, "restore", "k", []byte("second")).VersionId
	out, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("restore"), Key: aws.String("k"),
		CopySource: aws.String("restore/k?versionId=" + aws.ToString(v1))})
	if err != nil {
		t.Fatalf("CopyObject of version 1 onto its key: %v", err)
	}
	v3 := aws.ToString(out.VersionId)
	if v3 == "" || v3 == aws.ToString(v1) || v3 == aws.ToString(v2) || aws.ToString(out.CopySourceVersionId) != aws.ToString(v1) {
		t.Fatalf("restore: version %q (copied from %q), versions before %q %q", v3, aws.ToString(out.CopySourceVersionId), aws.ToString(v1), aws.ToString(v2))
	}
	got, g := itest.Get(t, c, "restore", "k")
	if !bytes.Equal(got, []byte("first")) || aws.ToString(g.VersionId) != v3 {
		t.Fatalf("latest after restore: %q version %q, want \"first\" version %q", got, aws.ToString(g.VersionId), v3)
	}
	if got, _ := itest.Get(t, c, "restore", "k", func(in *s3.GetObjectInput) { in.VersionId = v2 }); string(got) != "second" {
		t.Fatalf("version 2 after restore: %q", got)
	}
	// Without a version it is still a copy onto itself.
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("restore"), Key: aws.String("k"), CopySource: aws.String("restore/k")})
	itest.WantErr(t, err, 400, "InvalidRequest")
}
