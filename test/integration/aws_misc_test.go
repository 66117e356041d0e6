package integration

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

func TestAWSRequestIDHeaders(t *testing.T) {
	srv, c := awsStartBucket(t, "ids")
	awsMustPut(t, c, "ids", "k", []byte("x"))
	seen := map[string]bool{}
	check := func(name string, req *http.Request, wantStatus int) {
		t.Helper()
		resp, _ := awsDo(t, req)
		if resp.StatusCode != wantStatus {
			t.Errorf("%s: status %d, want %d", name, resp.StatusCode, wantStatus)
		}
		awsWantRequestIDs(t, resp)
		id := resp.Header.Get("X-Amz-Request-Id")
		if seen[id] {
			t.Errorf("%s: request ID %q reused", name, id)
		}
		seen[id] = true
	}
	signedReq := func(method, path string) *http.Request {
		req := awsRawRequest(t, srv, method, path, nil)
		awsSign(t, req, nil, awsSignOpts{})
		return req
	}
	check("ListBuckets", signedReq(http.MethodGet, "/"), http.StatusOK)
	check("GetObject", signedReq(http.MethodGet, "/ids/k"), http.StatusOK)
	check("HeadObject", signedReq(http.MethodHead, "/ids/k"), http.StatusOK)
	check("DeleteObject", signedReq(http.MethodDelete, "/ids/nothing"), http.StatusNoContent)
	check("NoSuchKey", signedReq(http.MethodGet, "/ids/missing"), http.StatusNotFound)
	check("HEAD NoSuchKey", signedReq(http.MethodHead, "/ids/missing"), http.StatusNotFound)
	check("NoSuchBucket", signedReq(http.MethodGet, "/nobucket"), http.StatusNotFound)
	check("unsigned", awsRawRequest(t, srv, http.MethodGet, "/ids/k", nil), http.StatusForbidden)
	check("method not allowed", signedReq(http.MethodPatch, "/ids/k"), http.StatusMethodNotAllowed)
	check("not implemented", signedReq(http.MethodGet, "/ids?versioning"), http.StatusNotImplemented)

	// The SDK sees the same IDs in its error type.
	_, err := c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String("ids"), Key: aws.String("missing")})
	if awsErrHeader(err, "X-Amz-Request-Id") == "" || awsErrHeader(err, "X-Amz-Id-2") == "" {
		t.Errorf("SDK error without request IDs: %v", err)
	}
	if !strings.Contains(err.Error(), "RequestID: "+awsErrHeader(err, "X-Amz-Request-Id")) {
		t.Errorf("SDK error does not name the request ID: %v", err)
	}
}

func TestAWSHealthEndpoints(t *testing.T) {
	srv, _ := awsStart(t)
	for _, path := range []string{"/health/live", "/health/ready"} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			resp, _ := awsDo(t, awsRawRequest(t, srv, method, path, nil))
			if resp.StatusCode != http.StatusOK {
				t.Errorf("%s %s without auth: %d, want 200", method, path, resp.StatusCode)
			}
		}
	}
	// Only the health paths are open: anything else unsigned is refused.
	for _, path := range []string{"/health", "/health/other", "/"} {
		resp, body := awsDo(t, awsRawRequest(t, srv, http.MethodGet, path, nil))
		awsWantRawErr(t, resp, body, http.StatusForbidden, "AccessDenied")
	}
}

