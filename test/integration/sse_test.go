package integration

// Encryption at rest through aws-sdk-go-v2 against the real server:
// SSE-S3, SSE-KMS with a key of the built-in KMS, SSE-C on every byte
// path, the headers S3 answers on each response, and S3's refusals.

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// sseKMSKey is the built-in KMS key the tests create.
const sseKMSKey = "app-key"

// kmsDataDir is a data dir whose built-in KMS has the key sseKMSKey,
// created as `jog admin kms create` does, before a server opens it.
func kmsDataDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	k, err := kms.OpenDataDir(context.Background(), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Create(context.Background(), sseKMSKey, "integration tests"); err != nil {
		t.Fatal(err)
	}
	return dir
}

// ssecKey is a customer key: its base64 and its key MD5, as clients send
// them.
type ssecKey struct{ b64, md5 string }

func newSSECKey(fill byte) ssecKey {
	raw := bytes.Repeat([]byte{fill}, 32)
	sum := md5.Sum(raw)
	return ssecKey{base64.StdEncoding.EncodeToString(raw), base64.StdEncoding.EncodeToString(sum[:])}
}

func (k ssecKey) put(in *s3.PutObjectInput) {
	in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = aws.String("AES256"), aws.String(k.b64), aws.String(k.md5)
}

func (k ssecKey) get(in *s3.GetObjectInput) {
	in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = aws.String("AES256"), aws.String(k.b64), aws.String(k.md5)
}

func (k ssecKey) head(in *s3.HeadObjectInput) {
	in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = aws.String("AES256"), aws.String(k.b64), aws.String(k.md5)
}

// putSSE stores body under key with opts; the ETag of an SSE-C or SSE-KMS
// object is not the MD5 of its data (S3 says so), so it is not checked.
func putSSE(t *testing.T, c *s3.Client, bucket, key string, body []byte, opts ...func(*s3.PutObjectInput)) *s3.PutObjectOutput {
	t.Helper()
	in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body)}
	for _, o := range opts {
		o(in)
	}
	out, err := c.PutObject(context.Background(), in)
	if err != nil {
		t.Fatalf("PutObject %s/%q: %v", bucket, key, err)
	}
	return out
}

// wantSSE checks the encryption headers of a response: mode "AES256",
// "aws:kms" (with the key's ARN ending in key/<kmsKey>) or "SSE-C" (the
// customer algorithm and key MD5, and no x-amz-server-side-encryption).
func wantSSE(t *testing.T, what string, sse types.ServerSideEncryption, kmsKeyID, custAlg, custMD5 *string, mode, kmsKey, keyMD5 string) {
	t.Helper()
	switch mode {
	case "SSE-C":
		if sse != "" || aws.ToString(custAlg) != "AES256" || aws.ToString(custMD5) != keyMD5 {
			t.Errorf("%s: SSE %q, customer algorithm %q, key MD5 %q; want none, AES256, %q", what, sse, aws.ToString(custAlg), aws.ToString(custMD5), keyMD5)
		}
		return
	case "aws:kms":
		if arn := aws.ToString(kmsKeyID); !strings.HasPrefix(arn, "arn:aws:kms:"+testutil.Region+":") || !strings.HasSuffix(arn, ":key/"+kmsKey) {
			t.Errorf("%s: KMS key %q, want the ARN of key %s", what, arn, kmsKey)
		}
	}
	if string(sse) != mode || custAlg != nil {
		t.Errorf("%s: SSE %q (customer algorithm %v), want %q", what, sse, aws.ToString(custAlg), mode)
	}
}

