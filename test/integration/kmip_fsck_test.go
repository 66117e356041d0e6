package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/cli"
	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/kms/kmip/kmiptest"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestFsckDeepOverKMIP: jog fsck --deep opens data keys through the KMS
// the server opens from the same settings. Objects written through the
// server under keys of a real KMIP server (PyKMIP) — a PUT and a
// multipart upload — and one under SSE-S3 (the built-in KMS) check clean
// with the server's --kms-kmip-* settings; a byte flipped in the KMIP
// object's blob is reported corrupt; without the settings the KMIP
// objects' data keys do not open ("key"), the SSE-S3 one still does.
func TestFsckDeepOverKMIP(t *testing.T) {
	ctx := context.Background()
	kmipSrv := kmiptest.Start(t)
	kmipSrv.CreateKey("tenant-a", true)
	srv := testutil.StartServer(t, func(c *config.Config) { c.KMIP, c.InlineMax, c.PackMax = kmipSrv.Config, 0, 0 })
	c := itest.AWSClient(t, srv)
	itest.CreateBucket(t, c, "fsck")

	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("fsck"), Key: aws.String("kmip"),
		Body: bytes.NewReader(itest.RandBytes(41, 200_000)), ServerSideEncryption: types.ServerSideEncryptionAwsKms,
		SSEKMSKeyId: aws.String("tenant-a")}); err != nil {
		t.Fatalf("SSE-KMS PUT under a KMIP key: %v", err)
	}
	blobs := blobPaths(srv.DataDir) // the KMIP object's, the only one yet
	if len(blobs) != 1 {
		t.Fatalf("want the one blob of the object, found %v", blobs)
	}
	mpu, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("fsck"), Key: aws.String("kmip-mp"),
		ServerSideEncryption: types.ServerSideEncryptionAwsKms, SSEKMSKeyId: aws.String("tenant-a")})
	if err != nil {
		t.Fatal(err)
	}
	up, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("fsck"), Key: aws.String("kmip-mp"), UploadId: mpu.UploadId,
		PartNumber: aws.Int32(1), Body: bytes.NewReader(itest.RandBytes(42, 100_000))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("fsck"), Key: aws.String("kmip-mp"),
		UploadId: mpu.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{ETag: up.ETag, PartNumber: aws.Int32(1)}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("fsck"), Key: aws.String("s3"),
		Body: bytes.NewReader(itest.RandBytes(43, 50_000)), ServerSideEncryption: types.ServerSideEncryptionAes256}); err != nil {
		t.Fatalf("SSE-S3 PUT: %v", err)
	}
	srv.Stop()

	k := kmipSrv.Config
	withKMIP := []string{"--kms-kmip-endpoint", k.Endpoint, "--kms-kmip-ca", k.CA, "--kms-kmip-cert", k.Cert,
		"--kms-kmip-key", k.Key, "--kms-kmip-timeout", k.Timeout.String()}
	fsck := func(args ...string) (int, []string) {
		t.Helper()
		var out, errOut bytes.Buffer
		code := cli.Run(ctx, append([]string{"fsck", "--data-dir", srv.DataDir, "--deep", "--json"}, args...), &out, &errOut)
		var r struct {
			Problems []struct{ Kind, Key string }
			Summary  struct{ Objects int }
		}
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatalf("fsck --json: %v\nstdout: %s\nstderr: %s", err, out.String(), errOut.String())
		}
		if r.Summary.Objects != 3 {
			t.Errorf("fsck checked %d objects, want 3\n%s", r.Summary.Objects, out.String())
		}
		var found []string
		for _, p := range r.Problems {
			found = append(found, p.Kind+" "+p.Key)
		}
		slices.Sort(found)
		return code, found
	}

	if code, found := fsck(withKMIP...); code != 0 || len(found) != 0 {
		t.Errorf("fsck --deep with the server's KMIP settings: exit %d, %v", code, found)
	}
	if code, found := fsck(); code != 1 || !slices.Equal(found, []string{"key kmip", "key kmip-mp"}) {
		t.Errorf("fsck --deep without the KMIP settings: exit %d, %v; want the KMIP objects' keys not opening", code, found)
	}
	flipByte(t, blobs[0], 100_000)
	if code, found := fsck(withKMIP...); code != 1 || !slices.Equal(found, []string{"corrupt kmip"}) {
		t.Errorf("fsck --deep of a flipped byte under a KMIP key: exit %d, %v; want the object corrupt", code, found)
	}
}
