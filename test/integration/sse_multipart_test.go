package integration

// Encryption at rest on the copy and multipart paths, a bucket's default
// encryption, and the policy condition keys of AWS's "deny unencrypted
// uploads" bucket policy.

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

func TestSSECopy(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithDataDir(kmsDataDir(t)), testutil.WithInsecureSSEC(), testutil.WithoutFsync())
	c := srv.AWSClient(t)
	ctx := context.Background()
	itest.CreateBucket(t, c, "cpy")
	b := aws.String("cpy")
	body := itest.RandBytes(2, 100<<10)
	src, dst := newSSECKey('s'), newSSECKey('d')
	putSSE(t, c, "cpy", "src", body, src.put)

	// SSE-C → SSE-S3, SSE-C → SSE-C under another key, SSE-C → SSE-KMS.
	out, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("to-s3"), CopySource: aws.String("cpy/src"),
		CopySourceSSECustomerAlgorithm: aws.String("AES256"), CopySourceSSECustomerKey: aws.String(src.b64), CopySourceSSECustomerKeyMD5: aws.String(src.md5),
		ServerSideEncryption: types.ServerSideEncryptionAes256})
	if err != nil {
		t.Fatal(err)
	}
	wantSSE(t, "CopyObject to SSE-S3", out.ServerSideEncryption, out.SSEKMSKeyId, out.SSECustomerAlgorithm, out.SSECustomerKeyMD5, "AES256", "", "")
	out, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("to-c"), CopySource: aws.String("cpy/src"),
		CopySourceSSECustomerAlgorithm: aws.String("AES256"), CopySourceSSECustomerKey: aws.String(src.b64), CopySourceSSECustomerKeyMD5: aws.String(src.md5),
		SSECustomerAlgorithm: aws.String("AES256"), SSECustomerKey: aws.String(dst.b64), SSECustomerKeyMD5: aws.String(dst.md5)})
	if err != nil {
		t.Fatal(err)
	}
	wantSSE(t, "CopyObject to SSE-C", out.ServerSideEncryption, out.SSEKMSKeyId, out.SSECustomerAlgorithm, out.SSECustomerKeyMD5, "SSE-C", "", dst.md5)
	out, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("to-kms"), CopySource: aws.String("cpy/to-s3"),
		ServerSideEncryption: types.ServerSideEncryptionAwsKms, SSEKMSKeyId: aws.String(sseKMSKey)})
	if err != nil {
		t.Fatal(err)
	}
	wantSSE(t, "CopyObject to SSE-KMS", out.ServerSideEncryption, out.SSEKMSKeyId, out.SSECustomerAlgorithm, out.SSECustomerKeyMD5, "aws:kms", sseKMSKey, "")
	for name, opt := range map[string]func(*s3.GetObjectInput){"to-s3": func(*s3.GetObjectInput) {}, "to-kms": func(*s3.GetObjectInput) {}, "to-c": dst.get} {
		if got, _ := itest.Get(t, c, "cpy", name, opt); !bytes.Equal(got, body) {
			t.Errorf("GET of copy %s: wrong bytes", name)
		}
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: b, Key: aws.String("to-c"), SSECustomerAlgorithm: aws.String("AES256"),
		SSECustomerKey: aws.String(src.b64), SSECustomerKeyMD5: aws.String(src.md5)})
	itest.WantErr(t, err, http.StatusForbidden, "AccessDenied") // the copy is under dst's key, not src's
	// Re-encrypting an object onto itself is a change S3 allows.
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("to-s3"), CopySource: aws.String("cpy/to-s3"),
		ServerSideEncryption: types.ServerSideEncryptionAwsKms}); err != nil {
		t.Errorf("CopyObject onto itself to SSE-KMS: %v", err)
	}
}

