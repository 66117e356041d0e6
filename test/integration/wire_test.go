package integration

// Wire fidelity: JOG carries out what a request asks or refuses it before
// anything is stored. TestWireRefusals walks the router's whole wire table
// (s3api.Refusals) against a real server; the other tests drive the same
// refusals, and the headers JOG does honour, through aws-sdk-go-v2.

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/s3api"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// wireState is everything a refused request could have changed: buckets,
// objects with their ETags and bytes, uploads and their parts.
func wireState(t *testing.T, c *s3.Client) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	lb, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, bk := range lb.Buckets {
		fmt.Fprintf(&b, "bucket %s\n", *bk.Name)
		if cors, err := c.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: bk.Name}); err == nil {
			fmt.Fprintf(&b, "cors %d rules\n", len(cors.CORSRules))
		}
		if lc, err := c.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: bk.Name}); err == nil {
			fmt.Fprintf(&b, "lifecycle %d rules\n", len(lc.Rules))
		}
		lo, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: bk.Name})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range lo.Contents {
			body, _ := itest.Get(t, c, *bk.Name, *o.Key)
			fmt.Fprintf(&b, "object %s %s %d %q\n", *o.Key, *o.ETag, *o.Size, itest.Short(body))
		}
		lu, err := c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: bk.Name})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range lu.Uploads {
			lp, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: bk.Name, Key: u.Key, UploadId: u.UploadId})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "upload %s %s parts", *u.Key, *u.UploadId)
			for _, p := range lp.Parts {
				fmt.Fprintf(&b, " %d:%s", *p.PartNumber, *p.ETag)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestWireRefusals sends every (operation, header or query parameter) pair
// the wire table refuses to a real server, signed, and checks the S3 error
// and that nothing changed.
func TestWireRefusals(t *testing.T) {
	srv, c := itest.StartBucket(t, "wire")
	ctx := context.Background()
	itest.Put(t, c, "wire", "k", []byte("original"))
	itest.Put(t, c, "wire", "src", []byte("source"))
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("wire"), Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("wire"), Key: aws.String("k"),
		UploadId: up.UploadId, PartNumber: aws.Int32(1), Body: bytes.NewReader([]byte("part1"))})
	if err != nil {
		t.Fatal(err)
	}
	before := wireState(t, c)
	id := url.QueryEscape(*up.UploadId)
	complete := []byte(`<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>` + *part.ETag + `</ETag></Part></CompleteMultipartUpload>`)
	requests := map[string]struct {
		method, target string
		body           []byte
	}{
		"ListBuckets":             {"GET", "/", nil},
		"CreateBucket":            {"PUT", "/wire-new", nil},
		"HeadBucket":              {"HEAD", "/wire", nil},
		"DeleteBucket":            {"DELETE", "/wire", nil},
		"GetBucketLocation":       {"GET", "/wire?location", nil},
		"ListObjects":             {"GET", "/wire", nil},
		"ListObjectsV2":           {"GET", "/wire?list-type=2", nil},
		"DeleteObjects":           {"POST", "/wire?delete", []byte(`<Delete><Object><Key>k</Key></Object></Delete>`)},
		"PutObject":               {"PUT", "/wire/k", []byte("replaced")},
		"CopyObject":              {"PUT", "/wire/k", nil},
		"GetObject":               {"GET", "/wire/k", nil},
		"HeadObject":              {"HEAD", "/wire/k", nil},
		"DeleteObject":            {"DELETE", "/wire/k", nil},
		"CreateMultipartUpload":   {"POST", "/wire/k?uploads", nil},
		"UploadPart":              {"PUT", "/wire/k?partNumber=1&uploadId=" + id, []byte("part2")},
		"UploadPartCopy":          {"PUT", "/wire/k?partNumber=1&uploadId=" + id, nil},
		"CompleteMultipartUpload": {"POST", "/wire/k?uploadId=" + id, complete},
		"AbortMultipartUpload":    {"DELETE", "/wire/k?uploadId=" + id, nil},
		"ListParts":               {"GET", "/wire/k?uploadId=" + id, nil},
		"ListMultipartUploads":    {"GET", "/wire?uploads", nil},
		"GetObjectAttributes":     {"GET", "/wire/k?attributes", nil},
		"PutBucketCors":           {"PUT", "/wire?cors", nil},
		"GetBucketCors":           {"GET", "/wire?cors", nil},
		"DeleteBucketCors":        {"DELETE", "/wire?cors", nil},

		"PutBucketLifecycleConfiguration": {"PUT", "/wire?lifecycle", []byte(`<LifecycleConfiguration><Rule><ID>r</ID><Filter/><Status>Enabled</Status>` +
			`<Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`)},
		"GetBucketLifecycleConfiguration": {"GET", "/wire?lifecycle", nil},
		"DeleteBucketLifecycle":           {"DELETE", "/wire?lifecycle", nil},
		"PutBucketVersioning":             {"PUT", "/wire?versioning", []byte(`<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>`)},
		"GetBucketVersioning":             {"GET", "/wire?versioning", nil},
		"ListObjectVersions":              {"GET", "/wire?versions", nil},
		"PutBucketTagging":                {"PUT", "/wire?tagging", nil},
		"GetBucketTagging":                {"GET", "/wire?tagging", nil},
		"DeleteBucketTagging":             {"DELETE", "/wire?tagging", nil},
		"PutObjectTagging":                {"PUT", "/wire/k?tagging", nil},
		"GetObjectTagging":                {"GET", "/wire/k?tagging", nil},
		"DeleteObjectTagging":             {"DELETE", "/wire/k?tagging", nil},
		"PutObjectLockConfiguration":      {"PUT", "/wire?object-lock", []byte(`<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled></ObjectLockConfiguration>`)},
		"GetObjectLockConfiguration":      {"GET", "/wire?object-lock", nil},
		"PutObjectRetention":              {"PUT", "/wire/k?retention", []byte(`<Retention><Mode>GOVERNANCE</Mode><RetainUntilDate>2099-01-01T00:00:00Z</RetainUntilDate></Retention>`)},
		"GetObjectRetention":              {"GET", "/wire/k?retention", nil},
		"PutObjectLegalHold":              {"PUT", "/wire/k?legal-hold", []byte(`<LegalHold><Status>ON</Status></LegalHold>`)},
		"GetObjectLegalHold":              {"GET", "/wire/k?legal-hold", nil},
		"PutBucketPolicy": {"PUT", "/wire?policy", []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*",` +
			`"Action":"s3:GetObject","Resource":"arn:aws:s3:::wire/*"}]}`)},
		"GetBucketPolicy":               {"GET", "/wire?policy", nil},
		"DeleteBucketPolicy":            {"DELETE", "/wire?policy", nil},
		"GetBucketPolicyStatus":         {"GET", "/wire?policyStatus", nil},
		"PutBucketAcl":                  {"PUT", "/wire?acl", nil},
		"GetBucketAcl":                  {"GET", "/wire?acl", nil},
		"PutObjectAcl":                  {"PUT", "/wire/k?acl", nil},
		"GetObjectAcl":                  {"GET", "/wire/k?acl", nil},
		"PutBucketOwnershipControls":    {"PUT", "/wire?ownershipControls", []byte(`<OwnershipControls><Rule><ObjectOwnership>ObjectWriter</ObjectOwnership></Rule></OwnershipControls>`)},
		"GetBucketOwnershipControls":    {"GET", "/wire?ownershipControls", nil},
		"DeleteBucketOwnershipControls": {"DELETE", "/wire?ownershipControls", nil},
		"PutPublicAccessBlock":          {"PUT", "/wire?publicAccessBlock", []byte(`<PublicAccessBlockConfiguration><BlockPublicAcls>true</BlockPublicAcls></PublicAccessBlockConfiguration>`)},
		"GetPublicAccessBlock":          {"GET", "/wire?publicAccessBlock", nil},
		"DeletePublicAccessBlock":       {"DELETE", "/wire?publicAccessBlock", nil},
	}
	refusals := s3api.Refusals()
	if len(refusals) < 20 {
		t.Fatalf("only %d refusals in the wire table", len(refusals))
	}
	for _, ref := range refusals {
		if ref.Op == "PostObject" {
			wantFormRefusal(t, srv, ref)
			continue
		}
		rq, ok := requests[ref.Op]
		if !ok {
			t.Fatalf("no request for %s: add one", ref.Op)
		}
		target := rq.target
		if ref.Query != "" {
			sep := "?"
			if strings.Contains(target, "?") {
				sep = "&"
			}
			target += sep + ref.Query + "=" + url.QueryEscape(ref.Sample)
		}
		req := itest.RawRequest(t, srv, rq.method, target, rq.body)
		switch ref.Op {
		case "CopyObject", "UploadPartCopy":
			req.Header.Set("X-Amz-Copy-Source", "/wire/src")
		case "GetObjectAttributes":
			req.Header.Set("X-Amz-Object-Attributes", "ETag")
		}
		if ref.Header != "" {
			req.Header.Set(ref.Header, ref.Sample)
		}
		itest.Sign(t, req, rq.body, itest.SignOpts{})
		resp, body := itest.Do(t, req)
		what := fmt.Sprintf("%s with %s%s: %q", ref.Op, ref.Header, ref.Query, ref.Sample)
		if rq.method == http.MethodHead {
			if resp.StatusCode != ref.Status {
				t.Errorf("%s: status %d, want %d", what, resp.StatusCode, ref.Status)
			}
			continue
		}
		var e itest.XMLError
		_ = xml.Unmarshal(body, &e)
		if resp.StatusCode != ref.Status || e.Code != ref.Code {
			t.Errorf("%s: got %d %s (%s), want %d %s", what, resp.StatusCode, e.Code, e.Message, ref.Status, ref.Code)
		}
	}
	if after := wireState(t, c); after != before {
		t.Fatalf("refused requests changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// wantFormRefusal sends a refused parameter to PostObject: a header as a
// form field the policy allows (acl for x-amz-acl), a query parameter on
// the form's URL.
func wantFormRefusal(t *testing.T, srv *testutil.Server, ref s3api.Refusal) {
	t.Helper()
	target := srv.URL + "/wire"
	conds := []any{map[string]string{"bucket": "wire"}, map[string]string{"key": "k"}}
	extra := []itest.FormField{{Name: "key", Value: "k"}}
	if ref.Query != "" {
		target += "?" + ref.Query + "=" + url.QueryEscape(ref.Sample)
	} else {
		name := ref.Header
		if name == "x-amz-acl" {
			name = "acl"
		}
		conds = append(conds, map[string]string{name: ref.Sample})
		extra = append(extra, itest.FormField{Name: name, Value: ref.Sample})
	}
	fields := append(extra, itest.SignedForm(t, time.Now().Add(time.Hour), conds...)...)
	resp, body := itest.PostForm(t, target, fields, "f", []byte("replaced"))
	if code := itest.BodyCode(body); resp.StatusCode != ref.Status || code != ref.Code {
		t.Errorf("PostObject with %s%s: %q: got %d %s, want %d %s", ref.Header, ref.Query, ref.Sample, resp.StatusCode, code, ref.Status, ref.Code)
	}
}

// TestWireRefusalsSDK: what a user of aws-sdk-go-v2 sees when asking for a
// protection JOG does not have, or cannot give this request — an error,
// and nothing stored.
func TestWireRefusalsSDK(t *testing.T) {
	_, c := itest.StartBucket(t, "wire")
	ctx := context.Background()
	key := aws.String("secret")
	body := func() io.Reader { return bytes.NewReader([]byte("top secret")) }
	cases := []struct {
		name   string
		call   func() error
		status int
		code   string
	}{
		{"SSE-KMS", func() error {
			_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("wire"), Key: key, Body: body(),
				ServerSideEncryption: types.ServerSideEncryptionAwsKms, SSEKMSKeyId: aws.String("alias/x")})
			return err
		}, 400, "KMS.NotFoundException"}, // no aliases
		{"SSE-KMS unknown key", func() error {
			_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("wire"), Key: key, Body: body(),
				ServerSideEncryption: types.ServerSideEncryptionAwsKms, SSEKMSKeyId: aws.String("no-such-key")})
			return err
		}, 400, "KMS.NotFoundException"},
		{"SSE-C", func() error {
			_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("wire"), Key: key, Body: body(),
				SSECustomerAlgorithm: aws.String("AES256"), SSECustomerKey: aws.String(strings.Repeat("k", 32))})
			return err
		}, 400, "InvalidRequest"}, // over plain HTTP
		{"public-read", func() error {
			_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("wire"), Key: key, Body: body(),
				ACL: types.ObjectCannedACLPublicRead})
			return err
		}, 400, "AccessControlListNotSupported"},
		{"grant-read", func() error {
			_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("wire"), Key: key, Body: body(),
				GrantRead: aws.String(`uri="http://acs.amazonaws.com/groups/global/AllUsers"`)})
			return err
		}, 400, "AccessControlListNotSupported"},
		// A bucket created without object lock answers as S3.
		{"object lock", func() error {
			_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("wire"), Key: key, Body: body(),
				ObjectLockMode: types.ObjectLockModeCompliance, ObjectLockRetainUntilDate: aws.Time(time.Now().Add(time.Hour))})
			return err
		}, 400, "InvalidRequest"},
		{"multipart object lock", func() error {
			_, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("wire"), Key: key,
				ObjectLockLegalHoldStatus: types.ObjectLockLegalHoldStatusOn})
			return err
		}, 400, "InvalidRequest"},
		{"public bucket", func() error {
			_, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("public"), ACL: types.BucketCannedACLPublicRead})
			return err
		}, 400, "InvalidBucketAclWithObjectOwnership"},
	}
	for _, tc := range cases {
		itest.WantErr(t, tc.call(), tc.status, tc.code)
	}
	itest.WantNoObject(t, c, "wire", "secret")
	lb, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil || len(lb.Buckets) != 1 {
		t.Fatalf("buckets after refusals: %v %v", lb, err)
	}
	lu, err := c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String("wire")})
	if err != nil || len(lu.Uploads) != 0 {
		t.Fatalf("uploads after refusals: %v %v", lu, err)
	}

	// A stored object is not served to a reader sending an SSE-C key
	// over plain HTTP either (sse_test.go has the rest).
	itest.Put(t, c, "wire", "plain", []byte("plain"))
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("wire"), Key: aws.String("plain"),
		SSECustomerAlgorithm: aws.String("AES256"), SSECustomerKey: aws.String(strings.Repeat("k", 32))})
	itest.WantErr(t, err, 400, "InvalidRequest")

	// What every object is anyway is accepted: the private ACL, an
	// ownership of BucketOwnerEnforced, object lock explicitly off.
	itest.Put(t, c, "wire", "private", []byte("x"), func(in *s3.PutObjectInput) { in.ACL = types.ObjectCannedACLPrivate })
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("owned"), ACL: types.BucketCannedACLPrivate,
		ObjectOwnership: types.ObjectOwnershipBucketOwnerEnforced, ObjectLockEnabledForBucket: aws.Bool(false)}); err != nil {
		t.Fatalf("CreateBucket private, BucketOwnerEnforced, no lock: %v", err)
	}
}

