package replication

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/manager"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/test/integration/itest"
)

// acked is what the source acknowledged: the versions it said it wrote
// (their bytes' SHA-256 and ETag), the delete markers it made, and the
// versions it said it removed.
type acked struct {
	mu      sync.Mutex
	puts    map[string]put    // version ID → the version
	markers map[string]string // version ID → key
	removed map[string]string // version ID → key
	// removing are the versions a delete was sent for: one the answer
	// never came for (a kill) may be gone or not.
	removing map[string]bool
	errs     int // requests that failed (not acknowledged)
}

type put struct {
	key, etag string
	sum       [32]byte
}

func newAcked() *acked {
	return &acked{puts: map[string]put{}, markers: map[string]string{}, removed: map[string]string{}, removing: map[string]bool{}}
}

// some returns one acknowledged version of key, "" for none.
func (a *acked) some(rng *rand.Rand, key string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var ids []string
	for id, p := range a.puts {
		if p.key == key {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	return ids[rng.IntN(len(ids))]
}

func (a *acked) count() (puts, markers, removed int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.puts), len(a.markers), len(a.removed)
}

// writers runs n writers against bucket through c until ctx ends or a
// request fails (the server was killed): overwrites of a few keys, delete
// markers, deletes of acknowledged versions and, by writer 0 once, a
// multipart upload of two parts. Each acknowledged change goes to a.
func writers(ctx context.Context, c *s3.Client, bucket string, n int, seed uint64, a *acked) {
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			if w == 0 {
				if err := multipart(ctx, c, bucket, rng, a); err != nil {
					a.fail(ctx)
					return
				}
			}
			for ctx.Err() == nil {
				if err := step(ctx, c, bucket, rng, a); err != nil {
					a.fail(ctx)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// fail counts a failed request, unless ctx ended it.
func (a *acked) fail(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	a.mu.Lock()
	a.errs++
	a.mu.Unlock()
}

// step makes one change to one of six keys.
func step(ctx context.Context, c *s3.Client, bucket string, rng *rand.Rand, a *acked) error {
	key := fmt.Sprintf("k%d", rng.IntN(6))
	switch r := rng.IntN(10); {
	case r < 6:
		return a.put(ctx, c, bucket, key, itest.RandBytes(rng.Uint64(), rng.IntN(40<<10)))
	case r < 8:
		out, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if err != nil {
			return err
		}
		a.mu.Lock()
		a.markers[aws.ToString(out.VersionId)] = key
		a.mu.Unlock()
	default:
		id := a.some(rng, key)
		if id == "" {
			return nil
		}
		a.mu.Lock()
		a.removing[id] = true
		a.mu.Unlock()
		if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), VersionId: aws.String(id)}); err != nil {
			return err
		}
		a.mu.Lock()
		a.removed[id] = key
		a.mu.Unlock()
	}
	return nil
}

// put writes body to key and records it once acknowledged.
func (a *acked) put(ctx context.Context, c *s3.Client, bucket, key string, body []byte) error {
	out, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body)})
	if err != nil {
		return err
	}
	a.mu.Lock()
	a.puts[aws.ToString(out.VersionId)] = put{key: key, etag: aws.ToString(out.ETag), sum: sha256.Sum256(body)}
	a.mu.Unlock()
	return nil
}

// multipart uploads a version of "big" in two parts (5 MiB and a few KiB).
func multipart(ctx context.Context, c *s3.Client, bucket string, rng *rand.Rand, a *acked) error {
	body := itest.RandBytes(rng.Uint64(), 5<<20+rng.IntN(8<<10))
	up := manager.NewUploader(c, func(u *manager.Uploader) { u.PartSize = 5 << 20; u.Concurrency = 1 })
	out, err := up.Upload(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("big"), Body: bytes.NewReader(body)})
	if err != nil {
		return err
	}
	a.mu.Lock()
	a.puts[aws.ToString(out.VersionID)] = put{key: "big", etag: aws.ToString(out.ETag), sum: sha256.Sum256(body)}
	a.mu.Unlock()
	return nil
}

// verify waits until the destination's versions of dstBucket equal the
// source's of srcBucket (IDs, order, ETags, sizes, markers) and every
// version on the source is COMPLETED (a version delete is queued before it
// commits: a kill between the two loses none, answered or not); then checks
// that every acknowledged write (but those an unanswered delete was sent
// for, which may or may not have gone on both) and delete marker is there, every acknowledged version delete is not, and every version's bytes have the same SHA-256 on both (the
// acknowledged ones: the bytes written).
func verify(t *testing.T, src, dst *s3.Client, srcBucket, dstBucket string, a *acked) {
	t.Helper()
	rows := itest.WaitReplicated(t, src, dst, srcBucket, dstBucket)
	deadline := time.Now().Add(90 * time.Second)
	for _, r := range rows {
		if r.Marker {
			continue
		}
		for s := itest.ReplicationStatus(t, src, srcBucket, r.Key, r.VersionID); s != "COMPLETED"; s = itest.ReplicationStatus(t, src, srcBucket, r.Key, r.VersionID) {
			if time.Now().After(deadline) {
				t.Fatalf("source %v: replication status %q, want COMPLETED", r, s)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	byID := map[string]itest.VersionRow{}
	for _, r := range rows {
		byID[r.VersionID] = r
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, p := range a.puts {
		r, ok := byID[id]
		_, gone := a.removed[id]
		switch {
		case gone && ok:
			t.Errorf("%s@%s: removed (acknowledged), still listed", p.key, id)
		case !gone && !ok && !a.removing[id]:
			t.Errorf("%s@%s: written (acknowledged), missing", p.key, id)
		case ok && (r.Key != p.key || r.Marker || r.ETag != p.etag):
			t.Errorf("%s@%s: written with ETag %s, listed as %v", p.key, id, p.etag, r)
		}
	}
	for id, key := range a.markers {
		if r, ok := byID[id]; !ok || !r.Marker || r.Key != key {
			t.Errorf("%s@%s: delete marker (acknowledged), listed as %v (present: %v)", key, id, r, ok)
		}
	}
	for _, r := range rows {
		if r.Marker {
			continue
		}
		s, d := sum(t, src, srcBucket, r), sum(t, dst, dstBucket, r)
		if s != d {
			t.Errorf("%v: SHA-256 %x on the source, %x on the destination", r, s, d)
		}
		if p, ok := a.puts[r.VersionID]; ok && p.sum != s {
			t.Errorf("%v: SHA-256 %x, written %x", r, s, p.sum)
		}
	}
}

// sum is the SHA-256 of version r's bytes in bucket.
func sum(t *testing.T, c *s3.Client, bucket string, r itest.VersionRow) [32]byte {
	t.Helper()
	out, err := c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(r.Key), VersionId: aws.String(r.VersionID)})
	if err != nil {
		t.Fatalf("GET %v: %v", r, err)
	}
	defer out.Body.Close()
	h := sha256.New()
	if _, err := io.Copy(h, out.Body); err != nil {
		t.Fatalf("GET %v: %v", r, err)
	}
	return [32]byte(h.Sum(nil))
}