func TestSSEMultipart(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithDataDir(kmsDataDir(t)), testutil.WithInsecureSSEC(), testutil.WithoutFsync())
	c := srv.AWSClient(t)
	ctx := context.Background()
	itest.CreateBucket(t, c, "mpu")
	b := aws.String("mpu")
	key, other := newSSECKey('m'), newSSECKey('o')
	part1, part2 := itest.RandBytes(3, 5<<20), itest.RandBytes(4, 200<<10)
	const off = 1000 // part 2 copies srcBody[off:off+len(part1)]
	srcBody := itest.RandBytes(5, 5<<20+2*off)
	putSSE(t, c, "mpu", "copy-src", srcBody, key.put)

	for _, mode := range []string{"SSE-C", "aws:kms"} {
		obj := aws.String("obj-" + strings.ReplaceAll(mode, ":", "-"))
		cin := &s3.CreateMultipartUploadInput{Bucket: b, Key: obj}
		var partKey func(*s3.UploadPartInput)
		if mode == "SSE-C" {
			cin.SSECustomerAlgorithm, cin.SSECustomerKey, cin.SSECustomerKeyMD5 = aws.String("AES256"), aws.String(key.b64), aws.String(key.md5)
			partKey = func(in *s3.UploadPartInput) {
				in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = aws.String("AES256"), aws.String(key.b64), aws.String(key.md5)
			}
		} else {
			cin.ServerSideEncryption, cin.SSEKMSKeyId, cin.BucketKeyEnabled = types.ServerSideEncryptionAwsKms, aws.String(sseKMSKey), aws.Bool(true)
			partKey = func(*s3.UploadPartInput) {}
		}
		up, err := c.CreateMultipartUpload(ctx, cin)
		if err != nil {
			t.Fatal(err)
		}
		wantSSE(t, mode+" CreateMultipartUpload", up.ServerSideEncryption, up.SSEKMSKeyId, up.SSECustomerAlgorithm, up.SSECustomerKeyMD5, mode, sseKMSKey, key.md5)
		if mode == "aws:kms" && !aws.ToBool(up.BucketKeyEnabled) {
			t.Errorf("CreateMultipartUpload: bucket key not echoed")
		}
		upload := func(n int32, data []byte, opt func(*s3.UploadPartInput)) (*s3.UploadPartOutput, error) {
			in := &s3.UploadPartInput{Bucket: b, Key: obj, UploadId: up.UploadId, PartNumber: aws.Int32(n), Body: bytes.NewReader(data)}
			opt(in)
			return c.UploadPart(ctx, in)
		}
		if mode == "SSE-C" { // the upload's parts need its key, and only it
			// (a small body: the refusal comes before the body is read)
			_, err := upload(1, part2[:1024], func(*s3.UploadPartInput) {})
			itest.WantErr(t, err, http.StatusBadRequest, "InvalidRequest")
			_, err = upload(1, part2[:1024], func(in *s3.UploadPartInput) {
				in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = aws.String("AES256"), aws.String(other.b64), aws.String(other.md5)
			})
			itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument") // S3: 400 for a part, 403 for a read
		}
		p1, err := upload(1, part1, partKey)
		if err != nil {
			t.Fatal(err)
		}
		wantSSE(t, mode+" UploadPart", p1.ServerSideEncryption, p1.SSEKMSKeyId, p1.SSECustomerAlgorithm, p1.SSECustomerKeyMD5, mode, sseKMSKey, key.md5)
		pin := &s3.UploadPartCopyInput{Bucket: b, Key: obj, UploadId: up.UploadId, PartNumber: aws.Int32(2), CopySource: aws.String("mpu/copy-src"),
			CopySourceRange:                aws.String("bytes=" + strconv.Itoa(off) + "-" + strconv.Itoa(off+len(part1)-1)),
			CopySourceSSECustomerAlgorithm: aws.String("AES256"), CopySourceSSECustomerKey: aws.String(key.b64), CopySourceSSECustomerKeyMD5: aws.String(key.md5)}
		if mode == "SSE-C" {
			pin.SSECustomerAlgorithm, pin.SSECustomerKey, pin.SSECustomerKeyMD5 = aws.String("AES256"), aws.String(key.b64), aws.String(key.md5)
		}
		p2, err := c.UploadPartCopy(ctx, pin)
		if err != nil {
			t.Fatal(err)
		}
		wantSSE(t, mode+" UploadPartCopy", p2.ServerSideEncryption, p2.SSEKMSKeyId, p2.SSECustomerAlgorithm, p2.SSECustomerKeyMD5, mode, sseKMSKey, key.md5)
		p3, err := upload(3, part2, partKey)
		if err != nil {
			t.Fatal(err)
		}
		done, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: b, Key: obj, UploadId: up.UploadId,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{
				{PartNumber: aws.Int32(1), ETag: p1.ETag}, {PartNumber: aws.Int32(2), ETag: p2.CopyPartResult.ETag}, {PartNumber: aws.Int32(3), ETag: p3.ETag}}}})
		if err != nil {
			t.Fatal(err)
		}
		if done.ServerSideEncryption != types.ServerSideEncryption(map[string]string{"SSE-C": "", "aws:kms": "aws:kms"}[mode]) {
			t.Errorf("%s CompleteMultipartUpload: SSE %q", mode, done.ServerSideEncryption)
		}
		copied := srcBody[off : off+len(part1)]
		whole := append(append(append([]byte{}, part1...), copied...), part2...)
		getOpt := func(*s3.GetObjectInput) {}
		if mode == "SSE-C" {
			getOpt = key.get
		}
		got, g := itest.Get(t, c, "mpu", *obj, getOpt)
		if !bytes.Equal(got, whole) {
			t.Errorf("%s GET: %d bytes, not the parts", mode, len(got))
		}
		wantSSE(t, mode+" GET", g.ServerSideEncryption, g.SSEKMSKeyId, g.SSECustomerAlgorithm, g.SSECustomerKeyMD5, mode, sseKMSKey, key.md5)
		got, _ = itest.Get(t, c, "mpu", *obj, getOpt, func(in *s3.GetObjectInput) { in.PartNumber = aws.Int32(2) })
		if !bytes.Equal(got, copied) {
			t.Errorf("%s GET partNumber=2: wrong bytes", mode)
		}
		lo, hi := len(part1)-1000, 2*len(part1)+1000 // across all three parts
		got, _ = itest.Get(t, c, "mpu", *obj, getOpt, func(in *s3.GetObjectInput) {
			in.Range = aws.String("bytes=" + strconv.Itoa(lo) + "-" + strconv.Itoa(hi-1))
		})
		if !bytes.Equal(got, whole[lo:hi]) {
			t.Errorf("%s GET range across parts: wrong bytes", mode)
		}
		if mode == "SSE-C" {
			_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: b, Key: obj})
			itest.WantErr(t, err, http.StatusBadRequest, "InvalidRequest")
		}
	}
}