// TestExpectedBucketOwner: x-amz-expected-bucket-owner and
// x-amz-source-expected-bucket-owner are checked against the owner's
// canonical ID (ListBuckets' Owner.ID).
func TestExpectedBucketOwner(t *testing.T) {
	_, c := itest.StartBucket(t, "owned")
	ctx := context.Background()
	lb, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatal(err)
	}
	me, other := lb.Owner.ID, aws.String("111122223333")
	if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("owned"), ExpectedBucketOwner: me}); err != nil {
		t.Fatalf("HeadBucket with the right owner: %v", err)
	}
	_, err = c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("owned"), ExpectedBucketOwner: other})
	itest.WantErr(t, err, 403, "Forbidden") // HEAD: no body, the SDK names the status
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("owned"), Key: aws.String("k"),
		Body: strings.NewReader("x"), ExpectedBucketOwner: other})
	itest.WantErr(t, err, 403, "AccessDenied")
	itest.WantNoObject(t, c, "owned", "k")
	itest.Put(t, c, "owned", "k", []byte("x"), func(in *s3.PutObjectInput) { in.ExpectedBucketOwner = me })
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("owned"), Key: aws.String("copy"),
		CopySource: aws.String("owned/k"), ExpectedSourceBucketOwner: other})
	itest.WantErr(t, err, 403, "AccessDenied")
	itest.WantNoObject(t, c, "owned", "copy")
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("owned"), Key: aws.String("copy"),
		CopySource: aws.String("owned/k"), ExpectedSourceBucketOwner: me, ExpectedBucketOwner: me}); err != nil {
		t.Fatalf("CopyObject with the right owners: %v", err)
	}
}

