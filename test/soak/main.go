// Command soak drives a running JOG server with mixed S3 load for a fixed
// time and reports requests, unexpected errors and the server's memory.
// scripts/soak.sh builds it, starts a server and runs it; see
// docs/RELIABILITY.md ("Soak").
//
// Each worker owns its own key prefix, so it knows exactly what every GET,
// HEAD and LIST must return: any 5xx, any transport error, any wrong byte or
// listing is an unexpected error. The server's RSS (VmRSS from
// /proc/<pid>/status) is sampled every -rss-every.
package main

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

type options struct {
	endpoint, accessKey, secretKey, region, bucket string
	duration, rssEvery                             time.Duration
	workers, keysPerWorker                         int
	maxSize                                        int64
	pid                                            int
	rssGrowthMiB                                   int64
}

func main() {
	var o options
	freePort := flag.Bool("free-port", false, "print a free loopback TCP port and exit")
	flag.StringVar(&o.endpoint, "endpoint", "http://127.0.0.1:9000", "server URL")
	flag.StringVar(&o.accessKey, "access-key", "", "access key")
	flag.StringVar(&o.secretKey, "secret-key", "", "secret key")
	flag.StringVar(&o.region, "region", "us-east-1", "region")
	flag.StringVar(&o.bucket, "bucket", "soak", "bucket (created if missing)")
	flag.DurationVar(&o.duration, "duration", 30*time.Minute, "how long to run the load (at most 24h)")
	flag.DurationVar(&o.rssEvery, "rss-every", 10*time.Second, "RSS sampling interval")
	flag.IntVar(&o.workers, "workers", 64, "concurrent workers")
	flag.IntVar(&o.keysPerWorker, "keys", 32, "keys per worker")
	flag.Int64Var(&o.maxSize, "max-size", 4<<20, "largest PUT body in bytes")
	flag.IntVar(&o.pid, "pid", 0, "server process ID, for RSS sampling (0: none)")
	flag.Int64Var(&o.rssGrowthMiB, "max-rss-growth", 256, "fail if the server's RSS at the end exceeds the start by more MiB")
	wait := flag.Duration("wait-ready", 0, "first wait up to this long for <endpoint>/health/ready")
	flag.Parse()
	if *freePort {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(ln.Addr().(*net.TCPAddr).Port)
		ln.Close()
		return
	}
	if o.duration <= 0 || o.duration > 24*time.Hour {
		fmt.Fprintln(os.Stderr, "soak: -duration must be in (0, 24h]")
		os.Exit(2)
	}
	if *wait > 0 && !waitReady(o.endpoint, *wait) {
		fmt.Fprintln(os.Stderr, "soak: server not ready at", o.endpoint)
		os.Exit(1)
	}
	os.Exit(run(o))
}

func waitReady(endpoint string, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get(endpoint + "/health/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return true
			}
		}
	}
	return false
}

// stats are the run's counters.
type stats struct {
	requests atomic.Int64
	errors   atomic.Int64
	bytesIn  atomic.Int64
	bytesOut atomic.Int64
	ops      sync.Map // op name → *atomic.Int64
	mu       sync.Mutex
	samples  []string // first unexpected errors
}

func (s *stats) count(op string) {
	s.requests.Add(1)
	v, _ := s.ops.LoadOrStore(op, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

func (s *stats) fail(format string, args ...any) {
	n := s.errors.Add(1)
	if n <= 20 {
		s.mu.Lock()
		s.samples = append(s.samples, fmt.Sprintf(format, args...))
		s.mu.Unlock()
	}
}

func run(o options) int {
	ctx := context.Background()
	hc := awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
		tr.MaxIdleConns = 2 * o.workers
		tr.MaxIdleConnsPerHost = 2 * o.workers
	})
	c := s3.New(s3.Options{
		Region:           o.region,
		BaseEndpoint:     aws.String(o.endpoint),
		UsePathStyle:     true,
		Credentials:      credentials.NewStaticCredentialsProvider(o.accessKey, o.secretKey, ""),
		HTTPClient:       hc,
		RetryMaxAttempts: 1, // every failure is counted, none hidden by a retry
		Logger:           logging.Nop{},
	})
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(o.bucket)}); err != nil {
		if code, _ := errInfo(err); code != "BucketAlreadyOwnedByYou" {
			fmt.Fprintln(os.Stderr, "soak: create bucket:", err)
			return 1
		}
	}

	var st stats
	rssStart, _ := rss(o.pid)
	rssMax, rssWarm := rssStart, int64(0)
	start := time.Now()
	fmt.Printf("soak: %d workers for %v against %s (server pid %d, RSS %s)\n", o.workers, o.duration, o.endpoint, o.pid, mib(rssStart))

	// Workers start no request after the deadline and finish the ones in
	// flight, so the run ends without aborted requests.
	deadline := start.Add(o.duration)
	var wg sync.WaitGroup
	for i := range o.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{id: i, c: c, o: o, st: &st, rng: rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano()))),
				objects: map[string]object{}, mp: map[string]object{}}
			w.loop(ctx, deadline)
		}()
	}

	ticker := time.NewTicker(o.rssEvery)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	warmAt := start.Add(min(o.duration/5, time.Minute))