func TestAWSNotImplemented(t *testing.T) {
	srv, c := awsStartBucket(t, "unimpl")
	awsMustPut(t, c, "unimpl", "k", []byte("x"))
	ctx := context.Background()
	b, k := aws.String("unimpl"), aws.String("k")
	for name, call := range map[string]func() error{
		"GetBucketVersioning": func() error {
			_, err := c.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: b})
			return err
		},
		"PutBucketVersioning": func() error {
			_, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: b,
				VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}})
			return err
		},
		"PutBucketTagging": func() error {
			_, err := c.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: b,
				Tagging: &types.Tagging{TagSet: []types.Tag{{Key: aws.String("a"), Value: aws.String("b")}}}})
			return err
		},
		"GetBucketTagging":   func() error { _, err := c.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: b}); return err },
		"GetBucketAcl":       func() error { _, err := c.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: b}); return err },
		"GetBucketPolicy":    func() error { _, err := c.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: b}); return err },
		"ListObjectVersions": func() error { _, err := c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: b}); return err },
		"GetObjectTagging": func() error {
			_, err := c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: b, Key: k})
			return err
		},
		"GetObjectAcl": func() error { _, err := c.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: b, Key: k}); return err },
		"PutObjectTagging": func() error {
			_, err := c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: b, Key: k,
				Tagging: &types.Tagging{TagSet: []types.Tag{{Key: aws.String("a"), Value: aws.String("b")}}}})
			return err
		},
	} {
		err := call()
		if code, status := awsErrInfo(err); code != "NotImplemented" || status != http.StatusNotImplemented {
			t.Errorf("%s: got %d %q (%v), want 501 NotImplemented", name, status, code, err)
		}
	}
	// None of them touched the data.
	awsWantObject(t, c, "unimpl", "k", []byte("x"))
	awsWantNoObject(t, c, "unimpl", "mpu")

	// Unsupported methods on a real resource.
	for _, tc := range []struct{ method, path string }{{http.MethodPatch, "/unimpl/k"}, {http.MethodPost, "/unimpl/k"}, {http.MethodPost, "/unimpl"}} {
		req := awsRawRequest(t, srv, tc.method, tc.path, nil)
		awsSign(t, req, nil, awsSignOpts{})
		resp, body := awsDo(t, req)
		awsWantRawErr(t, resp, body, http.StatusMethodNotAllowed, "MethodNotAllowed")
	}
	awsWantObject(t, c, "unimpl", "k", []byte("x"))
}

// Malformed write requests are refused before anything is stored.
func TestAWSMalformedWrites(t *testing.T) {
	srv, c := awsStartBucket(t, "malformed")
	awsMustPut(t, c, "malformed", "k", []byte("kept"))

	// (A PUT without Content-Length, with Transfer-Encoding: chunked, is
	// taken: TestRequestChunkedTransfer.)

	// CreateBucket with a body that is not a CreateBucketConfiguration.
	var (
		req  *http.Request
		resp *http.Response
		body []byte
	)
	for _, b := range []string{"<CreateBucketConfiguration><LocationConstraint>", "not xml at all", "<Other/>"} {
		req = awsRawRequest(t, srv, http.MethodPut, "/newbucket", []byte(b))
		awsSign(t, req, []byte(b), awsSignOpts{})
		resp, body = awsDo(t, req)
		awsWantRawErr(t, resp, body, http.StatusBadRequest, "MalformedXML")
	}
	_, err := c.HeadBucket(context.Background(), &s3.HeadBucketInput{Bucket: aws.String("newbucket")})
	awsWantErr(t, err, http.StatusNotFound, "NotFound")

	// DeleteObjects with a broken or empty body.
	for _, b := range []string{"<Delete><Object><Key>k</Key></Object>", "<Delete></Delete>", ""} {
		req = awsRawRequest(t, srv, http.MethodPost, "/malformed?delete", []byte(b))
		awsSign(t, req, []byte(b), awsSignOpts{})
		resp, body = awsDo(t, req)
		awsWantRawErr(t, resp, body, http.StatusBadRequest, "MalformedXML")
	}
	// DeleteObjects whose Content-MD5 does not match its body.
	b := []byte("<Delete><Object><Key>k</Key></Object></Delete>")
	req = awsRawRequest(t, srv, http.MethodPost, "/malformed?delete", b)
	req.Header.Set("Content-MD5", "1B2M2Y8AsgTpgAmY7PhCfg==")
	awsSign(t, req, b, awsSignOpts{})
	resp, body = awsDo(t, req)
	awsWantRawErr(t, resp, body, http.StatusBadRequest, "BadDigest")
	awsWantObject(t, c, "malformed", "k", []byte("kept"))
	awsWantNoStrayFiles(t, srv, c)
}