// wireUpload makes a two-part upload of key and returns its ID and the
// parts to complete it with.
func wireUpload(t *testing.T, c *s3.Client, bucket, key string, alg types.ChecksumAlgorithm) (string, []types.CompletedPart, []byte) {
	t.Helper()
	ctx := context.Background()
	in := &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)}
	if alg != "" {
		in.ChecksumAlgorithm = alg
	}
	up, err := c.CreateMultipartUpload(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	var parts []types.CompletedPart
	var all []byte
	for n, size := range []int{5 << 20, 1000} {
		b := itest.RandBytes(uint64(n+1), size)
		all = append(all, b...)
		pin := &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId,
			PartNumber: aws.Int32(int32(n + 1)), Body: bytes.NewReader(b)}
		if alg != "" {
			pin.ChecksumAlgorithm = alg
		}
		p, err := c.UploadPart(ctx, pin)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(int32(n + 1)), ETag: p.ETag,
			ChecksumSHA256: p.ChecksumSHA256, ChecksumCRC32: p.ChecksumCRC32})
	}
	return *up.UploadId, parts, all
}

// TestCompleteRetried: a CompleteMultipartUpload retried after its response
// was lost gets the same 200 answer while the key's object is the one the
// upload made — also when two completions race — and NoSuchUpload once
// another write replaced it or when the retry names other parts.
func TestCompleteRetried(t *testing.T) {
	_, c := itest.StartBucket(t, "mpu")
	ctx := context.Background()
	id, parts, data := wireUpload(t, c, "mpu", "big", types.ChecksumAlgorithmSha256)
	complete := func(ps []types.CompletedPart) (*s3.CompleteMultipartUploadOutput, error) {
		return c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("mpu"), Key: aws.String("big"),
			UploadId: aws.String(id), MultipartUpload: &types.CompletedMultipartUpload{Parts: ps}})
	}
	// Two completions at once: both succeed with one answer.
	var wg sync.WaitGroup
	outs := make([]*s3.CompleteMultipartUploadOutput, 2)
	errs := make([]error, 2)
	for i := range outs {
		wg.Add(1)
		go func() { defer wg.Done(); outs[i], errs[i] = complete(parts) }()
	}
	wg.Wait()
	for i := range outs {
		if errs[i] != nil {
			t.Fatalf("completion %d: %v", i, errs[i])
		}
	}
	retry, err := complete(parts)
	if err != nil {
		t.Fatalf("retried completion: %v", err)
	}
	for _, o := range append(outs, retry) {
		if *o.ETag != *outs[0].ETag || aws.ToString(o.ChecksumSHA256) != aws.ToString(outs[0].ChecksumSHA256) || o.ChecksumType != types.ChecksumTypeComposite {
			t.Fatalf("answers differ: %s %s %s against %s %s", *o.ETag, aws.ToString(o.ChecksumSHA256), o.ChecksumType,
				*outs[0].ETag, aws.ToString(outs[0].ChecksumSHA256))
		}
	}
	wireWantBytes(t, c, "mpu", "big", data)
	// A retry naming other parts is not that completion.
	_, err = complete(parts[:1])
	itest.WantErr(t, err, 404, "NoSuchUpload")
	// Once the key holds another object, the upload is simply gone.
	itest.Put(t, c, "mpu", "big", []byte("newer"))
	_, err = complete(parts)
	itest.WantErr(t, err, 404, "NoSuchUpload")
	itest.WantObject(t, c, "mpu", "big", []byte("newer"))
}

