package integration

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestAWSAuthFailures sends raw requests signed with the SDK's v4 signer,
// each broken in one way, and checks the exact refusal and that no refused
// write changed anything.
func TestAWSAuthFailures(t *testing.T) {
	srv, c := itest.StartBucket(t, "auth")
	original := []byte("original content")
	itest.Put(t, c, "auth", "k", original)
	evil := []byte("replacement that must never land")

	// Control: a correctly signed raw PUT and GET work.
	req := itest.RawRequest(t, srv, http.MethodPut, "/auth/control", []byte("ok"))
	itest.Sign(t, req, []byte("ok"), itest.SignOpts{})
	if resp, body := itest.Do(t, req); resp.StatusCode != http.StatusOK {
		t.Fatalf("control PUT: %d %s", resp.StatusCode, body)
	}
	itest.WantObject(t, c, "auth", "control", []byte("ok"))
	req = itest.RawRequest(t, srv, http.MethodPut, "/auth/control-unsigned-payload", []byte("ok"))
	itest.Sign(t, req, []byte("ok"), itest.SignOpts{PayloadHash: "UNSIGNED-PAYLOAD"})
	if resp, body := itest.Do(t, req); resp.StatusCode != http.StatusOK {
		t.Fatalf("control PUT with UNSIGNED-PAYLOAD: %d %s", resp.StatusCode, body)
	}
	itest.WantObject(t, c, "auth", "control-unsigned-payload", []byte("ok"))

	type attempt struct {
		name   string
		build  func(method, key string, body []byte) *http.Request
		status int
		code   string
	}
	signed := func(o itest.SignOpts, after func(*http.Request)) func(string, string, []byte) *http.Request {
		return func(method, key string, body []byte) *http.Request {
			req := itest.RawRequest(t, srv, method, "/auth/"+key, body)
			req.Header.Set("X-Amz-Meta-Color", "blue")
			req.Header.Set("Content-Type", "text/plain")
			itest.Sign(t, req, body, o)
			if after != nil {
				after(req)
			}
			return req
		}
	}
	attempts := []attempt{
		{"unsigned", func(method, key string, body []byte) *http.Request {
			return itest.RawRequest(t, srv, method, "/auth/"+key, body)
		}, http.StatusForbidden, "AccessDenied"},
		{"wrong secret", signed(itest.SignOpts{SecretKey: "not-the-secret"}, nil), http.StatusForbidden, "SignatureDoesNotMatch"},
		{"unknown access key", signed(itest.SignOpts{AccessKey: "AKIAUNKNOWNKEY000000"}, nil), http.StatusForbidden, "InvalidAccessKeyId"},
		{"date 20 minutes old", signed(itest.SignOpts{At: time.Now().Add(-20 * time.Minute)}, nil), http.StatusForbidden, "RequestTimeTooSkewed"},
		{"date 20 minutes ahead", signed(itest.SignOpts{At: time.Now().Add(20 * time.Minute)}, nil), http.StatusForbidden, "RequestTimeTooSkewed"},
		{"wrong region", signed(itest.SignOpts{Region: "eu-west-1"}, nil), http.StatusBadRequest, "AuthorizationHeaderMalformed"},
		{"payload hash of another body", func(method, key string, body []byte) *http.Request {
			req := itest.RawRequest(t, srv, method, "/auth/"+key, body)
			itest.Sign(t, req, body, itest.SignOpts{PayloadHash: itest.SHA256Hex(append([]byte("x"), body...))})
			return req
		}, http.StatusBadRequest, "XAmzContentSHA256Mismatch"},
		{"payload hash of empty body", func(method, key string, body []byte) *http.Request {
			req := itest.RawRequest(t, srv, method, "/auth/"+key, body)
			itest.Sign(t, req, body, itest.SignOpts{PayloadHash: itest.SHA256Hex(nil)})
			return req
		}, http.StatusBadRequest, "XAmzContentSHA256Mismatch"},
		{"signed user metadata altered", signed(itest.SignOpts{}, func(r *http.Request) { r.Header.Set("X-Amz-Meta-Color", "red") }), http.StatusForbidden, "SignatureDoesNotMatch"},
		{"signed content type altered", signed(itest.SignOpts{}, func(r *http.Request) { r.Header.Set("Content-Type", "text/html") }), http.StatusForbidden, "SignatureDoesNotMatch"},
		{"signed payload hash altered", signed(itest.SignOpts{}, func(r *http.Request) { r.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD") }), http.StatusForbidden, "SignatureDoesNotMatch"},
		{"path altered", signed(itest.SignOpts{}, func(r *http.Request) { r.URL.Path += "-other" }), http.StatusForbidden, "SignatureDoesNotMatch"},
		{"query added", signed(itest.SignOpts{}, func(r *http.Request) { r.URL.RawQuery = "x-id=PutObject" }), http.StatusForbidden, "SignatureDoesNotMatch"},
		{"missing x-amz-content-sha256", signed(itest.SignOpts{}, func(r *http.Request) { r.Header.Del("X-Amz-Content-Sha256") }), http.StatusBadRequest, "InvalidRequest"},
		{"garbage authorization", signed(itest.SignOpts{}, func(r *http.Request) { r.Header.Set("Authorization", "AWS4-HMAC-SHA256 garbage") }), http.StatusBadRequest, "AuthorizationHeaderMalformed"},
	}
	bigOriginal := itest.RandBytes(3, 2<<20)
	itest.Put(t, c, "auth", "big", bigOriginal)
	bigEvil := itest.RandBytes(4, 2<<20+1)

	for _, a := range attempts {
		t.Run(a.name, func(t *testing.T) {
			// Over an existing key, a new key, and a large existing key.
			for _, w := range []struct {
				key  string
				body []byte
				was  []byte
			}{{"k", evil, original}, {"fresh", evil, nil}, {"big", bigEvil, bigOriginal}} {
				resp, body := itest.Do(t, a.build(http.MethodPut, w.key, w.body))
				itest.WantRawErr(t, resp, body, a.status, a.code)
				if w.was == nil {
					itest.WantNoObject(t, c, "auth", w.key)
				} else {
					itest.WantObject(t, c, "auth", w.key, w.was)
				}
			}
			// The same failure on a read is refused the same way (the
			// empty-body hash is right for a GET, so that one is no failure).
			if a.name != "payload hash of empty body" {
				resp, body := itest.Do(t, a.build(http.MethodGet, "k", nil))
				itest.WantRawErr(t, resp, body, a.status, a.code)
			}
		})
	}
	itest.WantNoStrayFiles(t, srv, c)
}

// A body whose hash is checked while streaming: the mismatch surfaces only
// at the end of a large body, after everything was written to disk.
func TestAWSAuthPayloadMismatchLarge(t *testing.T) {
	srv, c := itest.StartBucket(t, "stream")
	old := itest.RandBytes(10, 5<<20)
	itest.Put(t, c, "stream", "k", old)
	body := itest.RandBytes(11, 9<<20+3)
	tampered := bytes.Clone(body)
	tampered[len(tampered)-1] ^= 1 // the last byte differs from what was signed

	req := itest.RawRequest(t, srv, http.MethodPut, "/stream/k", tampered)
	itest.Sign(t, req, tampered, itest.SignOpts{PayloadHash: itest.SHA256Hex(body)})
	resp, rb := itest.Do(t, req)
	itest.WantRawErr(t, resp, rb, http.StatusBadRequest, "XAmzContentSHA256Mismatch")
	itest.WantObject(t, c, "stream", "k", old)

	req = itest.RawRequest(t, srv, http.MethodPut, "/stream/new", tampered)
	itest.Sign(t, req, tampered, itest.SignOpts{PayloadHash: itest.SHA256Hex(body)})
	resp, rb = itest.Do(t, req)
	itest.WantRawErr(t, resp, rb, http.StatusBadRequest, "XAmzContentSHA256Mismatch")
	itest.WantNoObject(t, c, "stream", "new")

	// A body shorter than its Content-Length is refused too.
	req = itest.RawRequest(t, srv, http.MethodPut, "/stream/k", nil)
	req.Body = io.NopCloser(bytes.NewReader(body[:100]))
	req.ContentLength = 1000
	itest.Sign(t, req, nil, itest.SignOpts{PayloadHash: "UNSIGNED-PAYLOAD"})
	if r, err := http.DefaultClient.Do(req); err == nil {
		r.Body.Close()
		if r.StatusCode == http.StatusOK {
			t.Fatal("short body accepted")
		}
	}
	itest.WantObject(t, c, "stream", "k", old)

	// The correctly signed body is accepted afterwards.
	req = itest.RawRequest(t, srv, http.MethodPut, "/stream/k", body)
	itest.Sign(t, req, body, itest.SignOpts{})
	if resp, rb := itest.Do(t, req); resp.StatusCode != http.StatusOK {
		t.Fatalf("correct PUT: %d %s", resp.StatusCode, rb)
	}
	itest.WantObject(t, c, "stream", "k", body)
	itest.WantNoStrayFiles(t, srv, c)
}

// Refused bucket and delete operations change nothing either.
func TestAWSAuthRefusedNonPutWrites(t *testing.T) {
	srv, c := itest.StartBucket(t, "keep")
	itest.Put(t, c, "keep", "k", []byte("v"))
	ctx := context.Background()
	for _, tc := range []struct{ method, path string }{
		{http.MethodDelete, "/keep/k"},
		{http.MethodDelete, "/keep"},
		{http.MethodPut, "/newbucket"},
		{http.MethodPost, "/keep?delete"},
	} {
		for _, o := range []itest.SignOpts{{SecretKey: "wrong"}, {AccessKey: "AKIAUNKNOWNKEY000000"}, {At: time.Now().Add(-time.Hour)}} {
			body := []byte(nil)
			if tc.method == http.MethodPost {
				body = []byte(`<Delete><Object><Key>k</Key></Object></Delete>`)
			}
			req := itest.RawRequest(t, srv, tc.method, tc.path, body)
			itest.Sign(t, req, body, o)
			resp, rb := itest.Do(t, req)
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s %s with %+v: %d %s", tc.method, tc.path, o, resp.StatusCode, rb)
			}
		}
		req := itest.RawRequest(t, srv, tc.method, tc.path, nil)
		resp, rb := itest.Do(t, req)
		itest.WantRawErr(t, resp, rb, http.StatusForbidden, "AccessDenied")
	}
	itest.WantObject(t, c, "keep", "k", []byte("v"))
	_, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("newbucket")})
	itest.WantErr(t, err, http.StatusNotFound, "NotFound")

	// The SDK with wrong credentials sees the same codes.
	bad := itest.AWSClient(t, srv, func(o *s3.Options) {
		o.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: testutil.AccessKey, SecretAccessKey: "wrong"}, nil
		})
	})
	_, err = bad.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("keep"), Key: aws.String("k"), Body: strings.NewReader("bad")})
	itest.WantErr(t, err, http.StatusForbidden, "SignatureDoesNotMatch")
	_, err = bad.ListBuckets(ctx, &s3.ListBucketsInput{})
	itest.WantErr(t, err, http.StatusForbidden, "SignatureDoesNotMatch")
	itest.WantObject(t, c, "keep", "k", []byte("v"))
}
