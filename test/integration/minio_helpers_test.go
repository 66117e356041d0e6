package integration

// Shared helpers of the minio-go suite (minio_*_test.go) and the concurrency
// tests. Names carry an "mc" or "conc" prefix so they cannot collide with the
// aws-sdk suite's helpers in the same package.

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	miniocreds "github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/testutil"
)

// mcPutOpts returns PutObjectOptions that keep minio-go on a single PUT
// (so the ETag is the body's MD5). Over plain HTTP minio-go then signs the
// body with aws-chunked streaming signatures (STREAMING-AWS4-HMAC-SHA256-PAYLOAD).
func mcPutOpts() minio.PutObjectOptions {
	return minio.PutObjectOptions{DisableMultipart: true}
}

// mcSetup starts a server and returns it, a minio-go client and a fresh
// bucket.
func mcSetup(t *testing.T, opts ...testutil.Option) (*testutil.Server, *minio.Client, string) {
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

// mcPut writes data under key with a single PUT and returns the upload info.
func mcPut(t *testing.T, c *minio.Client, bucket, key string, data []byte, opts minio.PutObjectOptions) minio.UploadInfo {
	t.Helper()
	opts.DisableMultipart = true
	info, err := c.PutObject(context.Background(), bucket, key, bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		t.Fatalf("PutObject %q (%d bytes): %v", key, len(data), err)
	}
	if want := mcMD5(data); info.ETag != want {
		t.Fatalf("PutObject %q: ETag %q, want MD5 %q", key, info.ETag, want)
	}
	return info
}

// mcGet reads a whole object and returns its bytes and the info served with
// them.
func mcGet(t *testing.T, c *minio.Client, bucket, key string, opts minio.GetObjectOptions) ([]byte, minio.ObjectInfo) {
	t.Helper()
	b, info, err := mcTryGet(c, bucket, key, opts)
	if err != nil {
		t.Fatalf("GetObject %q: %v", key, err)
	}
	return b, info
}

// mcTryGet is mcGet returning the error.
func mcTryGet(c *minio.Client, bucket, key string, opts minio.GetObjectOptions) ([]byte, minio.ObjectInfo, error) {
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

// mcWantErr asserts that err is an S3 error with the given code and status.
func mcWantErr(t *testing.T, what string, err error, code string, status int) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: succeeded, want %s (%d)", what, code, status)
	}
	er := minio.ToErrorResponse(err)
	if er.Code != code || er.StatusCode != status {
		t.Fatalf("%s: got code %q status %d (%v), want %s (%d)", what, er.Code, er.StatusCode, err, code, status)
	}
}

func mcMD5(b []byte) string {
	s := md5.Sum(b)
	return hex.EncodeToString(s[:])
}

// seededBody returns n bytes derived from seed, so that a body's MD5 names
// exactly one writer's payload.
func mcSeeded(seed uint64, n int) []byte {
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

// mcStatusCounter is an http.RoundTripper that counts responses by status
// class, so server errors are seen even when a client retries them away.
type mcStatusCounter struct {
	next       http.RoundTripper
	total      atomic.Int64
	serverErrs atomic.Int64
	mu         sync.Mutex
	firstErrs  []string
}

func mcNewStatusCounter() *mcStatusCounter {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 128, 128 // no connection churn with many goroutines
	return &mcStatusCounter{next: tr}
}

func (s *mcStatusCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.next.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	s.total.Add(1)
	if resp.StatusCode >= 500 {
		s.serverErrs.Add(1)
		s.mu.Lock()
		if len(s.firstErrs) < 10 {
			s.firstErrs = append(s.firstErrs, r.Method+" "+r.URL.Path+": "+resp.Status)
		}
		s.mu.Unlock()
	}
	return resp, nil
}

// mcClientWith returns a minio-go client for srv whose requests go through
// transport.
func mcClientWith(t testing.TB, srv *testutil.Server, transport http.RoundTripper) *minio.Client {
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

// mcResponse is a raw response with its S3 error code (if any) and body.
type mcResponse struct {
	*http.Response
	body []byte
	code string
}

// mcSignedDo sends a request that minio-go would refuse to build (for
// example a key longer than 1024 bytes), signed with JOG's own SigV4 signer.
// path is the unescaped path; body may be nil.
func mcSignedDo(t *testing.T, srv *testutil.Server, method, path string, body []byte) mcResponse {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = path
	req, err := http.NewRequest(method, u.String(), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	sigv4.SignRequest(req, srv.Config.AccessKey, srv.Config.SecretKey, srv.Config.Region, time.Now(), hex.EncodeToString(sum[:]))
	return mcDo(t, req)
}

func mcRequest(t *testing.T, method, u string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// mcDo sends req with net/http and returns the response with its body and
// S3 error code.
func mcDo(t *testing.T, req *http.Request) mcResponse {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var e struct{ Code string }
	xml.Unmarshal(b, &e)
	return mcResponse{Response: resp, body: b, code: e.Code}
}