// TestCompleteChecks: x-amz-mp-object-size and x-amz-checksum-type on a
// completion are checked; x-amz-if-match-initiated-time on an abort.
func TestCompleteChecks(t *testing.T) {
	_, c := itest.StartBucket(t, "mpu")
	ctx := context.Background()
	id, parts, data := wireUpload(t, c, "mpu", "k", types.ChecksumAlgorithmCrc32)
	in := func(f func(*s3.CompleteMultipartUploadInput)) *s3.CompleteMultipartUploadInput {
		in := &s3.CompleteMultipartUploadInput{Bucket: aws.String("mpu"), Key: aws.String("k"), UploadId: aws.String(id),
			MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}}
		f(in)
		return in
	}
	_, err := c.CompleteMultipartUpload(ctx, in(func(in *s3.CompleteMultipartUploadInput) { in.MpuObjectSize = aws.Int64(int64(len(data)) + 1) }))
	itest.WantErr(t, err, 400, "InvalidRequest")
	_, err = c.CompleteMultipartUpload(ctx, in(func(in *s3.CompleteMultipartUploadInput) { in.ChecksumType = types.ChecksumTypeFullObject }))
	itest.WantErr(t, err, 400, "InvalidRequest")
	itest.WantNoObject(t, c, "mpu", "k")
	out, err := c.CompleteMultipartUpload(ctx, in(func(in *s3.CompleteMultipartUploadInput) {
		in.MpuObjectSize = aws.Int64(int64(len(data)))
		in.ChecksumType = types.ChecksumTypeComposite
	}))
	if err != nil {
		t.Fatalf("completion with the right size and type: %v", err)
	}
	if !strings.HasSuffix(aws.ToString(out.ChecksumCRC32), "-2") {
		t.Fatalf("composite checksum %q", aws.ToString(out.ChecksumCRC32))
	}
	wireWantBytes(t, c, "mpu", "k", data)

	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("mpu"), Key: aws.String("a")})
	if err != nil {
		t.Fatal(err)
	}
	lu, err := c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String("mpu")})
	if err != nil || len(lu.Uploads) != 1 {
		t.Fatalf("uploads: %v %v", lu, err)
	}
	initiated := *lu.Uploads[0].Initiated
	_, err = c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String("mpu"), Key: aws.String("a"),
		UploadId: up.UploadId, IfMatchInitiatedTime: aws.Time(initiated.Add(-time.Hour))})
	itest.WantErr(t, err, 412, "PreconditionFailed")
	if _, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String("mpu"), Key: aws.String("a"), UploadId: up.UploadId}); err != nil {
		t.Fatalf("the upload is gone after a failed conditional abort: %v", err)
	}
	if _, err := c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String("mpu"), Key: aws.String("a"),
		UploadId: up.UploadId, IfMatchInitiatedTime: aws.Time(initiated)}); err != nil {
		t.Fatalf("abort with the right initiated time: %v", err)
	}
	_, err = c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String("mpu"), Key: aws.String("a"), UploadId: up.UploadId})
	itest.WantErr(t, err, 404, "NoSuchUpload")
}

