package integration

// Key management beside and around the real server: `jog admin kms`
// changes a running server's keys, and `jog admin kms rotate-master`
// re-seals them while it is stopped, every object readable after.

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/cli"
	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// jogKMS runs `jog admin kms <cmd> --data-dir dir args...` and returns its
// exit code and output.
func jogKMS(dir, cmd string, args ...string) (int, string) {
	var out, errOut bytes.Buffer
	code := cli.Run(context.Background(), append([]string{"admin", "kms", cmd, "--data-dir", dir}, args...), &out, &errOut)
	return code, out.String() + errOut.String()
}

func mustJogKMS(t *testing.T, dir, cmd string, args ...string) string {
	t.Helper()
	code, out := jogKMS(dir, cmd, args...)
	if code != 0 {
		t.Fatalf("jog admin kms %s %s: exit %d: %s", cmd, strings.Join(args, " "), code, out)
	}
	return out
}

func withKMSKey(id string) func(*s3.PutObjectInput) {
	return func(in *s3.PutObjectInput) {
		in.ServerSideEncryption, in.SSEKMSKeyId = types.ServerSideEncryptionAwsKms, aws.String(id)
	}
}

// TestSSEKMSAdminBesideServer: a key `jog admin kms` creates while the
// server runs seals objects at once; disabled, its objects answer 400
// KMS.DisabledException (GET and PUT) and no byte; enabled, they read
// again; rotated, new objects use the new version and old ones still read.
// No restart.
func TestSSEKMSAdminBesideServer(t *testing.T) {
	t.Setenv(kms.MasterKeyEnv, "")
	dir := t.TempDir()
	srv := testutil.StartServer(t, testutil.WithDataDir(dir), testutil.WithoutFsync())
	c := srv.AWSClient(t)
	ctx := context.Background()
	itest.CreateBucket(t, c, "keys")
	body := itest.RandBytes(7, 100<<10)

	_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("keys"), Key: aws.String("early"), Body: bytes.NewReader(body), ServerSideEncryption: types.ServerSideEncryptionAwsKms, SSEKMSKeyId: aws.String("team-a")})
	itest.WantErr(t, err, http.StatusBadRequest, "KMS.NotFoundException")

	mustJogKMS(t, dir, "create", "--description", "team A", "team-a")
	putSSE(t, c, "keys", "a", body, withKMSKey("team-a"))

	mustJogKMS(t, dir, "disable", "team-a")
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("keys"), Key: aws.String("a")})
	itest.WantErr(t, err, http.StatusBadRequest, "KMS.DisabledException")
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("keys"), Key: aws.String("b"), Body: bytes.NewReader(body), ServerSideEncryption: types.ServerSideEncryptionAwsKms, SSEKMSKeyId: aws.String("team-a")})
	itest.WantErr(t, err, http.StatusBadRequest, "KMS.DisabledException")

	mustJogKMS(t, dir, "enable", "team-a")
	if got, _ := itest.Get(t, c, "keys", "a"); !bytes.Equal(got, body) {
		t.Error("GET after enable: not the bytes put")
	}
	if out := mustJogKMS(t, dir, "rotate", "team-a"); !strings.HasPrefix(out, "KeyId: team-a\nState: Enabled\nVersions: 2\n") {
		t.Errorf("rotate printed %q; want version 2", out)
	}
	body2 := itest.RandBytes(8, 100<<10)
	putSSE(t, c, "keys", "b", body2, withKMSKey("team-a"))
	for key, want := range map[string][]byte{"a": body, "b": body2} {
		if got, _ := itest.Get(t, c, "keys", key); !bytes.Equal(got, want) {
			t.Errorf("GET %s after rotate: not the bytes put", key)
		}
	}
}

