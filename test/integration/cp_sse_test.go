package integration

// jog cp with encryption at rest against a real server: SSE-C, SSE-S3
// and SSE-KMS uploads (one PUT, multipart), downloads and server-side
// copies (CopyObject and UploadPartCopy), checked with aws-sdk-go-v2.

import (
	"context"
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestCpSSEC: jog cp --sse-c writes SSE-C objects (the key on the PUT,
// CreateMultipartUpload, every UploadPart and the completion) that the
// SDK reads only with that key, reads them back with it, and copies them
// in the server to objects under another key (--sse-c-copy-source), one
// CopyObject and a multipart copy. Over HTTPS, as S3 wants SSE-C.
func TestCpSSEC(t *testing.T) {
	srv, c := itest.StartBucket(t, "cpb", testutil.WithTLS(t))
	ctx := context.Background()
	k1, k2 := newSSECKey(1), newSSECKey(2)
	key, withKey, withKey2 := k1.b64, k1.get, k2.get
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key2")
	raw, _ := base64.StdEncoding.DecodeString(k2.b64)
	if err := os.WriteFile(keyFile, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	cpTLS := func(args ...string) (int, string) {
		return jogCp(ctx, t, srv.URL, append([]string{"--insecure-tls"}, args...)...)
	}
	for _, tc := range []struct {
		name string
		size int
	}{{"small", 1 << 20}, {"multipart", 2*cpPart + 12345}} {
		t.Run(tc.name, func(t *testing.T) {
			data := itest.RandBytes(uint64(tc.size), tc.size)
			src := filepath.Join(dir, tc.name)
			writeFile(t, src, data)
			obj := "enc/" + tc.name
			if code, errs := cpTLS("--sse-c", key, src, "s3://cpb/"+obj); code != 0 {
				t.Fatalf("jog cp --sse-c upload: exit %d: %s", code, errs)
			}
			// The object is SSE-C: no read without its key.
			_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("cpb"), Key: aws.String(obj)})
			itest.WantErr(t, err, http.StatusBadRequest, "InvalidRequest")
			if got, out := itest.Get(t, c, "cpb", obj, withKey); string(got) != string(data) || aws.ToString(out.SSECustomerAlgorithm) != "AES256" {
				t.Fatalf("GET with the key: %d bytes, SSE-C %q; want the file's %d bytes, AES256", len(got), aws.ToString(out.SSECustomerAlgorithm), len(data))
			}

			down := filepath.Join(dir, tc.name+".down")
			if code, errs := cpTLS("s3://cpb/"+obj, down); code == 0 || !strings.Contains(errs, "400") {
				t.Errorf("download without --sse-c: exit %d, %q; want a refusal", code, errs)
			}
			if code, errs := cpTLS("--sse-c", key, "s3://cpb/"+obj, down); code != 0 {
				t.Fatalf("jog cp --sse-c download: exit %d: %s", code, errs)
			}
			wantFile(t, down, data)

			// A copy in the server to an object under key2 (a key file).
			copied := "copies/" + tc.name
			if code, errs := cpTLS("--sse-c-copy-source", key, "--sse-c", "@"+keyFile, "s3://cpb/"+obj, "s3://cpb/"+copied); code != 0 {
				t.Fatalf("jog cp server copy of an SSE-C object: exit %d: %s", code, errs)
			}
			if got, _ := itest.Get(t, c, "cpb", copied, withKey2); string(got) != string(data) {
				t.Fatalf("the copy read with key2: %d bytes, want the file's %d", len(got), len(data))
			}
			_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("cpb"), Key: aws.String(copied)})
			itest.WantErr(t, err, http.StatusBadRequest, "InvalidRequest")
		})
	}
}

// TestCpSSE: jog cp --sse AES256 and --sse aws:kms write objects the
// server keeps under SSE-S3 and SSE-KMS (HEAD says so), one PUT and
// multipart, read back by jog cp (the SSE-KMS ETag is no MD5: the
// CRC64NVME checks the download); an s3:// to s3:// copy of an
// unencrypted object with --sse aws:kms is encrypted, one CopyObject and
// a multipart copy.
func TestCpSSE(t *testing.T) {
	srv, c := itest.StartBucket(t, "cpb")
	dir := t.TempDir()
	for _, tc := range []struct {
		name, sse string
		size      int
	}{
		{"s3-small", "AES256", 1 << 20}, {"s3-multipart", "AES256", 2*cpPart + 7},
		{"kms-small", "aws:kms", 1 << 20}, {"kms-multipart", "aws:kms", 2*cpPart + 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := itest.RandBytes(uint64(tc.size)+3, tc.size)
			src := filepath.Join(dir, tc.name)
			writeFile(t, src, data)
			mustCp(t, srv.URL, "--sse", tc.sse, src, "s3://cpb/enc/"+tc.name)
			wantStoredSSE(t, c, "cpb", "enc/"+tc.name, tc.sse)
			wantObject(t, c, "cpb", "enc/"+tc.name, data)
			wantFullCRC(t, c, "cpb", "enc/"+tc.name, data)
			down := filepath.Join(dir, tc.name+".down")
			mustCp(t, srv.URL, "s3://cpb/enc/"+tc.name, down)
			wantFile(t, down, data)

			// A plain object copied in the server with --sse aws:kms.
			mustCp(t, srv.URL, src, "s3://cpb/plain/"+tc.name)
			wantStoredSSE(t, c, "cpb", "plain/"+tc.name, "")
			mustCp(t, srv.URL, "--sse", "aws:kms", "s3://cpb/plain/"+tc.name, "s3://cpb/copied/"+tc.name)
			wantStoredSSE(t, c, "cpb", "copied/"+tc.name, "aws:kms")
			wantObject(t, c, "cpb", "copied/"+tc.name, data)
		})
	}
}

// wantStoredSSE asserts the x-amz-server-side-encryption HEAD answers for key
// ("": none).
func wantStoredSSE(t *testing.T, c *s3.Client, bucket, key, want string) {
	t.Helper()
	out, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("HEAD %s: %v", key, err)
	}
	if string(out.ServerSideEncryption) != want {
		t.Fatalf("HEAD %s: x-amz-server-side-encryption %q, want %q", key, out.ServerSideEncryption, want)
	}
}