sampling:
	for {
		select {
		case <-done:
			break sampling
		case <-ticker.C:
			r, ok := rss(o.pid)
			if ok {
				rssMax = max(rssMax, r)
				if rssWarm == 0 && time.Now().After(warmAt) {
					rssWarm = r
				}
			}
			el := time.Since(start).Round(time.Second)
			fmt.Printf("soak: %6v  requests %9d  (%6.0f/s)  errors %d  RSS %s\n", el, st.requests.Load(),
				float64(st.requests.Load())/time.Since(start).Seconds(), st.errors.Load(), mib(r))
		}
	}
	ticker.Stop()
	elapsed := time.Since(start)
	rssEnd, _ := rss(o.pid)
	rssMax = max(rssMax, rssEnd)

	fmt.Printf("\nsoak: done after %v\n", elapsed.Round(time.Second))
	fmt.Printf("requests:   %d (%.0f/s), %.1f GiB sent, %.1f GiB received\n", st.requests.Load(),
		float64(st.requests.Load())/elapsed.Seconds(), float64(st.bytesOut.Load())/(1<<30), float64(st.bytesIn.Load())/(1<<30))
	var ops []string
	st.ops.Range(func(k, v any) bool {
		ops = append(ops, fmt.Sprintf("%s=%d", k, v.(*atomic.Int64).Load()))
		return true
	})
	slices.Sort(ops)
	fmt.Printf("operations: %s\n", strings.Join(ops, " "))
	fmt.Printf("errors:     %d unexpected\n", st.errors.Load())
	for _, s := range st.samples {
		fmt.Printf("  %s\n", s)
	}
	if o.pid != 0 {
		fmt.Printf("server RSS: start %s, after warm-up %s, max %s, end %s\n", mib(rssStart), mib(rssWarm), mib(rssMax), mib(rssEnd))
	}
	rc := 0
	if st.errors.Load() > 0 {
		fmt.Println("FAIL: unexpected errors")
		rc = 1
	}
	if o.pid != 0 && rssEnd-rssStart > o.rssGrowthMiB<<20 {
		fmt.Printf("FAIL: RSS grew by %s (more than %d MiB)\n", mib(rssEnd-rssStart), o.rssGrowthMiB)
		rc = 1
	}
	if rc == 0 {
		fmt.Println("PASS")
	}
	return rc
}

// rss reads VmRSS of pid in bytes.
func rss(pid int) (int64, bool) {
	if pid == 0 {
		return 0, false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) == 2 && f[1] == "kB" {
				n, err := strconv.ParseInt(f[0], 10, 64)
				return n << 10, err == nil
			}
		}
	}
	return 0, false
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func errInfo(err error) (string, int) {
	var code string
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code = ae.ErrorCode()
	}
	var re *smithyhttp.ResponseError
	status := 0
	if errors.As(err, &re) {
		status = re.HTTPStatusCode()
	}
	return code, status
}

// object is what a worker knows about one of its keys.
type object struct {
	size int64
	md5  string // hex
}

type worker struct {
	id      int
	c       *s3.Client
	o       options
	st      *stats
	rng     *rand.Rand
	objects map[string]object // simple objects it stored
	mp      map[string]object // multipart objects
}

func (w *worker) key(i int) string { return fmt.Sprintf("w%03d/k%03d", w.id, i) }