func TestSSEObjects(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithDataDir(kmsDataDir(t)), testutil.WithInsecureSSEC(), testutil.WithoutFsync())
	c := srv.AWSClient(t)
	ctx := context.Background()
	itest.CreateBucket(t, c, "enc")
	b := aws.String("enc")
	body := itest.RandBytes(1, 300<<10) // a blob of its own
	key := newSSECKey('k')
	ctxHdr := base64.StdEncoding.EncodeToString([]byte(`{"app":"billing"}`))

	cases := []struct {
		name, mode, kmsKey string
		opt                func(*s3.PutObjectInput)
	}{
		{"sse-s3", "AES256", "", func(in *s3.PutObjectInput) { in.ServerSideEncryption = types.ServerSideEncryptionAes256 }},
		{"sse-kms", "aws:kms", sseKMSKey, func(in *s3.PutObjectInput) {
			in.ServerSideEncryption, in.SSEKMSKeyId = types.ServerSideEncryptionAwsKms, aws.String(sseKMSKey)
			in.SSEKMSEncryptionContext, in.BucketKeyEnabled = aws.String(ctxHdr), aws.Bool(true)
		}},
		{"sse-kms-default-key", "aws:kms", kms.SSES3KeyID, func(in *s3.PutObjectInput) { in.ServerSideEncryption = types.ServerSideEncryptionAwsKms }},
		{"sse-c", "SSE-C", "", key.put},
	}
	for _, tc := range cases {
		out := putSSE(t, c, "enc", tc.name, body, tc.opt)
		if md5ETag := aws.ToString(out.ETag) == itest.ETag(body); md5ETag != (tc.mode == "AES256") {
			t.Errorf("PUT %s: ETag %s; the MD5 of the data only for SSE-S3", tc.name, aws.ToString(out.ETag))
		}
		wantSSE(t, "PUT "+tc.name, out.ServerSideEncryption, out.SSEKMSKeyId, out.SSECustomerAlgorithm, out.SSECustomerKeyMD5, tc.mode, tc.kmsKey, key.md5)
		if tc.name == "sse-kms" && (aws.ToString(out.SSEKMSEncryptionContext) != ctxHdr || !aws.ToBool(out.BucketKeyEnabled)) {
			t.Errorf("PUT sse-kms: context %q, bucket key %v; want %q echoed, true", aws.ToString(out.SSEKMSEncryptionContext), aws.ToBool(out.BucketKeyEnabled), ctxHdr)
		}
		var getOpt func(*s3.GetObjectInput)
		var headOpt func(*s3.HeadObjectInput)
		if tc.mode == "SSE-C" {
			getOpt, headOpt = key.get, key.head
		} else {
			getOpt, headOpt = func(*s3.GetObjectInput) {}, func(*s3.HeadObjectInput) {}
		}
		got, g := itest.Get(t, c, "enc", tc.name, getOpt)
		if !bytes.Equal(got, body) {
			t.Errorf("GET %s: %d bytes, not what was put", tc.name, len(got))
		}
		wantSSE(t, "GET "+tc.name, g.ServerSideEncryption, g.SSEKMSKeyId, g.SSECustomerAlgorithm, g.SSECustomerKeyMD5, tc.mode, tc.kmsKey, key.md5)
		if tc.name == "sse-kms" && !aws.ToBool(g.BucketKeyEnabled) {
			t.Errorf("GET sse-kms: bucket key not echoed")
		}
		hin := &s3.HeadObjectInput{Bucket: b, Key: aws.String(tc.name)}
		headOpt(hin)
		h, err := c.HeadObject(ctx, hin)
		if err != nil {
			t.Fatalf("HEAD %s: %v", tc.name, err)
		}
		wantSSE(t, "HEAD "+tc.name, h.ServerSideEncryption, h.SSEKMSKeyId, h.SSECustomerAlgorithm, h.SSECustomerKeyMD5, tc.mode, tc.kmsKey, key.md5)
		if aws.ToInt64(h.ContentLength) != int64(len(body)) {
			t.Errorf("HEAD %s: Content-Length %d, want the plaintext's %d", tc.name, aws.ToInt64(h.ContentLength), len(body))
		}
		// A range across package boundaries, and partNumber=1.
		part, _ := itest.Get(t, c, "enc", tc.name, getOpt, func(in *s3.GetObjectInput) { in.Range = aws.String("bytes=65000-200000") })
		if !bytes.Equal(part, body[65000:200001]) {
			t.Errorf("GET %s range: wrong bytes", tc.name)
		}
		whole, _ := itest.Get(t, c, "enc", tc.name, getOpt, func(in *s3.GetObjectInput) { in.PartNumber = aws.Int32(1) })
		if !bytes.Equal(whole, body) {
			t.Errorf("GET %s partNumber=1: wrong bytes", tc.name)
		}
	}
	// The KMS key by its ARN, as the responses name it.
	arn := "arn:aws:kms:" + testutil.Region + ":000000000000:key/" + sseKMSKey
	out := putSSE(t, c, "enc", "by-arn", []byte("x"), func(in *s3.PutObjectInput) {
		in.ServerSideEncryption, in.SSEKMSKeyId = types.ServerSideEncryptionAwsKms, aws.String(arn)
	})
	wantSSE(t, "PUT by ARN", out.ServerSideEncryption, out.SSEKMSKeyId, nil, nil, "aws:kms", sseKMSKey, "")
	// An unencrypted object answers none of the headers.
	plain := itest.Put(t, c, "enc", "plain", []byte("plain"))
	if plain.ServerSideEncryption != "" || plain.SSEKMSKeyId != nil || plain.SSECustomerAlgorithm != nil {
		t.Errorf("PUT unencrypted: SSE %q %v %v", plain.ServerSideEncryption, plain.SSEKMSKeyId, plain.SSECustomerAlgorithm)
	}
}

