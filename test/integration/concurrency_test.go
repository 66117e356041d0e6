package integration

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"
	"github.com/minio/minio-go/v7"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/blob/disk"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// concAWSClient is an aws-sdk-go-v2 client that sends through rt and never
// retries, so every logical operation is exactly one HTTP exchange.
func concAWSClient(t testing.TB, srv *testutil.Server, rt http.RoundTripper) *s3.Client {
	return srv.AWSClient(t, func(o *s3.Options) {
		o.HTTPClient = &http.Client{Transport: rt}
		o.Retryer = aws.NopRetryer{}
		o.Logger = logging.Nop{}
	})
}

// concWorld is the shared record of a mixed-workload run.
type concWorld struct {
	written sync.Map // MD5 hex → size of every body any client tried to write
	ops     sync.Map // op name → *atomic.Int64
	mu      sync.Mutex
	fails   []string
}

func (w *concWorld) count(op string) {
	v, _ := w.ops.LoadOrStore(op, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

func (w *concWorld) fail(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fails = append(w.fails, fmt.Sprintf(format, args...))
}

// checkBody verifies a GET: the body hashes to the ETag served with it, has
// the announced length, and is a body some client wrote.
func (w *concWorld) checkBody(who, key string, body []byte, etag string, size int64) {
	sum := itest.MD5Hex(body)
	if sum != etag {
		w.fail("%s GET %s: body MD5 %s but ETag %s (%d bytes)", who, key, sum, etag, len(body))
	}
	if int64(len(body)) != size {
		w.fail("%s GET %s: %d bytes, Content-Length %d", who, key, len(body), size)
	}
	if n, ok := w.written.Load(sum); !ok || n.(int) != len(body) {
		w.fail("%s GET %s: body (MD5 %s, %d bytes) was never written by any client", who, key, sum, len(body))
	}
}

func TestConcurrencyMixed(t *testing.T) {
	const (
		workers  = 32
		maxOps   = 150
		maxTime  = 20 * time.Second
		nKeys    = 8
		maxSize  = 256 << 10
		bucketNm = "conc-mixed"
	)
	srv := testutil.StartServer(t)
	counter := itest.NewStatusCounter()
	awsc := concAWSClient(t, srv, counter)
	mc := itest.MinioClientWith(t, srv, counter)
	core := minio.Core{Client: mc}
	ctx := context.Background()
	if _, err := awsc.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucketNm)}); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, nKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("shared/key-%d", i)
	}

	var w concWorld
	deadline := time.Now().Add(maxTime)
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			useAWS := g%2 == 0
			who := fmt.Sprintf("worker %d (minio-go)", g)
			if useAWS {
				who = fmt.Sprintf("worker %d (aws-sdk)", g)
			}
			rng := rand.New(rand.NewPCG(uint64(g), 42))
			for op := 0; op < maxOps && time.Now().Before(deadline); op++ {
				key := keys[rng.IntN(nKeys)]
				seed := uint64(g)<<32 | uint64(op)
				switch r := rng.IntN(10); {
				case r < 4 || r == 9: // PUT, conditional when r == 9
					size := rng.IntN(maxSize + 1)
					if rng.IntN(8) == 0 {
						size = 0
					}
					body := itest.RandBytes(seed, size)
					w.written.Store(itest.MD5Hex(body), size)
					conditional := r == 9
					var err error
					if useAWS {
						in := &s3.PutObjectInput{Bucket: aws.String(bucketNm), Key: aws.String(key), Body: bytes.NewReader(body)}
						if conditional {
							in.IfNoneMatch = aws.String("*")
						}
						var out *s3.PutObjectOutput
						out, err = awsc.PutObject(ctx, in)
						if err == nil && aws.ToString(out.ETag) != `"`+itest.MD5Hex(body)+`"` {
							w.fail("%s PUT %s: ETag %s, want MD5 %s", who, key, aws.ToString(out.ETag), itest.MD5Hex(body))
						}
					} else {
						opts := minio.PutObjectOptions{DisableMultipart: true} // aws-chunked signed body
						if conditional {
							opts.SetMatchETagExcept("*")
						}
						var info minio.UploadInfo
						info, err = mc.PutObject(ctx, bucketNm, key, bytes.NewReader(body), int64(size), opts)
						if err == nil && info.ETag != itest.MD5Hex(body) {
							w.fail("%s PUT %s: ETag %s, want MD5 %s", who, key, info.ETag, itest.MD5Hex(body))
						}
					}
					code, status := itest.ErrInfo(err)
					switch {
					case err == nil:
						w.count("put-ok")
					case conditional && status == http.StatusPreconditionFailed && code == "PreconditionFailed":
						w.count("put-412")
					case conditional && status == http.StatusConflict && code == "ConditionalRequestConflict":
						w.count("put-409")
					default:
						w.fail("%s PUT %s (conditional %v, %d bytes): %v", who, key, conditional, size, err)
					}
					if conditional {
						w.count("put-conditional")
					}
				case r < 7: // GET
					var body []byte
					var etag string
					var size int64
					var err error
					if useAWS {
						var out *s3.GetObjectOutput
						out, err = awsc.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucketNm), Key: aws.String(key)})
						if err == nil {
							body, err = io.ReadAll(out.Body)
							out.Body.Close()
							etag, size = concTrimQuotes(aws.ToString(out.ETag)), aws.ToInt64(out.ContentLength)
						}
					} else {
						var rc io.ReadCloser
						var info minio.ObjectInfo
						rc, info, _, err = core.GetObject(ctx, bucketNm, key, minio.GetObjectOptions{})
						if err == nil {
							body, err = io.ReadAll(rc)
							rc.Close()
							etag, size = info.ETag, info.Size
						}
					}
					code, status := itest.ErrInfo(err)
					switch {
					case err == nil:
						w.count("get-ok")
						w.checkBody(who, key, body, etag, size)
					case status == http.StatusNotFound && code == "NoSuchKey":
						w.count("get-404")
					default:
						w.fail("%s GET %s: %v", who, key, err)
					}
				default: // DELETE
					var err error
					if useAWS {
						_, err = awsc.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucketNm), Key: aws.String(key)})
					} else {
						err = mc.RemoveObject(ctx, bucketNm, key, minio.RemoveObjectOptions{})
					}
					if err != nil {
						w.fail("%s DELETE %s: %v", who, key, err)
					} else {
						w.count("delete-ok")
					}
				}
			}
		}()
	}
	wg.Wait()

	var summary []string
	w.ops.Range(func(k, v any) bool {
		summary = append(summary, fmt.Sprintf("%s=%d", k, v.(*atomic.Int64).Load()))
		return true
	})
	slices.Sort(summary)
	t.Logf("%d HTTP exchanges in %v: %v", counter.Total.Load(), time.Since(deadline.Add(-maxTime)).Round(time.Millisecond), summary)
	if n := counter.ServerErrs.Load(); n != 0 {
		t.Errorf("%d responses were 5xx, e.g. %v", n, counter.FirstErrs())
	}
	// Final state: every remaining object is one some client wrote.
	inBlobs := 0 // objects larger than --inline-max: one blob file each
	var remaining []string
	for _, key := range keys {
		out, err := awsc.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucketNm), Key: aws.String(key)})
		if code, _ := itest.ErrInfo(err); code == "NoSuchKey" {
			continue
		}
		if err != nil {
			t.Fatalf("final GET %s: %v", key, err)
		}
		body, err := io.ReadAll(out.Body)
		out.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		w.checkBody("final", key, body, concTrimQuotes(aws.ToString(out.ETag)), aws.ToInt64(out.ContentLength))
		remaining = append(remaining, key)
		if len(body) > srv.Config.InlineMax {
			inBlobs++
		}
	}
	var listed []string
	for o := range mc.ListObjects(ctx, bucketNm, minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		listed = append(listed, o.Key)
	}
	if !slices.Equal(listed, remaining) {
		t.Errorf("listing %v, but GET finds %v", listed, remaining)
	}
	for i, f := range w.fails {
		if i == 30 {
			t.Errorf("... and %d more failures", len(w.fails)-30)
			break
		}
		t.Error(f)
	}

	// On disk, after a clean stop: one blob (a file, or a record in a pack)
	// per object above the inline size (smaller ones live in the
	// database), nothing in tmp/.
	srv.Stop()
	store, err := disk.Open(srv.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	var blobs []string
	if err := store.Walk(ctx, func(b blob.Info) error { blobs = append(blobs, b.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(blobs) != inBlobs {
		t.Errorf("the store holds %d blobs for %d objects above %d bytes: %v", len(blobs), inBlobs, srv.Config.InlineMax, blobs)
	}
	if tmp := concFiles(t, filepath.Join(srv.DataDir, "tmp")); len(tmp) != 0 {
		t.Errorf("tmp/ is not empty after a clean stop: %v", tmp)
	}
}

func concTrimQuotes(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

// concFiles lists the regular files under dir (relative paths).
func concFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestConcurrentConditionalCreate(t *testing.T) {
	const clients = 32
	// Blob files, to count what the losers leave behind.
	srv := testutil.StartServer(t, testutil.WithFilesOnly())
	counter := itest.NewStatusCounter()
	ctx := context.Background()
	awsClients := make([]*s3.Client, clients)
	for i := range awsClients {
		awsClients[i] = concAWSClient(t, srv, counter)
	}
	const bucket = "conc-create"
	if _, err := awsClients[0].CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	for round := range 5 {
		key := fmt.Sprintf("fresh-%d", round)
		bodies := make([][]byte, clients)
		errs := make([]error, clients)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range clients {
			bodies[i] = itest.RandBytes(uint64(round*clients+i), 1000+i*977)
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[i] = awsClients[i].PutObject(ctx, &s3.PutObjectInput{
					Bucket: aws.String(bucket), Key: aws.String(key),
					Body: bytes.NewReader(bodies[i]), IfNoneMatch: aws.String("*"),
				})
			}()
		}
		close(start)
		wg.Wait()
		winner := -1
		for i, err := range errs {
			if err == nil {
				if winner >= 0 {
					t.Errorf("round %d: clients %d and %d both created %s", round, winner, i, key)
				}
				winner = i
				continue
			}
			if code, status := itest.ErrInfo(err); status != http.StatusPreconditionFailed || code != "PreconditionFailed" {
				t.Errorf("round %d: client %d: %v, want 412 PreconditionFailed", round, i, err)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no client created %s", round, key)
		}
		out, err := awsClients[0].GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(out.Body)
		out.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, bodies[winner]) {
			t.Errorf("round %d: stored object (%d bytes) is not the winner's body (%d bytes)", round, len(got), len(bodies[winner]))
		}
	}
	if n := counter.ServerErrs.Load(); n != 0 {
		t.Errorf("%d responses were 5xx, e.g. %v", n, counter.FirstErrs())
	}
	srv.Stop()
	if blobs := concFiles(t, filepath.Join(srv.DataDir, "blobs")); len(blobs) != 5 {
		t.Errorf("blobs/ holds %d files for 5 objects: losers' blobs leaked? %v", len(blobs), blobs)
	}
	if tmp := concFiles(t, filepath.Join(srv.DataDir, "tmp")); len(tmp) != 0 {
		t.Errorf("tmp/ not empty: %v", tmp)
	}
}

func TestRestartRecovery(t *testing.T) {
	dir := t.TempDir()
	// Blob files only: recovery is about them.
	srv := testutil.StartServer(t, testutil.WithDataDir(dir), testutil.WithFilesOnly())
	c := srv.AWSClient(t, func(o *s3.Options) { o.Logger = logging.Nop{} })
	ctx := context.Background()
	const bucket = "recovery"
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	objects := map[string][]byte{
		"empty":       {},
		"small":       []byte("small object"),
		"dir/medium":  itest.RandBytes(1, 100_000),
		"dir/large":   itest.RandBytes(2, 3<<20),
		"overwritten": itest.RandBytes(3, 5000),
	}
	for k, b := range objects {
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(k), Body: bytes.NewReader(b)}); err != nil {
			t.Fatal(err)
		}
	}
	objects["overwritten"] = itest.RandBytes(4, 6000)
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("overwritten"), Body: bytes.NewReader(objects["overwritten"])}); err != nil {
		t.Fatal(err)
	}
	srv.Stop()

	blobsDir := filepath.Join(dir, "blobs")
	live := concFiles(t, blobsDir)
	if len(live) != 4 {
		t.Fatalf("after a clean stop blobs/ holds %v, want 4 blobs", live)
	}
	old := time.Now().Add(-time.Hour)
	// Referenced blobs that look old must survive recovery too.
	for _, p := range live {
		if err := os.Chtimes(filepath.Join(blobsDir, p), old, old); err != nil {
			t.Fatal(err)
		}
	}
	// Plant what a crash leaves: committed blobs no metadata refers to (one
	// in an existing fan-out dir, one in a new one) and temp files of
	// interrupted writes.
	plant := func(path string, mtime time.Time) string {
		if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("orphaned bytes"), 0o640); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return path
	}
	randID := func(prefix string) string {
		var b [16]byte
		crand.Read(b[:])
		return prefix + hex.EncodeToString(b[:])[len(prefix):]
	}
	realID := filepath.Base(live[0])
	planted := []string{
		plant(filepath.Join(blobsDir, "ab", "cd", randID("abcd")), old),
		plant(filepath.Join(blobsDir, realID[:2], realID[2:4], randID(realID[:4])), old),
		plant(filepath.Join(dir, "tmp", randID("")), old),
		plant(filepath.Join(dir, "tmp", randID("")), time.Now()), // interrupted just before the restart
	}

	srv2 := testutil.StartServer(t, testutil.WithDataDir(dir))
	// Temp files go before the server answers; orphans in the background.
	if tmp := concFiles(t, filepath.Join(dir, "tmp")); len(tmp) != 0 {
		t.Errorf("tmp/ once the server answers: %v", tmp)
	}
	select {
	case <-srv2.Swept:
	case <-time.After(time.Minute):
		t.Fatal("the orphan sweep of a few blobs has not ended after a minute")
	}
	for _, p := range planted {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("recovery left %s (stat: %v)", p, err)
		}
	}
	if tmp := concFiles(t, filepath.Join(dir, "tmp")); len(tmp) != 0 {
		t.Errorf("tmp/ after recovery: %v", tmp)
	}
	if got := concFiles(t, blobsDir); !slices.Equal(got, live) {
		t.Errorf("blobs/ after recovery: %v, want exactly the referenced %v", got, live)
	}
	c2 := srv2.AWSClient(t, func(o *s3.Options) { o.Logger = logging.Nop{} })
	for k, want := range objects {
		out, err := c2.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(k)})
		if err != nil {
			t.Fatalf("GET %s after restart: %v", k, err)
		}
		got, err := io.ReadAll(out.Body)
		out.Body.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("GET %s after restart: %d bytes (want %d), equal %v, %v", k, len(got), len(want), bytes.Equal(got, want), err)
		}
	}
}

func TestWALMode(t *testing.T) {
	srv := testutil.StartServer(t)
	c := srv.AWSClient(t, func(o *s3.Options) { o.Logger = logging.Nop{} })
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("wal")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("wal"), Key: aws.String("k"), Body: bytes.NewReader([]byte("v"))}); err != nil {
		t.Fatal(err)
	}
	srv.Stop()

	db, err := sql.Open("sqlite", "file:"+filepath.Join(srv.DataDir, "jog.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Errorf("journal_mode = %q, want wal", mode)
	}
	var version int
	if err := db.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version < 1 {
		t.Errorf("user_version = %d, want >= 1 (migrations applied)", version)
	}
	var check string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check = %q, %v", check, err)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM objects").Scan(&n); err != nil || n != 1 {
		t.Errorf("objects rows = %d, %v; want 1", n, err)
	}
}
