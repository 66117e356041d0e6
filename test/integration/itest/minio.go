package itest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/minio/minio-go/v7"
	miniocreds "github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/jogstore/jog/internal/testutil"
)

// MinioPutOpts returns PutObjectOptions that keep minio-go on a single PUT
// (so the ETag is the body's MD5). Over plain HTTP minio-go then signs the
// body with aws-chunked streaming signatures (STREAMING-AWS4-HMAC-SHA256-PAYLOAD).
func MinioPutOpts() minio.PutObjectOptions {
	return minio.PutObjectOptions{DisableMultipart: true}
}

// StartMinio starts a server and returns it, a minio-go client and a fresh
// bucket named after the test.
func StartMinio(t *testing.T, opts ...testutil.Option) (*testutil.Server, *minio.Client, string) {
	t.Helper()
	srv := testutil.StartServer(t, opts...)
	c := srv.MinioClient(t)
	bucket := "mc-" + strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(bucket) > 63 {
		bucket = bucket[:63]
	}
	bucket = strings.TrimRight(bucket, "-")
	if err := c.MakeBucket(context.Background(), bucket, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("MakeBucket %s: %v", bucket, err)
	}
	return srv, c, bucket
}

// MinioPut writes data under key with a single PUT and checks the ETag.
func MinioPut(t *testing.T, c *minio.Client, bucket, key string, data []byte, opts minio.PutObjectOptions) minio.UploadInfo {
	t.Helper()
	opts.DisableMultipart = true
	info, err := c.PutObject(context.Background(), bucket, key, bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		t.Fatalf("PutObject %q (%d bytes): %v", key, len(data), err)
	}
	if want := MD5Hex(data); info.ETag != want {
		t.Fatalf("PutObject %q: ETag %q, want MD5 %q", key, info.ETag, want)
	}
	return info
}

// MinioGet reads a whole object and returns its bytes and the info served
// with them.
func MinioGet(t *testing.T, c *minio.Client, bucket, key string, opts minio.GetObjectOptions) ([]byte, minio.ObjectInfo) {
	t.Helper()
	b, info, err := MinioTryGet(c, bucket, key, opts)
	if err != nil {
		t.Fatalf("GetObject %q: %v", key, err)
	}
	return b, info
}

// MinioTryGet is MinioGet returning the error.
func MinioTryGet(c *minio.Client, bucket, key string, opts minio.GetObjectOptions) ([]byte, minio.ObjectInfo, error) {
	obj, err := c.GetObject(context.Background(), bucket, key, opts)
	if err != nil {
		return nil, minio.ObjectInfo{}, err
	}
	defer obj.Close()
	// Read first, then Stat: the first Read issues the GET, and Stat then
	// reports the headers of that same response (a Stat before any Read
	// would send a separate HEAD). minio-go reports as Size what is left to
	// read, so Size is set from the bytes read.
	b, err := io.ReadAll(obj)
	if err != nil {
		return nil, minio.ObjectInfo{}, err
	}
	info, err := obj.Stat()
	if err != nil {
		return nil, minio.ObjectInfo{}, err
	}
	if info.Size != 0 {
		return b, info, fmt.Errorf("read %d bytes, %d more announced", len(b), info.Size)
	}
	info.Size = int64(len(b))
	return b, info, nil
}

// MinioClientWith returns a minio-go client for srv whose requests go
// through transport, retrying once at most.
func MinioClientWith(t testing.TB, srv *testutil.Server, transport http.RoundTripper) *minio.Client {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c, err := minio.New(u.Host, &minio.Options{
		Creds:        miniocreds.NewStaticV4(srv.Config.AccessKey, srv.Config.SecretKey, ""),
		Region:       srv.Config.Region,
		BucketLookup: minio.BucketLookupPath,
		Transport:    transport,
		MaxRetries:   1,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// StatusCounter is an http.RoundTripper that counts responses by status
// class, so server errors are seen even when a client retries them away.
type StatusCounter struct {
	next       http.RoundTripper
	Total      atomic.Int64
	ServerErrs atomic.Int64
	mu         sync.Mutex
	firstErrs  []string
}

var _ http.RoundTripper = (*StatusCounter)(nil)

// NewStatusCounter returns a counter over a transport that keeps enough
// idle connections for many goroutines (no connection churn).
func NewStatusCounter() *StatusCounter {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 128, 128
	return &StatusCounter{next: tr}
}

// RoundTrip sends r and counts its response.
func (s *StatusCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.next.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	s.Total.Add(1)
	if resp.StatusCode >= 500 {
		s.ServerErrs.Add(1)
		s.mu.Lock()
		if len(s.firstErrs) < 10 {
			s.firstErrs = append(s.firstErrs, r.Method+" "+r.URL.Path+": "+resp.Status)
		}
		s.mu.Unlock()
	}
	return resp, nil
}

// FirstErrs names the first (up to ten) 5xx responses.
func (s *StatusCounter) FirstErrs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.firstErrs...)
}