// TestSSECAnswers: S3's exact answers for SSE-C objects read without the
// key (400), with the wrong one (403), and a key sent for an object that
// has none (400), on GET, HEAD, GetObjectAttributes, CopyObject and
// UploadPartCopy; and S3's refusals of encryption headers that do not go
// together.
func TestSSECAnswers(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithInsecureSSEC(), testutil.WithoutFsync())
	c := srv.AWSClient(t)
	ctx := context.Background()
	itest.CreateBucket(t, c, "ssec")
	b := aws.String("ssec")
	key, wrong := newSSECKey('a'), newSSECKey('b')
	putSSE(t, c, "ssec", "c", []byte("customer"), key.put)
	itest.Put(t, c, "ssec", "plain", []byte("plain"))

	for _, tc := range []struct {
		name   string
		obj    string
		k      *ssecKey
		status int
		code   string
	}{
		{"without the key", "c", nil, 400, "InvalidRequest"},
		{"with the wrong key", "c", &wrong, 403, "AccessDenied"},
		{"with a key for an unencrypted object", "plain", &key, 400, "InvalidRequest"},
	} {
		gin := &s3.GetObjectInput{Bucket: b, Key: aws.String(tc.obj)}
		hin := &s3.HeadObjectInput{Bucket: b, Key: aws.String(tc.obj)}
		ain := &s3.GetObjectAttributesInput{Bucket: b, Key: aws.String(tc.obj), ObjectAttributes: []types.ObjectAttributes{types.ObjectAttributesEtag}}
		cin := &s3.CopyObjectInput{Bucket: b, Key: aws.String("copy"), CopySource: aws.String("ssec/" + tc.obj)}
		if tc.k != nil {
			tc.k.get(gin)
			tc.k.head(hin)
			ain.SSECustomerAlgorithm, ain.SSECustomerKey, ain.SSECustomerKeyMD5 = aws.String("AES256"), aws.String(tc.k.b64), aws.String(tc.k.md5)
			cin.CopySourceSSECustomerAlgorithm, cin.CopySourceSSECustomerKey, cin.CopySourceSSECustomerKeyMD5 = aws.String("AES256"), aws.String(tc.k.b64), aws.String(tc.k.md5)
		}
		_, err := c.GetObject(ctx, gin)
		itest.WantErr(t, err, tc.status, tc.code)
		_, err = c.GetObjectAttributes(ctx, ain)
		itest.WantErr(t, err, tc.status, tc.code)
		_, err = c.CopyObject(ctx, cin)
		itest.WantErr(t, err, tc.status, tc.code)
		_, err = c.HeadObject(ctx, hin)
		if _, st := itest.ErrInfo(err); st != tc.status {
			t.Errorf("HEAD %s: %v, want %d", tc.name, err, tc.status)
		}
	}
	itest.WantNoObject(t, c, "ssec", "copy")

	// Headers that do not go together, and keys that are not keys.
	bad := newSSECKey('z')
	for _, tc := range []struct {
		name   string
		opt    func(*s3.PutObjectInput)
		status int
		code   string
	}{
		{"unknown SSE", func(in *s3.PutObjectInput) { in.ServerSideEncryption = "AES512" }, 400, "InvalidArgument"},
		{"KMS key with AES256", func(in *s3.PutObjectInput) {
			in.ServerSideEncryption, in.SSEKMSKeyId = types.ServerSideEncryptionAes256, aws.String("k")
		}, 400, "InvalidArgument"},
		{"SSE-C with SSE", func(in *s3.PutObjectInput) { key.put(in); in.ServerSideEncryption = types.ServerSideEncryptionAes256 }, 400, "InvalidArgument"},
		{"SSE-C key MD5", func(in *s3.PutObjectInput) { key.put(in); in.SSECustomerKeyMD5 = aws.String(bad.md5) }, 400, "InvalidArgument"},
		{"SSE-C algorithm", func(in *s3.PutObjectInput) { key.put(in); in.SSECustomerAlgorithm = aws.String("AES128") }, 400, "InvalidEncryptionAlgorithmError"},
		{"SSE-C short key", func(in *s3.PutObjectInput) {
			k := base64.StdEncoding.EncodeToString([]byte("short"))
			in.SSECustomerAlgorithm, in.SSECustomerKey = aws.String("AES256"), aws.String(k)
		}, 400, "InvalidArgument"},
		{"bad context", func(in *s3.PutObjectInput) {
			in.ServerSideEncryption, in.SSEKMSEncryptionContext = types.ServerSideEncryptionAwsKms, aws.String("not base64 json")
		}, 400, "InvalidArgument"},
	} {
		in := &s3.PutObjectInput{Bucket: b, Key: aws.String("refused"), Body: strings.NewReader("x")}
		tc.opt(in)
		_, err := c.PutObject(ctx, in)
		if code, st := itest.ErrInfo(err); st != tc.status || code != tc.code {
			t.Errorf("PUT %s: %v, want %d %s", tc.name, err, tc.status, tc.code)
		}
	}
	itest.WantNoObject(t, c, "ssec", "refused")
	if _, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: b, Key: aws.String("plain")}); err != nil {
		t.Errorf("GET unencrypted without a key: %v", err)
	}
	if resp, _ := itest.Do(t, signedSSEC(t, srv, key)); resp.StatusCode != http.StatusOK {
		t.Errorf("raw GET with the key: %s", resp.Status)
	}
}