// size draws a body size: mostly small, some large, up to maxSize.
func (w *worker) size() int64 {
	switch p := w.rng.IntN(100); {
	case p < 60:
		return w.rng.Int64N(64 << 10)
	case p < 90:
		return w.rng.Int64N(min(1<<20, w.o.maxSize) + 1)
	default:
		return w.rng.Int64N(w.o.maxSize + 1)
	}
}

func (w *worker) body(n int64) []byte {
	b := make([]byte, n)
	for i := 0; i+8 <= len(b); i += 8 {
		v := w.rng.Uint64()
		for j := range 8 {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b
}

func md5hex(b []byte) string {
	s := md5.Sum(b)
	return hex.EncodeToString(s[:])
}

// check counts err, if any, as an unexpected error and reports whether
// the request succeeded.
func (w *worker) check(ctx context.Context, op, key string, err error) bool {
	if err == nil {
		return true
	}
	if ctx.Err() != nil {
		return false // the run ended mid-request
	}
	w.st.fail("%s %s: %v", op, key, err)
	return false
}

func (w *worker) loop(ctx context.Context, deadline time.Time) {
	for time.Now().Before(deadline) {
		key := w.key(w.rng.IntN(w.o.keysPerWorker))
		switch p := w.rng.IntN(100); {
		case p < 35:
			w.put(ctx, key)
		case p < 65:
			w.get(ctx, key)
		case p < 72:
			w.head(ctx, key)
		case p < 80:
			w.list(ctx)
		case p < 90:
			w.del(ctx, key)
		case p < 95:
			w.copy(ctx, key)
		default:
			w.multipart(ctx)
		}
	}
}

func (w *worker) put(ctx context.Context, key string) {
	b := w.body(w.size())
	w.st.count("put")
	out, err := w.c.PutObject(ctx, &s3.PutObjectInput{Bucket: &w.o.bucket, Key: &key, Body: bytes.NewReader(b)})
	if !w.check(ctx, "PUT", key, err) {
		delete(w.objects, key) // unknown state
		return
	}
	w.st.bytesOut.Add(int64(len(b)))
	sum := md5hex(b)
	if aws.ToString(out.ETag) != `"`+sum+`"` {
		w.st.fail("PUT %s: ETag %s, want %q", key, aws.ToString(out.ETag), sum)
	}
	w.objects[key] = object{int64(len(b)), sum}
	delete(w.mp, key)
}

// expected returns what key must hold, and whether it exists.
func (w *worker) expected(key string) (object, bool) {
	if o, ok := w.objects[key]; ok {
		return o, true
	}
	o, ok := w.mp[key]
	return o, ok
}

func (w *worker) get(ctx context.Context, key string) {
	want, exists := w.expected(key)
	in := &s3.GetObjectInput{Bucket: &w.o.bucket, Key: &key}
	ranged := exists && want.size > 10 && w.rng.IntN(4) == 0
	var first, last int64
	if ranged {
		first = w.rng.Int64N(want.size)
		last = first + w.rng.Int64N(want.size-first)
		in.Range = aws.String(fmt.Sprintf("bytes=%d-%d", first, last))
	}
	w.st.count("get")
	out, err := w.c.GetObject(ctx, in)
	if !exists {
		if code, status := errInfo(err); err == nil || code != "NoSuchKey" || status != http.StatusNotFound {
			if ctx.Err() == nil {
				w.st.fail("GET %s (deleted): %v", key, err)
			}
		}
		if err == nil {
			out.Body.Close()
		}
		return
	}
	if !w.check(ctx, "GET", key, err) {
		return
	}
	b, err := io.ReadAll(out.Body)
	out.Body.Close()
	if !w.check(ctx, "GET body", key, err) {
		return
	}
	w.st.bytesIn.Add(int64(len(b)))
	if ranged {
		if int64(len(b)) != last-first+1 {
			w.st.fail("GET %s range %d-%d: %d bytes", key, first, last, len(b))
		}
		return
	}
	if int64(len(b)) != want.size || md5hex(b) != want.md5 {
		w.st.fail("GET %s: %d bytes md5 %s, want %d bytes md5 %s", key, len(b), md5hex(b), want.size, want.md5)
	}
}

func (w *worker) head(ctx context.Context, key string) {
	want, exists := w.expected(key)
	w.st.count("head")
	out, err := w.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &w.o.bucket, Key: &key})
	if !exists {
		if _, status := errInfo(err); status != http.StatusNotFound && ctx.Err() == nil {
			w.st.fail("HEAD %s (deleted): %v", key, err)
		}
		return
	}
	if w.check(ctx, "HEAD", key, err) && aws.ToInt64(out.ContentLength) != want.size {
		w.st.fail("HEAD %s: size %d, want %d", key, aws.ToInt64(out.ContentLength), want.size)
	}
}