// TestSSEMasterKeyRotation writes SSE-S3 objects of every size class
// (inline, pack record, blob, multipart), an SSE-KMS and an SSE-C one
// through the real server; `jog admin kms rotate-master` is refused while
// the server runs, then run with it stopped; the server restarted on the
// new sse.key reads every object back, byte for byte, and writes new ones.
func TestSSEMasterKeyRotation(t *testing.T) {
	t.Setenv(kms.MasterKeyEnv, "")
	dir := t.TempDir()
	mustJogKMS(t, dir, "create", "team-a")
	opts := []testutil.Option{testutil.WithDataDir(dir), testutil.WithInsecureSSEC(), testutil.WithoutFsync()}
	srv := testutil.StartServer(t, opts...)
	c := srv.AWSClient(t)
	itest.CreateBucket(t, c, "rot")
	sseS3 := func(in *s3.PutObjectInput) { in.ServerSideEncryption = types.ServerSideEncryptionAes256 }
	customer := newSSECKey('r')

	type object struct {
		key  string
		body []byte
		put  func(*s3.PutObjectInput)
	}
	objects := []object{
		{"inline", itest.RandBytes(10, 100), sseS3},
		{"pack", itest.RandBytes(11, 200<<10), sseS3},
		{"blob", itest.RandBytes(12, 2<<20), sseS3},
		{"kms", itest.RandBytes(13, 300<<10), withKMSKey("team-a")},
		{"customer", itest.RandBytes(14, 300<<10), customer.put},
	}
	for _, o := range objects {
		putSSE(t, c, "rot", o.key, o.body, o.put)
	}
	parts := [][]byte{itest.RandBytes(15, 5<<20), itest.RandBytes(16, 1<<20)}
	multipartSSES3(t, c, "rot", "multipart", parts)

	if code, out := jogKMS(dir, "rotate-master"); code != 1 || !strings.Contains(out, "stop") {
		t.Errorf("rotate-master beside the server: exit %d, %q; want 1 and to stop it", code, out)
	}
	srv.Stop()
	oldKey, err := os.ReadFile(filepath.Join(dir, kms.MasterKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	out := mustJogKMS(t, dir, "rotate-master")
	if !strings.Contains(out, "2 key versions re-sealed") {
		t.Errorf("rotate-master printed %q; want 2 key versions (sse-s3 and team-a, one each)", out)
	}
	newKey, err := os.ReadFile(filepath.Join(dir, kms.MasterKeyFile))
	if err != nil || bytes.Equal(newKey, oldKey) {
		t.Fatalf("%s after rotate-master: unchanged or unreadable (%v)", kms.MasterKeyFile, err)
	}

	srv = testutil.StartServer(t, opts...)
	c = srv.AWSClient(t)
	for _, o := range objects {
		getOpt := func(*s3.GetObjectInput) {}
		if o.key == "customer" {
			getOpt = customer.get
		}
		if got, _ := itest.Get(t, c, "rot", o.key, getOpt); !bytes.Equal(got, o.body) {
			t.Errorf("GET %s after the rotation: not the bytes put", o.key)
		}
	}
	if got, _ := itest.Get(t, c, "rot", "multipart"); !bytes.Equal(got, bytes.Join(parts, nil)) {
		t.Error("GET multipart after the rotation: not the bytes put")
	}
	after := itest.RandBytes(17, 64<<10)
	putSSE(t, c, "rot", "after", after, sseS3)
	if got, _ := itest.Get(t, c, "rot", "after"); !bytes.Equal(got, after) {
		t.Error("an SSE-S3 object written after the rotation: not the bytes put")
	}
}

// multipartSSES3 uploads parts as one SSE-S3 object.
func multipartSSES3(t *testing.T, c *s3.Client, bucket, key string, parts [][]byte) {
	t.Helper()
	ctx := context.Background()
	b, k := aws.String(bucket), aws.String(key)
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: b, Key: k, ServerSideEncryption: types.ServerSideEncryptionAes256})
	if err != nil {
		t.Fatal(err)
	}
	var done []types.CompletedPart
	for i, p := range parts {
		n := aws.Int32(int32(i + 1))
		out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: b, Key: k, UploadId: up.UploadId, PartNumber: n, Body: bytes.NewReader(p)})
		if err != nil {
			t.Fatal(err)
		}
		done = append(done, types.CompletedPart{ETag: out.ETag, PartNumber: n})
	}
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: b, Key: k, UploadId: up.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: done}}); err != nil {
		t.Fatal(err)
	}
}