func TestSSEBucketDefault(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithDataDir(kmsDataDir(t)), testutil.WithoutFsync())
	c := srv.AWSClient(t)
	ctx := context.Background()
	itest.CreateBucket(t, c, "dflt")
	b := aws.String("dflt")
	_, err := c.GetBucketEncryption(ctx, &s3.GetBucketEncryptionInput{Bucket: b})
	itest.WantErr(t, err, http.StatusNotFound, "ServerSideEncryptionConfigurationNotFoundError")

	rule := func(alg types.ServerSideEncryption, keyID *string, bucketKey *bool) *types.ServerSideEncryptionConfiguration {
		return &types.ServerSideEncryptionConfiguration{Rules: []types.ServerSideEncryptionRule{{
			ApplyServerSideEncryptionByDefault: &types.ServerSideEncryptionByDefault{SSEAlgorithm: alg, KMSMasterKeyID: keyID},
			BucketKeyEnabled:                   bucketKey}}}
	}
	if _, err := c.PutBucketEncryption(ctx, &s3.PutBucketEncryptionInput{Bucket: b,
		ServerSideEncryptionConfiguration: rule(types.ServerSideEncryptionAwsKms, aws.String(sseKMSKey), aws.Bool(true))}); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetBucketEncryption(ctx, &s3.GetBucketEncryptionInput{Bucket: b})
	if err != nil {
		t.Fatal(err)
	}
	r := got.ServerSideEncryptionConfiguration.Rules
	if len(r) != 1 || r[0].ApplyServerSideEncryptionByDefault.SSEAlgorithm != types.ServerSideEncryptionAwsKms ||
		!strings.HasSuffix(aws.ToString(r[0].ApplyServerSideEncryptionByDefault.KMSMasterKeyID), ":key/"+sseKMSKey) || !aws.ToBool(r[0].BucketKeyEnabled) {
		t.Errorf("GetBucketEncryption: %+v", r)
	}
	// A write that asks for nothing gets the default: PUT, multipart, copy.
	out := putSSE(t, c, "dflt", "k", []byte("default"))
	wantSSE(t, "PUT under the default", out.ServerSideEncryption, out.SSEKMSKeyId, out.SSECustomerAlgorithm, out.SSECustomerKeyMD5, "aws:kms", sseKMSKey, "")
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: b, Key: aws.String("mpu")})
	if err != nil {
		t.Fatal(err)
	}
	wantSSE(t, "CreateMultipartUpload under the default", up.ServerSideEncryption, up.SSEKMSKeyId, up.SSECustomerAlgorithm, up.SSECustomerKeyMD5, "aws:kms", sseKMSKey, "")
	cp, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("copy"), CopySource: aws.String("dflt/k")})
	if err != nil {
		t.Fatal(err)
	}
	wantSSE(t, "CopyObject under the default", cp.ServerSideEncryption, cp.SSEKMSKeyId, cp.SSECustomerAlgorithm, cp.SSECustomerKeyMD5, "aws:kms", sseKMSKey, "")
	// A request's own encryption wins.
	out = putSSE(t, c, "dflt", "own", []byte("own"), func(in *s3.PutObjectInput) { in.ServerSideEncryption = types.ServerSideEncryptionAes256 })
	wantSSE(t, "PUT with its own SSE", out.ServerSideEncryption, out.SSEKMSKeyId, out.SSECustomerAlgorithm, out.SSECustomerKeyMD5, "AES256", "", "")

	// Refusals leave the configuration as it was.
	for _, tc := range []struct {
		name, body, code string
	}{
		{"malformed", `<ServerSideEncryptionConfiguration><Rule>`, "MalformedXML"},
		{"no rule", `<ServerSideEncryptionConfiguration/>`, "MalformedXML"},
		{"two rules", `<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault></Rule><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>`, "MalformedXML"},
		{"unknown algorithm", `<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>DES</SSEAlgorithm></ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>`, "InvalidArgument"},
		{"KMS key with AES256", `<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm><KMSMasterKeyID>k</KMSMasterKeyID></ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>`, "InvalidArgument"},
	} {
		req := itest.RawRequest(t, srv, "PUT", "/dflt?encryption", []byte(tc.body))
		itest.Sign(t, req, []byte(tc.body), itest.SignOpts{})
		resp, body := itest.Do(t, req)
		itest.WantRawErr(t, resp, body, http.StatusBadRequest, tc.code)
	}
	if again, err := c.GetBucketEncryption(ctx, &s3.GetBucketEncryptionInput{Bucket: b}); err != nil ||
		again.ServerSideEncryptionConfiguration.Rules[0].ApplyServerSideEncryptionByDefault.SSEAlgorithm != types.ServerSideEncryptionAwsKms {
		t.Errorf("GetBucketEncryption after refusals: %v", err)
	}
	if _, err := c.DeleteBucketEncryption(ctx, &s3.DeleteBucketEncryptionInput{Bucket: b}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetBucketEncryption(ctx, &s3.GetBucketEncryptionInput{Bucket: b})
	itest.WantErr(t, err, http.StatusNotFound, "ServerSideEncryptionConfigurationNotFoundError")
	out = putSSE(t, c, "dflt", "after", []byte("plain"))
	if out.ServerSideEncryption != "" {
		t.Errorf("PUT after DeleteBucketEncryption: SSE %q", out.ServerSideEncryption)
	}
}