// TestPartChecksumType: GET and HEAD of one part name the checksum of the
// bytes served with its type, as S3 does.
func TestPartChecksumType(t *testing.T) {
	_, c := itest.StartBucket(t, "mpu")
	ctx := context.Background()
	id, parts, _ := wireUpload(t, c, "mpu", "composite", types.ChecksumAlgorithmSha256)
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("mpu"), Key: aws.String("composite"),
		UploadId: aws.String(id), MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}}); err != nil {
		t.Fatal(err)
	}
	for n, p := range parts {
		h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("mpu"), Key: aws.String("composite"),
			PartNumber: aws.Int32(int32(n + 1)), ChecksumMode: types.ChecksumModeEnabled})
		if err != nil {
			t.Fatal(err)
		}
		if aws.ToString(h.ChecksumSHA256) != aws.ToString(p.ChecksumSHA256) || h.ChecksumType != types.ChecksumTypeComposite {
			t.Errorf("HEAD part %d: %s %s, want %s COMPOSITE", n+1, aws.ToString(h.ChecksumSHA256), h.ChecksumType, aws.ToString(p.ChecksumSHA256))
		}
		g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("mpu"), Key: aws.String("composite"),
			PartNumber: aws.Int32(int32(n + 1)), ChecksumMode: types.ChecksumModeEnabled})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, g.Body)
		g.Body.Close()
		if aws.ToString(g.ChecksumSHA256) != aws.ToString(p.ChecksumSHA256) || g.ChecksumType != types.ChecksumTypeComposite {
			t.Errorf("GET part %d: %s %s", n+1, aws.ToString(g.ChecksumSHA256), g.ChecksumType)
		}
	}
	// An object of one PUT is its own part 1: the object's checksum.
	put := itest.Put(t, c, "mpu", "single", []byte("hello"), func(in *s3.PutObjectInput) { in.ChecksumAlgorithm = types.ChecksumAlgorithmCrc32 })
	h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("mpu"), Key: aws.String("single"),
		PartNumber: aws.Int32(1), ChecksumMode: types.ChecksumModeEnabled})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(h.ChecksumCRC32) != aws.ToString(put.ChecksumCRC32) || h.ChecksumType != types.ChecksumTypeFullObject {
		t.Errorf("HEAD part 1 of a PUT object: %s %s, want %s FULL_OBJECT", aws.ToString(h.ChecksumCRC32), h.ChecksumType, aws.ToString(put.ChecksumCRC32))
	}
}

