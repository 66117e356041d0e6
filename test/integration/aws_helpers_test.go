package integration

// Shared helpers of the aws-sdk-go-v2 integration tests (aws_*_test.go).
// Every helper drives a real JOG server started by testutil over HTTP.

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/jogstore/jog/internal/testutil"
)

// awsStart starts a fresh server and returns it with a default SDK client.
func awsStart(t *testing.T, opts ...testutil.Option) (*testutil.Server, *s3.Client) {
	t.Helper()
	srv := testutil.StartServer(t, opts...)
	return srv, awsClient(t, srv)
}

// awsClient is srv.AWSClient with the SDK's debug chatter (e.g. "Response has
// no supported checksum") silenced; every other setting stays the default.
func awsClient(t testing.TB, srv *testutil.Server, optFns ...func(*s3.Options)) *s3.Client {
	t.Helper()
	return srv.AWSClient(t, append([]func(*s3.Options){func(o *s3.Options) { o.Logger = logging.Nop{} }}, optFns...)...)
}

// awsStartBucket starts a server and creates one bucket on it.
func awsStartBucket(t *testing.T, bucket string, opts ...testutil.Option) (*testutil.Server, *s3.Client) {
	t.Helper()
	srv, c := awsStart(t, opts...)
	awsMustCreateBucket(t, c, bucket)
	return srv, c
}

// awsPooledClient is an SDK client whose transport keeps enough idle
// connections for n concurrent callers (no connection churn).
func awsPooledClient(t *testing.T, srv *testutil.Server, n int) *s3.Client {
	t.Helper()
	hc := awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
		tr.MaxIdleConns = 2 * n
		tr.MaxIdleConnsPerHost = 2 * n
	})
	return awsClient(t, srv, func(o *s3.Options) { o.HTTPClient = hc })
}

func awsMustCreateBucket(t testing.TB, c *s3.Client, bucket string) {
	t.Helper()
	if _, err := c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatalf("CreateBucket %q: %v", bucket, err)
	}
}

// awsMustPut stores body under key and checks the returned ETag.
func awsMustPut(t testing.TB, c *s3.Client, bucket, key string, body []byte, opts ...func(*s3.PutObjectInput)) *s3.PutObjectOutput {
	t.Helper()
	in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body)}
	for _, o := range opts {
		o(in)
	}
	out, err := c.PutObject(context.Background(), in)
	if err != nil {
		t.Fatalf("PutObject %s/%q: %v", bucket, key, err)
	}
	if got, want := aws.ToString(out.ETag), awsETag(body); got != want {
		t.Fatalf("PutObject %s/%q: ETag %s, want %s", bucket, key, got, want)
	}
	return out
}

// awsMustGet reads an object back in full.
func awsMustGet(t testing.TB, c *s3.Client, bucket, key string, opts ...func(*s3.GetObjectInput)) ([]byte, *s3.GetObjectOutput) {
	t.Helper()
	in := &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}
	for _, o := range opts {
		o(in)
	}
	out, err := c.GetObject(context.Background(), in)
	if err != nil {
		t.Fatalf("GetObject %s/%q: %v", bucket, key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatalf("GetObject %s/%q: read body: %v", bucket, key, err)
	}
	return b, out
}

// awsWantObject asserts that key holds exactly want (bytes and ETag).
func awsWantObject(t testing.TB, c *s3.Client, bucket, key string, want []byte) {
	t.Helper()
	got, out := awsMustGet(t, c, bucket, key)
	if !bytes.Equal(got, want) {
		t.Fatalf("object %s/%q: got %d bytes %q, want %d bytes %q", bucket, key, len(got), awsShort(got), len(want), awsShort(want))
	}
	if e := aws.ToString(out.ETag); e != awsETag(want) {
		t.Fatalf("object %s/%q: ETag %s, want %s", bucket, key, e, awsETag(want))
	}
}

// awsWantNoObject asserts that GET of key fails with NoSuchKey.
func awsWantNoObject(t testing.TB, c *s3.Client, bucket, key string) {
	t.Helper()
	_, err := c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchKey")
}

// awsErrInfo extracts the S3 error code and HTTP status from an SDK error.
func awsErrInfo(err error) (code string, status int) {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code = ae.ErrorCode()
	}
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		status = re.HTTPStatusCode()
	}
	return code, status
}

// awsWantErr asserts that err is an S3 error with exactly status and code.
func awsWantErr(t testing.TB, err error, status int, code string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got success, want %d %s", status, code)
	}
	gotCode, gotStatus := awsErrInfo(err)
	if gotCode != code || gotStatus != status {
		t.Fatalf("got error %d %q (%v), want %d %q", gotStatus, gotCode, err, status, code)
	}
}

// awsETag is the quoted hex MD5 S3 returns as the ETag of a simple object.
func awsETag(b []byte) string {
	sum := md5.Sum(b)
	return `"` + hex.EncodeToString(sum[:]) + `"`
}

func awsSHA256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// awsRandBytes returns n deterministic pseudo-random bytes.
func awsRandBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	for i := n - n%8; i < n; i++ {
		b[i] = byte(r.Uint32())
	}
	return b
}

func awsShort(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + "..."
	}
	return string(b)
}

// awsRawRequest builds a raw request against srv. path must already be
// escaped as it should go on the wire.
func awsRawRequest(t testing.TB, srv *testutil.Server, method, path string, body []byte) *http.Request {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.ContentLength = int64(len(body))
	}
	return req
}