// sseDenyPolicy is AWS's "deny unencrypted uploads" bucket policy on
// bucket data, and a KMS key pinned for keys under kms/.
const sseDenyPolicy = `{"Version":"2012-10-17","Statement":[
 {"Sid":"DenyIncorrectEncryptionHeader","Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::data/*",
  "Condition":{"StringNotEquals":{"s3:x-amz-server-side-encryption":["AES256","aws:kms"]}}},
 {"Sid":"DenyUnEncryptedObjectUploads","Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::data/*",
  "Condition":{"Null":{"s3:x-amz-server-side-encryption":"true"}}},
 {"Sid":"PinKMSKey","Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::data/kms/*",
  "Condition":{"StringNotEqualsIfExists":{"s3:x-amz-server-side-encryption-aws-kms-key-id":"` + sseKMSKey + `"}}}]}`

// TestSSEPolicyConditions: the condition keys s3:x-amz-server-side-
// encryption and s3:x-amz-server-side-encryption-aws-kms-key-id, in a
// real bucket policy, allow what it allows and deny the rest.
func TestSSEPolicyConditions(t *testing.T) {
	_, cl := startUsersWith(t, authzBootstrap, authzKeys, testutil.WithDataDir(kmsDataDir(t)))
	root, alice := cl["root"], cl["alice"]
	ctx := context.Background()
	itest.CreateBucket(t, root, "data")
	putPolicy(t, root, "data", sseDenyPolicy)
	put := func(key string, opt func(*s3.PutObjectInput)) error {
		in := &s3.PutObjectInput{Bucket: aws.String("data"), Key: aws.String(key), Body: strings.NewReader("v")}
		opt(in)
		_, err := alice.PutObject(ctx, in)
		return err
	}
	none := func(*s3.PutObjectInput) {}
	s3Mode := func(in *s3.PutObjectInput) { in.ServerSideEncryption = types.ServerSideEncryptionAes256 }
	kmsWith := func(id string) func(*s3.PutObjectInput) {
		return func(in *s3.PutObjectInput) {
			in.ServerSideEncryption, in.SSEKMSKeyId = types.ServerSideEncryptionAwsKms, aws.String(id)
		}
	}
	itest.WantErr(t, put("plain", none), http.StatusForbidden, "AccessDenied")
	itest.WantNoObject(t, root, "data", "plain")
	if err := put("sse-s3", s3Mode); err != nil {
		t.Errorf("PUT with AES256: %v", err)
	}
	if err := put("kms/ok", kmsWith(sseKMSKey)); err != nil {
		t.Errorf("PUT with the pinned KMS key: %v", err)
	}
	itest.WantErr(t, put("kms/other", kmsWith(kms.SSES3KeyID)), http.StatusForbidden, "AccessDenied")
	itest.WantErr(t, put("kms/plain", none), http.StatusForbidden, "AccessDenied")
	itest.WantNoObject(t, root, "data", "kms/other")
}

