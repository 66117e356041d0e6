package integration

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/internal/testutil/pgtest"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestVersioningToggledUnderWrites: while one client switches a bucket's
// versioning between Enabled and Suspended as fast as it can, three
// others PUT and DELETE (unconditional, no version ID) their own keys.
// No call fails — S3 answers 409 ConditionalRequestConflict to
// conditional writes only, and SDKs do not retry it — and nothing is
// lost: every version and delete marker a call reported is listed
// afterwards, and each key holds what its last call left.
func TestVersioningToggledUnderWrites(t *testing.T) {
	srv, c := itest.StartBucket(t, "toggle", testutil.WithoutFsync())
	toggleUnderWrites(t, srv, c, "toggle")
}

// TestVersioningToggledUnderWritesPostgres is the same with the metadata in
// PostgreSQL, whose stores keep a hint of the bucket's state.
func TestVersioningToggledUnderWritesPostgres(t *testing.T) {
	url := pgtest.Own(t).NewDatabase(t)
	srv, c := itest.StartBucket(t, "toggle", testutil.WithoutFsync(), func(cfg *config.Config) { cfg.Meta = url })
	toggleUnderWrites(t, srv, c, "toggle")
}

func toggleUnderWrites(t *testing.T, srv *testutil.Server, c *s3.Client, bucket string) {
	const workers, calls = 3, 150
	ctx := context.Background()
	// The writers' SDK retries nothing: a 503 would be hidden by a retry.
	w := itest.AWSClient(t, srv, func(o *s3.Options) { o.RetryMaxAttempts = 1 })
	var done atomic.Bool
	var toggles atomic.Int64
	toggled := make(chan error, 1)
	go func() {
		states := []types.BucketVersioningStatus{types.BucketVersioningStatusEnabled, types.BucketVersioningStatusSuspended}
		for i := 0; !done.Load(); i++ {
			_, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(bucket),
				VersioningConfiguration: &types.VersioningConfiguration{Status: states[i%2]}})
			if err != nil {
				toggled <- err
				return
			}
			toggles.Add(1)
		}
		toggled <- nil
	}()
	var mu sync.Mutex
	var failures []string
	reported := map[string]bool{} // key@version of every non-null version and marker a call returned
	last := make([]string, workers)
	var wg sync.WaitGroup
	for n := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := fmt.Sprintf("k%d", n)
			for i := range calls {
				var vid string
				var err error
				if i%2 == 0 {
					body := fmt.Sprintf("%s-%d", key, i)
					var out *s3.PutObjectOutput
					if out, err = w.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body)}); err == nil {
						vid, last[n] = aws.ToString(out.VersionId), body
					}
				} else {
					var out *s3.DeleteObjectOutput
					if out, err = w.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}); err == nil {
						vid, last[n] = aws.ToString(out.VersionId), ""
					}
				}
				mu.Lock()
				if err != nil {
					failures = append(failures, fmt.Sprintf("%s call %d: %v", key, i, err))
				} else if vid != "" && vid != "null" {
					reported[key+"@"+vid] = true
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	done.Store(true)
	if err := <-toggled; err != nil {
		t.Fatalf("PutBucketVersioning: %v", err)
	}
	if len(failures) > 0 {
		t.Errorf("%d of %d unconditional calls failed (over %d versioning changes), first: %s", len(failures), workers*calls, toggles.Load(), failures[0])
	}
	listed := map[string]bool{}
	for _, v := range versionsOf(t, srv, c, bucket, 1000) {
		listed[strings.TrimSuffix(strings.TrimSuffix(v, "*"), "(DM)")] = true
	}
	for kv := range reported {
		if !listed[kv] {
			t.Errorf("version %s, reported by its call, is not listed", kv)
		}
	}
	for w, want := range last {
		key := fmt.Sprintf("k%d", w)
		if want == "" {
			itest.WantNoObject(t, c, bucket, key)
		} else {
			itest.WantObject(t, c, bucket, key, []byte(want))
		}
	}
	t.Logf("%d calls, %d versioning changes, %d versions reported", workers*calls, toggles.Load(), len(reported))
}