// TestWireOtherHeaders: GetObjectAttributes honours versionId; CopyObject
// computes the checksum x-amz-checksum-algorithm asks for; DeleteObjects
// verifies the x-amz-checksum-* SDKs send in place of Content-MD5.
func TestWireOtherHeaders(t *testing.T) {
	srv, c := itest.StartBucket(t, "bkt")
	ctx := context.Background()
	itest.Put(t, c, "bkt", "k", []byte("hello"))
	attrs := func(version string) error {
		_, err := c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: aws.String("bkt"), Key: aws.String("k"),
			VersionId: aws.String(version), ObjectAttributes: []types.ObjectAttributes{types.ObjectAttributesEtag}})
		return err
	}
	if err := attrs("null"); err != nil {
		t.Fatalf("GetObjectAttributes of the null version: %v", err)
	}
	itest.WantErr(t, attrs(unknownVersion), 404, "NoSuchVersion")

	out, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("bkt"), Key: aws.String("copy"),
		CopySource: aws.String("bkt/k"), ChecksumAlgorithm: types.ChecksumAlgorithmSha256})
	if err != nil {
		t.Fatal(err)
	}
	want := "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=" // SHA-256 of "hello"
	if got := aws.ToString(out.CopyObjectResult.ChecksumSHA256); got != want {
		t.Fatalf("copy's SHA256 %q, want %q", got, want)
	}
	h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("bkt"), Key: aws.String("copy"), ChecksumMode: types.ChecksumModeEnabled})
	if err != nil || aws.ToString(h.ChecksumSHA256) != want {
		t.Fatalf("HEAD copy: %v %v", h, err)
	}

	// DeleteObjects with a wrong CRC32 of its body deletes nothing.
	body := []byte(`<Delete><Object><Key>k</Key></Object></Delete>`)
	req := itest.RawRequest(t, srv, "POST", "/bkt?delete", body)
	req.Header.Set("X-Amz-Checksum-Crc32", "AAAAAA==")
	itest.Sign(t, req, body, itest.SignOpts{})
	resp, rb := itest.Do(t, req)
	itest.WantRawErr(t, resp, rb, 400, "BadDigest")
	itest.WantObject(t, c, "bkt", "k", []byte("hello"))
	// The SDK's own DeleteObjects (with its checksum) works.
	if _, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("bkt"),
		Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String("k")}}}}); err != nil {
		t.Fatal(err)
	}
	itest.WantNoObject(t, c, "bkt", "k")
}

func wireWantBytes(t *testing.T, c *s3.Client, bucket, key string, want []byte) {
	t.Helper()
	if got, _ := itest.Get(t, c, bucket, key); !bytes.Equal(got, want) {
		t.Fatalf("%s/%s: %d bytes, not the %d uploaded", bucket, key, len(got), len(want))
	}
}
