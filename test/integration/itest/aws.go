package itest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"

	"github.com/jogstore/jog/internal/testutil"
)

// Start starts a fresh server and returns it with a default aws-sdk-go-v2
// client.
func Start(t *testing.T, opts ...testutil.Option) (*testutil.Server, *s3.Client) {
	t.Helper()
	srv := testutil.StartServer(t, opts...)
	return srv, AWSClient(t, srv)
}

// AWSClient is srv.AWSClient with the SDK's debug chatter (e.g. "Response
// has no supported checksum") silenced; every other setting stays the
// default.
func AWSClient(t testing.TB, srv *testutil.Server, optFns ...func(*s3.Options)) *s3.Client {
	t.Helper()
	return srv.AWSClient(t, append([]func(*s3.Options){func(o *s3.Options) { o.Logger = logging.Nop{} }}, optFns...)...)
}

// StartBucket starts a server and creates one bucket on it.
func StartBucket(t *testing.T, bucket string, opts ...testutil.Option) (*testutil.Server, *s3.Client) {
	t.Helper()
	srv, c := Start(t, opts...)
	CreateBucket(t, c, bucket)
	return srv, c
}

// PooledAWSClient is an SDK client whose transport keeps enough idle
// connections for n concurrent callers (no connection churn).
func PooledAWSClient(t *testing.T, srv *testutil.Server, n int) *s3.Client {
	t.Helper()
	hc := awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
		tr.MaxIdleConns = 2 * n
		tr.MaxIdleConnsPerHost = 2 * n
	})
	return AWSClient(t, srv, func(o *s3.Options) { o.HTTPClient = hc })
}

// CreateBucket creates bucket.
func CreateBucket(t testing.TB, c *s3.Client, bucket string) {
	t.Helper()
	if _, err := c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatalf("CreateBucket %q: %v", bucket, err)
	}
}

// Put stores body under key and checks the returned ETag.
func Put(t testing.TB, c *s3.Client, bucket, key string, body []byte, opts ...func(*s3.PutObjectInput)) *s3.PutObjectOutput {
	t.Helper()
	in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body)}
	for _, o := range opts {
		o(in)
	}
	out, err := c.PutObject(context.Background(), in)
	if err != nil {
		t.Fatalf("PutObject %s/%q: %v", bucket, key, err)
	}
	if got, want := aws.ToString(out.ETag), ETag(body); got != want {
		t.Fatalf("PutObject %s/%q: ETag %s, want %s", bucket, key, got, want)
	}
	return out
}

// Get reads an object back in full.
func Get(t testing.TB, c *s3.Client, bucket, key string, opts ...func(*s3.GetObjectInput)) ([]byte, *s3.GetObjectOutput) {
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

// WantObject asserts that key holds exactly want (bytes and ETag).
func WantObject(t testing.TB, c *s3.Client, bucket, key string, want []byte) {
	t.Helper()
	got, out := Get(t, c, bucket, key)
	if !bytes.Equal(got, want) {
		t.Fatalf("object %s/%q: got %d bytes %q, want %d bytes %q", bucket, key, len(got), Short(got), len(want), Short(want))
	}
	if e := aws.ToString(out.ETag); e != ETag(want) {
		t.Fatalf("object %s/%q: ETag %s, want %s", bucket, key, e, ETag(want))
	}
}

// WantNoObject asserts that GET of key fails with NoSuchKey.
func WantNoObject(t testing.TB, c *s3.Client, bucket, key string) {
	t.Helper()
	_, err := c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	WantErr(t, err, http.StatusNotFound, "NoSuchKey")
}

// PutMany stores each key (body: the key itself unless empty is set) using
// workers concurrent uploaders.
func PutMany(t testing.TB, c *s3.Client, bucket string, keys []string, workers int, empty bool) {
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
