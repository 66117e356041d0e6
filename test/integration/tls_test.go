package integration

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestTLSStreamingTrailers runs aws-sdk-go-v2 with its defaults over HTTPS,
// where it sends unseekable bodies as aws-chunked with a trailing checksum
// (STREAMING-UNSIGNED-PAYLOAD-TRAILER), for every checksum algorithm.
func TestTLSStreamingTrailers(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithTLS(t))
	c := srv.AWSClient(t)
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("tls")}); err != nil {
		t.Fatal(err)
	}
	data := itest.RandBytes(7, 300_000)
	for _, alg := range []types.ChecksumAlgorithm{"", types.ChecksumAlgorithmCrc32, types.ChecksumAlgorithmCrc32c,
		types.ChecksumAlgorithmSha1, types.ChecksumAlgorithmSha256, types.ChecksumAlgorithmCrc64nvme} {
		key := "obj-" + string(alg)
		// io.MultiReader hides Seek: the SDK must stream it.
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("tls"), Key: aws.String(key),
			Body: io.MultiReader(bytes.NewReader(data)), ContentLength: aws.Int64(int64(len(data))), ChecksumAlgorithm: alg})
		if err != nil {
			t.Fatalf("%s: %v", alg, err)
		}
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("tls"), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled})
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(out.Body)
		out.Body.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: read back %d bytes (%v)", alg, len(got), err)
		}
		want := alg
		if want == "" {
			want = types.ChecksumAlgorithmCrc32 // the SDK's default
		}
		if out.ChecksumCRC32 == nil && out.ChecksumCRC32C == nil && out.ChecksumSHA1 == nil && out.ChecksumSHA256 == nil && out.ChecksumCRC64NVME == nil {
			t.Errorf("%s: no checksum returned with checksum mode enabled", alg)
		}
	}
}