// signedSSEC is a signed GET of ssec/c with the customer key k.
func signedSSEC(t *testing.T, srv *testutil.Server, k ssecKey) *http.Request {
	req := itest.RawRequest(t, srv, "GET", "/ssec/c", nil)
	req.Header.Set("X-Amz-Server-Side-Encryption-Customer-Algorithm", "AES256")
	req.Header.Set("X-Amz-Server-Side-Encryption-Customer-Key", k.b64)
	req.Header.Set("X-Amz-Server-Side-Encryption-Customer-Key-Md5", k.md5)
	itest.Sign(t, req, nil, itest.SignOpts{})
	return req
}

// TestSSECInsecure: without --allow-insecure-sse-c a server refuses SSE-C
// over plain HTTP as S3 does, on writes and reads, and stores nothing.
func TestSSECInsecure(t *testing.T) {
	srv, c := itest.StartBucket(t, "ssec")
	ctx := context.Background()
	key := newSSECKey('a')
	_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("ssec"), Key: aws.String("c"), Body: strings.NewReader("customer"),
		SSECustomerAlgorithm: aws.String("AES256"), SSECustomerKey: aws.String(key.b64), SSECustomerKeyMD5: aws.String(key.md5)})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidRequest")
	itest.WantNoObject(t, c, "ssec", "c")
	itest.Put(t, c, "ssec", "c", []byte("plain"))
	resp, body := itest.Do(t, signedSSEC(t, srv, key))
	itest.WantRawErr(t, resp, body, http.StatusBadRequest, "InvalidRequest")
	if !strings.Contains(string(body), "secure connection") {
		t.Errorf("refusal: %s", body)
	}
}