// TestSSEPostObject: a browser form's x-amz-server-side-encryption and
// SSE-C fields encrypt the upload as a PUT's headers do, and the answer
// names it.
func TestSSEPostObject(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithDataDir(kmsDataDir(t)), testutil.WithInsecureSSEC(), testutil.WithoutFsync())
	c := srv.AWSClient(t)
	itest.CreateBucket(t, c, "form")
	key := newSSECKey('f')
	data := itest.RandBytes(6, 70_000)
	future := time.Now().Add(time.Hour)
	for _, tc := range []struct {
		name   string
		fields []itest.FormField
		header string
		want   string
	}{
		{"kms", []itest.FormField{{Name: "x-amz-server-side-encryption", Value: "aws:kms"}, {Name: "x-amz-server-side-encryption-aws-kms-key-id", Value: sseKMSKey}},
			"X-Amz-Server-Side-Encryption", "aws:kms"},
		{"ssec", []itest.FormField{{Name: "x-amz-server-side-encryption-customer-algorithm", Value: "AES256"},
			{Name: "x-amz-server-side-encryption-customer-key", Value: key.b64}, {Name: "x-amz-server-side-encryption-customer-key-md5", Value: key.md5}},
			"X-Amz-Server-Side-Encryption-Customer-Key-Md5", key.md5},
	} {
		conds := []any{map[string]string{"bucket": "form"}, map[string]string{"key": tc.name}}
		fields := []itest.FormField{{Name: "key", Value: tc.name}}
		for _, f := range tc.fields {
			conds = append(conds, map[string]string{f.Name: f.Value})
			fields = append(fields, f)
		}
		fields = append(fields, itest.SignedForm(t, future, conds...)...)
		resp, body := itest.PostForm(t, srv.URL+"/form", fields, "f", data)
		if resp.StatusCode != http.StatusNoContent || resp.Header.Get(tc.header) != tc.want {
			t.Fatalf("POST %s: %s %s=%q %s", tc.name, resp.Status, tc.header, resp.Header.Get(tc.header), body)
		}
		opt := func(*s3.GetObjectInput) {}
		if tc.name == "ssec" {
			opt = key.get
			_, err := c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String("form"), Key: aws.String(tc.name)})
			itest.WantErr(t, err, http.StatusBadRequest, "InvalidRequest")
		}
		if got, _ := itest.Get(t, c, "form", tc.name, opt); !bytes.Equal(got, data) {
			t.Errorf("GET %s: wrong bytes", tc.name)
		}
	}
}
