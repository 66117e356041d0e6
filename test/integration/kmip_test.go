package integration

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/kms/kmip/kmiptest"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestSSEKMSOverKMIP: with --kms-kmip-endpoint, SSE-KMS objects are sealed
// by keys of a real KMIP server (PyKMIP) and SSE-S3 ones by the built-in
// KMS; a deactivated key answers S3's KMS.DisabledException and a KMIP
// server that is gone 503, on GET as on PUT, never bytes; SSE-S3 objects
// stay readable throughout.
func TestSSEKMSOverKMIP(t *testing.T) {
	ctx := context.Background()
	kmipSrv := kmiptest.Start(t)
	uidA := kmipSrv.CreateKey("tenant-a", true)
	kmipSrv.CreateKey("tenant-b", true)
	srv := testutil.StartServer(t, func(c *config.Config) { c.KMIP = kmipSrv.Config })
	c := itest.AWSClient(t, srv, func(o *s3.Options) { o.RetryMaxAttempts = 1 })
	itest.CreateBucket(t, c, "kmip")

	put := func(key string, body []byte, sse types.ServerSideEncryption, keyID string) (*s3.PutObjectOutput, error) {
		in := &s3.PutObjectInput{Bucket: aws.String("kmip"), Key: aws.String(key), Body: bytes.NewReader(body), ServerSideEncryption: sse}
		if keyID != "" {
			in.SSEKMSKeyId = aws.String(keyID)
			in.SSEKMSEncryptionContext = aws.String(base64.StdEncoding.EncodeToString([]byte(`{"team":"a"}`)))
		}
		return c.PutObject(ctx, in)
	}
	get := func(key string) ([]byte, error) {
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("kmip"), Key: aws.String(key)})
		if err != nil {
			return nil, err
		}
		defer out.Body.Close()
		return io.ReadAll(out.Body)
	}
	data := itest.RandBytes(39, 200_000)
	for _, o := range []struct{ key, keyID string }{
		{"a", "tenant-a"}, {"a-arn", "arn:aws:kms:us-east-1:123456789012:key/tenant-a"}, {"b", "tenant-b"},
	} {
		out, err := put(o.key, data, types.ServerSideEncryptionAwsKms, o.keyID)
		if err != nil {
			t.Fatalf("PUT %s under %s: %v", o.key, o.keyID, err)
		}
		if out.ServerSideEncryption != types.ServerSideEncryptionAwsKms {
			t.Errorf("PUT %s: x-amz-server-side-encryption %q", o.key, out.ServerSideEncryption)
		}
	}
	if _, err := put("s3", data, types.ServerSideEncryptionAes256, ""); err != nil {
		t.Fatalf("SSE-S3 PUT: %v", err)
	}
	for _, key := range []string{"a", "a-arn", "b", "s3"} {
		if got, err := get(key); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("GET %s: %d bytes, %v", key, len(got), err)
		}
	}
	// A multipart upload under a KMIP key: its data key is sealed once, at
	// CreateMultipartUpload.
	mpu, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("kmip"), Key: aws.String("mp"),
		ServerSideEncryption: types.ServerSideEncryptionAwsKms, SSEKMSKeyId: aws.String("tenant-b")})
	if err != nil {
		t.Fatal(err)
	}
	whole := itest.RandBytes(40, 6<<20)
	var parts []types.CompletedPart
	for i, p := range [][]byte{whole[:5<<20], whole[5<<20:]} {
		n := aws.Int32(int32(i + 1))
		up, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("kmip"), Key: aws.String("mp"), UploadId: mpu.UploadId,
			PartNumber: n, Body: bytes.NewReader(p)})
		if err != nil {
			t.Fatalf("UploadPart %d: %v", i+1, err)
		}
		parts = append(parts, types.CompletedPart{ETag: up.ETag, PartNumber: n})
	}
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("kmip"), Key: aws.String("mp"),
		UploadId: mpu.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}}); err != nil {
		t.Fatal(err)
	}
	if got, err := get("mp"); err != nil || !bytes.Equal(got, whole) {
		t.Fatalf("GET mp: %d bytes, %v", len(got), err)
	}
	_, err = put("none", data, types.ServerSideEncryptionAwsKms, "no-such-key")
	itest.WantErr(t, err, http.StatusBadRequest, "KMS.NotFoundException")

	kmipSrv.Deactivate(uidA)
	for _, key := range []string{"a", "a-arn"} {
		got, err := get(key)
		itest.WantErr(t, err, http.StatusBadRequest, "KMS.DisabledException")
		if got != nil {
			t.Errorf("GET %s under a deactivated key: %d bytes", key, len(got))
		}
	}
	_, err = put("a2", data, types.ServerSideEncryptionAwsKms, "tenant-a")
	itest.WantErr(t, err, http.StatusBadRequest, "KMS.DisabledException")
	if got, err := get("b"); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("GET b under another, active key: %d bytes, %v", len(got), err)
	}

	kmipSrv.Stop()
	got, err := get("b")
	itest.WantErr(t, err, http.StatusServiceUnavailable, "ServiceUnavailable")
	if got != nil {
		t.Errorf("GET b with the KMIP server gone: %d bytes", len(got))
	}
	_, err = put("b2", data, types.ServerSideEncryptionAwsKms, "tenant-b")
	itest.WantErr(t, err, http.StatusServiceUnavailable, "ServiceUnavailable")
	if got, err := get("s3"); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("GET of the SSE-S3 object with the KMIP server gone: %d bytes, %v", len(got), err)
	}
}
