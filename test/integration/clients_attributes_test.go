package integration

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestClientCompositeChecksumAttributes: S3 reports a COMPOSITE multipart
// checksum with a "-<parts>" suffix on HEAD, GET and CompleteMultipartUpload
// but without it in GetObjectAttributes (found with the AWS CLI in
// test/clients/awscli_multipart_test.sh).
func TestClientCompositeChecksumAttributes(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithoutFsync())
	c := srv.AWSClient(t)
	ctx := context.Background()
	bucket, key := "attrs", "composite"
	itest.CreateBucket(t, c, bucket)
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key),
		ChecksumAlgorithm: types.ChecksumAlgorithmSha256})
	if err != nil {
		t.Fatal(err)
	}
	var parts []types.CompletedPart
	for n, size := range []int{5 << 20, 1000} {
		p, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId,
			PartNumber: aws.Int32(int32(n + 1)), Body: strings.NewReader(string(itest.RandBytes(uint64(n), size))),
			ChecksumAlgorithm: types.ChecksumAlgorithmSha256})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(int32(n + 1)), ETag: p.ETag, ChecksumSHA256: p.ChecksumSHA256})
	}
	done, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key),
		UploadId: up.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
	if err != nil {
		t.Fatal(err)
	}
	full := aws.ToString(done.ChecksumSHA256)
	if !strings.HasSuffix(full, "-2") {
		t.Fatalf("CompleteMultipartUpload ChecksumSHA256 %q, want a -2 suffix", full)
	}
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(head.ChecksumSHA256) != full {
		t.Fatalf("HeadObject ChecksumSHA256 %q, want %q", aws.ToString(head.ChecksumSHA256), full)
	}
	attrs, err := c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: aws.String(bucket), Key: aws.String(key),
		ObjectAttributes: []types.ObjectAttributes{types.ObjectAttributesChecksum, types.ObjectAttributesObjectParts}})
	if err != nil {
		t.Fatal(err)
	}
	if attrs.Checksum == nil || aws.ToString(attrs.Checksum.ChecksumSHA256) != strings.TrimSuffix(full, "-2") ||
		attrs.Checksum.ChecksumType != types.ChecksumTypeComposite {
		t.Fatalf("GetObjectAttributes Checksum %+v, want %q (no part-count suffix), COMPOSITE", attrs.Checksum, strings.TrimSuffix(full, "-2"))
	}
	if attrs.ObjectParts == nil || len(attrs.ObjectParts.Parts) != 2 ||
		aws.ToString(attrs.ObjectParts.Parts[0].ChecksumSHA256) != aws.ToString(parts[0].ChecksumSHA256) {
		t.Fatalf("GetObjectAttributes ObjectParts %+v", attrs.ObjectParts)
	}
}