// awsSignOpts tweak a raw SigV4 signature.
type awsSignOpts struct {
	accessKey, secretKey, region string
	payloadHash                  string // "" means the SHA-256 of body
	at                           time.Time
}

// awsSign signs req with SigV4 in the Authorization header, setting
// x-amz-content-sha256 first (S3 requires it and it is signed).
func awsSign(t testing.TB, req *http.Request, body []byte, o awsSignOpts) {
	t.Helper()
	if o.accessKey == "" {
		o.accessKey = testutil.AccessKey
	}
	if o.secretKey == "" {
		o.secretKey = testutil.SecretKey
	}
	if o.region == "" {
		o.region = testutil.Region
	}
	if o.payloadHash == "" {
		o.payloadHash = awsSHA256Hex(body)
	}
	if o.at.IsZero() {
		o.at = time.Now()
	}
	req.Header.Set("X-Amz-Content-Sha256", o.payloadHash)
	creds := aws.Credentials{AccessKeyID: o.accessKey, SecretAccessKey: o.secretKey}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, o.payloadHash, "s3", o.region, o.at); err != nil {
		t.Fatal(err)
	}
}

// awsDo sends req with a plain net/http client and returns the response
// with its body read.
func awsDo(t testing.TB, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", req.Method, req.URL, err)
	}
	return resp, b
}

// awsXMLError is an S3 error document.
type awsXMLError struct {
	XMLName   xml.Name `xml:"Error"`
	Code      string   `xml:"Code"`
	Message   string   `xml:"Message"`
	RequestID string   `xml:"RequestId"`
	HostID    string   `xml:"HostId"`
}

// awsWantRawErr asserts a raw response is an S3 error with status and code,
// carrying the request-ID headers.
func awsWantRawErr(t testing.TB, resp *http.Response, body []byte, status int, code string) {
	t.Helper()
	var e awsXMLError
	if err := xml.Unmarshal(body, &e); err != nil {
		t.Fatalf("status %d, body %q is not an S3 error document: %v", resp.StatusCode, body, err)
	}
	if resp.StatusCode != status || e.Code != code {
		t.Fatalf("got %d %s (%s), want %d %s", resp.StatusCode, e.Code, e.Message, status, code)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/xml" {
		t.Errorf("error Content-Type %q, want application/xml", ct)
	}
	awsWantRequestIDs(t, resp)
	if e.RequestID != resp.Header.Get("X-Amz-Request-Id") {
		t.Errorf("error RequestId %q != x-amz-request-id header %q", e.RequestID, resp.Header.Get("X-Amz-Request-Id"))
	}
}

// awsWantRequestIDs asserts that the response names its request.
func awsWantRequestIDs(t testing.TB, resp *http.Response) {
	t.Helper()
	if v := resp.Header.Get("X-Amz-Request-Id"); strings.TrimSpace(v) == "" {
		t.Errorf("%s %s: no x-amz-request-id header", resp.Request.Method, resp.Request.URL.Path)
	}
	if v := resp.Header.Get("X-Amz-Id-2"); strings.TrimSpace(v) == "" {
		t.Errorf("%s %s: no x-amz-id-2 header", resp.Request.Method, resp.Request.URL.Path)
	}
}

// awsRawResponse returns the HTTP response behind an SDK result.
func awsRawResponse(md middleware.Metadata) *http.Response {
	if r, ok := awsmiddleware.GetRawResponse(md).(*smithyhttp.Response); ok {
		return r.Response
	}
	return nil
}

// awsStatus returns the HTTP status of an SDK result (0 if unknown).
func awsStatus(md middleware.Metadata) int {
	if r := awsRawResponse(md); r != nil {
		return r.StatusCode
	}
	return 0
}

// awsErrHeader returns a header of the HTTP response behind an SDK error.
func awsErrHeader(err error, name string) string {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) && re.Response != nil {
		return re.Response.Header.Get(name)
	}
	return ""
}

// awsMustPutMany stores each key (body: the key itself unless empty is set)
// using workers concurrent uploaders.
func awsMustPutMany(t testing.TB, c *s3.Client, bucket string, keys []string, workers int, empty bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	work := make(chan string)
	errc := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				body := []byte(k)
				if empty {
					body = nil
				}
				_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(k), Body: bytes.NewReader(body)})
				if err != nil {
					errc <- fmt.Errorf("PutObject %q: %w", k, err)
					cancel()
					return
				}
			}
		}()
	}
feed:
	for _, k := range keys {
		select {
		case work <- k:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
}

// awsWantNoStrayFiles asserts that refused or replaced writes left nothing
// behind on disk: no temp files, and no more blob files than there are
// non-empty objects (zero-byte objects have no blob).
func awsWantNoStrayFiles(t testing.TB, srv *testutil.Server, c *s3.Client) {
	t.Helper()
	tmp, err := os.ReadDir(filepath.Join(srv.DataDir, "tmp"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tmp) != 0 {
		t.Errorf("%d temp files left behind, e.g. %s", len(tmp), tmp[0].Name())
	}
	blobs := 0
	err = filepath.WalkDir(filepath.Join(srv.DataDir, "blobs"), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			blobs++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	lb, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatal(err)
	}
	nonEmpty := 0
	for _, b := range lb.Buckets {
		p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: b.Name})
		for p.HasMorePages() {
			out, err := p.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range out.Contents {
				if aws.ToInt64(o.Size) > 0 {
					nonEmpty++
				}
			}
		}
	}
	if blobs > nonEmpty {
		t.Errorf("%d blob files for %d non-empty objects: refused or replaced writes leaked blobs", blobs, nonEmpty)
	}
}