func (w *worker) list(ctx context.Context) {
	prefix := fmt.Sprintf("w%03d/", w.id)
	var got []string
	var token *string
	for {
		w.st.count("list")
		out, err := w.c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &w.o.bucket, Prefix: &prefix,
			ContinuationToken: token, MaxKeys: aws.Int32(int32(1 + w.rng.IntN(50)))})
		if !w.check(ctx, "LIST", prefix, err) {
			return
		}
		for _, o := range out.Contents {
			k := aws.ToString(o.Key)
			got = append(got, k)
			if want, ok := w.expected(k); !ok || want.size != aws.ToInt64(o.Size) {
				w.st.fail("LIST %s: %s size %d, expected %+v (exists %v)", prefix, k, aws.ToInt64(o.Size), want, ok)
			}
		}
		if !aws.ToBool(out.IsTruncated) {
			break
		}
		token = out.NextContinuationToken
	}
	var want []string
	for k := range w.objects {
		want = append(want, k)
	}
	for k := range w.mp {
		want = append(want, k)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		w.st.fail("LIST %s: %d keys, want %d", prefix, len(got), len(want))
	}
}

func (w *worker) del(ctx context.Context, key string) {
	w.st.count("delete")
	_, err := w.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &w.o.bucket, Key: &key})
	if w.check(ctx, "DELETE", key, err) {
		delete(w.objects, key)
		delete(w.mp, key)
	}
}

func (w *worker) copy(ctx context.Context, dst string) {
	src := w.key(w.rng.IntN(w.o.keysPerWorker))
	want, ok := w.objects[src]
	if !ok || src == dst {
		return
	}
	w.st.count("copy")
	_, err := w.c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: &w.o.bucket, Key: &dst, CopySource: aws.String(w.o.bucket + "/" + src)})
	if !w.check(ctx, "COPY", src+" → "+dst, err) {
		delete(w.objects, dst)
		delete(w.mp, dst)
		return
	}
	w.objects[dst] = want
	delete(w.mp, dst)
}

// multipart uploads an object of one 5 MiB part and a small last part,
// then sometimes aborts instead of completing.
func (w *worker) multipart(ctx context.Context) {
	key := fmt.Sprintf("w%03d/mp%d", w.id, w.rng.IntN(2))
	w.st.count("create-upload")
	up, err := w.c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &w.o.bucket, Key: &key})
	if !w.check(ctx, "CreateMultipartUpload", key, err) {
		return
	}
	bodies := [][]byte{w.body(5 << 20), w.body(w.rng.Int64N(1<<20) + 1)}
	var parts []types.CompletedPart
	for i, b := range bodies {
		w.st.count("upload-part")
		out, err := w.c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &w.o.bucket, Key: &key, UploadId: up.UploadId,
			PartNumber: aws.Int32(int32(i + 1)), Body: bytes.NewReader(b)})
		if !w.check(ctx, "UploadPart", key, err) {
			return
		}
		w.st.bytesOut.Add(int64(len(b)))
		parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: out.ETag})
	}
	if w.rng.IntN(5) == 0 {
		w.st.count("abort-upload")
		_, err := w.c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &w.o.bucket, Key: &key, UploadId: up.UploadId})
		w.check(ctx, "AbortMultipartUpload", key, err)
		return
	}
	w.st.count("complete-upload")
	_, err = w.c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &w.o.bucket, Key: &key, UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
	if !w.check(ctx, "CompleteMultipartUpload", key, err) {
		delete(w.mp, key)
		return
	}
	all := append(bytes.Clone(bodies[0]), bodies[1]...)
	w.mp[key] = object{int64(len(all)), md5hex(all)}
}
