package integration

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"net/http"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/encrypt"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestMinioEncrypt drives SSE-S3, SSE-KMS (with a context) and SSE-C
// through minio-go's encrypt package over HTTPS (minio-go sends SSE-C
// keys over TLS only): single PUTs and multipart uploads (minio-go splits
// 12 MiB into 5 MiB parts), whole and ranged reads, StatObject, the SSE-C
// refusals, and CopyObject from SSE-C to SSE-S3.
func TestMinioEncrypt(t *testing.T) {
	srv, c, bucket := itest.StartMinio(t, testutil.WithTLS(t), testutil.WithoutFsync())
	createProofKey(t, srv.DataDir)
	ctx := context.Background()

	kmsSSE, err := encrypt.NewSSEKMS(proofKMSKey, map[string]string{"project": "jog", "purpose": "issue-39"})
	if err != nil {
		t.Fatal(err)
	}
	ck := make([]byte, 32)
	rand.Read(ck)
	ssec, err := encrypt.NewSSEC(ck)
	if err != nil {
		t.Fatal(err)
	}
	modes := []struct {
		name string
		sse  encrypt.ServerSide
		// header is the response header and value HEAD and GET carry.
		header, value string
	}{
		{"sse-s3", encrypt.NewSSE(), "X-Amz-Server-Side-Encryption", "AES256"},
		{"sse-kms", kmsSSE, "X-Amz-Server-Side-Encryption", "aws:kms"},
		{"sse-c", ssec, "X-Amz-Server-Side-Encryption-Customer-Algorithm", "AES256"},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			// The key to read with: SSE-C's own, nothing for the others.
			var read encrypt.ServerSide
			if m.sse.Type() == encrypt.SSEC {
				read = m.sse
			}
			for _, size := range []int{0, 1000, 300 << 10, 12 << 20} {
				key := m.name + "/" + itest.MD5Hex([]byte{byte(size), byte(size >> 8), byte(size >> 16)})
				data := itest.RandBytes(uint64(size), size)
				_, err := c.PutObject(ctx, bucket, key, bytes.NewReader(data), int64(size),
					minio.PutObjectOptions{ServerSideEncryption: m.sse, PartSize: 5 << 20})
				if err != nil {
					t.Fatalf("PutObject %d bytes: %v", size, err)
				}
				info, err := c.StatObject(ctx, bucket, key, minio.StatObjectOptions{ServerSideEncryption: read})
				if err != nil {
					t.Fatalf("StatObject %d bytes: %v", size, err)
				}
				if info.Size != int64(size) || info.Metadata.Get(m.header) != m.value {
					t.Errorf("StatObject %d bytes: size %d, %s %q; want %s", size, info.Size, m.header, info.Metadata.Get(m.header), m.value)
				}
				got, _ := itest.MinioGet(t, c, bucket, key, minio.GetObjectOptions{ServerSideEncryption: read})
				if !bytes.Equal(got, data) {
					t.Fatalf("GetObject %d bytes: got %d bytes that differ", size, len(got))
				}
				if size < 2 {
					continue
				}
				opts := minio.GetObjectOptions{ServerSideEncryption: read}
				lo, hi := int64(size/3), int64(size/3+size/2)
				if err := opts.SetRange(lo, hi); err != nil {
					t.Fatal(err)
				}
				if got, _ := itest.MinioGet(t, c, bucket, key, opts); !bytes.Equal(got, data[lo:hi+1]) {
					t.Errorf("ranged GetObject %d-%d of %d bytes: %d bytes that differ", lo, hi, size, len(got))
				}
			}
		})
	}

	// SSE-C: the key is needed, and must be the right one.
	data := itest.RandBytes(7, 100<<10)
	if _, err := c.PutObject(ctx, bucket, "ssec", bytes.NewReader(data), int64(len(data)),
		minio.PutObjectOptions{ServerSideEncryption: ssec, DisableMultipart: true}); err != nil {
		t.Fatal(err)
	}
	other := make([]byte, 32)
	rand.Read(other)
	wrong, _ := encrypt.NewSSEC(other)
	for _, tc := range []struct {
		name   string
		sse    encrypt.ServerSide
		status int
		code   string
	}{
		{"without the key", nil, http.StatusBadRequest, "InvalidRequest"},
		{"with another key", wrong, http.StatusForbidden, "AccessDenied"},
	} {
		_, _, err := itest.MinioTryGet(c, bucket, "ssec", minio.GetObjectOptions{ServerSideEncryption: tc.sse})
		resp := minio.ToErrorResponse(err)
		if err == nil || resp.StatusCode != tc.status || resp.Code != tc.code {
			t.Errorf("GET of an SSE-C object %s: %v (%d %s), want %d %s", tc.name, err, resp.StatusCode, resp.Code, tc.status, tc.code)
		}
	}

	// CopyObject: decrypted with the source's customer key, stored under
	// SSE-S3; read back without any key.
	_, err = c.CopyObject(ctx, minio.CopyDestOptions{Bucket: bucket, Object: "ssec-to-s3", Encryption: encrypt.NewSSE()},
		minio.CopySrcOptions{Bucket: bucket, Object: "ssec", Encryption: encrypt.SSECopy(ssec)})
	if err != nil {
		t.Fatalf("CopyObject SSE-C → SSE-S3: %v", err)
	}
	obj, err := c.GetObject(ctx, bucket, "ssec-to-s3", minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	got, err := io.ReadAll(obj)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("copy read back: %d bytes, %v", len(got), err)
	}
	info, err := obj.Stat()
	if err != nil || info.Metadata.Get("X-Amz-Server-Side-Encryption") != "AES256" {
		t.Errorf("copy's encryption: %q, %v; want AES256", info.Metadata.Get("X-Amz-Server-Side-Encryption"), err)
	}
}
