package integration

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/cli"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// quotaOf reads a bucket's quota and usage (GET ?quota).
func quotaOf(t *testing.T, srv *testutil.Server, bucket string) (quota, used int64) {
	t.Helper()
	resp, body := rsvCall(t, srv, "", "GET", "/"+bucket+"?quota", nil, nil)
	var q struct{ QuotaBytes, UsedBytes int64 }
	if err := xml.Unmarshal(body, &q); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET ?quota: %s %s", resp.Status, body)
	}
	return q.QuotaBytes, q.UsedBytes
}

// TestBucketQuota: a quota set at CreateBucket refuses PutObject,
// UploadPart, CompleteMultipartUpload and CopyObject past it, storing
// nothing; ?quota changes and removes it; the usage is exact after a
// restart, and jog fsck agrees with it.
func TestBucketQuota(t *testing.T) {
	dir := t.TempDir()
	opts := []testutil.Option{testutil.WithDataDir(dir), testutil.WithoutFsync(), testutil.WithInlineMax(0)}
	srv := testutil.StartServer(t, opts...)
	c := itest.AWSClient(t, srv)
	ctx := context.Background()
	resp, body := rsvCall(t, srv, "", "PUT", "/qbk", nil, map[string]string{"x-jog-bucket-quota": "1KiB"})
	if resp.StatusCode != 200 {
		t.Fatalf("CreateBucket with a quota: %s %s", resp.Status, body)
	}
	resp, body = rsvCall(t, srv, "", "PUT", "/qbad", nil, map[string]string{"x-jog-bucket-quota": "lots"})
	itest.WantRawErr(t, resp, body, http.StatusBadRequest, "InvalidArgument")
	if q, used := quotaOf(t, srv, "qbk"); q != 1024 || used != 0 {
		t.Fatalf("quota %d, used %d; want 1024, 0", q, used)
	}
	itest.Put(t, c, "qbk", "a", bytes.Repeat([]byte("a"), 600))
	_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("qbk"), Key: aws.String("b"), Body: bytes.NewReader(make([]byte, 425))})
	itest.WantErr(t, err, http.StatusForbidden, "QuotaExceeded")
	itest.WantNoObject(t, c, "qbk", "b")
	itest.Put(t, c, "qbk", "b", make([]byte, 424)) // exactly the quota
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("qbk"), Key: aws.String("copy"), CopySource: aws.String("qbk/b")})
	itest.WantErr(t, err, http.StatusForbidden, "QuotaExceeded")
	itest.WantNoObject(t, c, "qbk", "copy")
	// An overwrite that fits after replacing passes.
	itest.Put(t, c, "qbk", "a", make([]byte, 100))
	if _, used := quotaOf(t, srv, "qbk"); used != 524 {
		t.Errorf("used %d after the overwrite, want 524", used)
	}

	// Multipart: a part that the upload's parts cannot fit is refused;
	// a completion that no longer fits is refused and the upload stays.
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("qbk"), Key: aws.String("mp")})
	if err != nil {
		t.Fatal(err)
	}
	part := func(n int32, size int) (*s3.UploadPartOutput, error) {
		return c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("qbk"), Key: aws.String("mp"), UploadId: up.UploadId,
			PartNumber: aws.Int32(n), Body: bytes.NewReader(make([]byte, size))})
	}
	p1, err := part(1, 300)
	if err != nil {
		t.Fatal(err)
	}
	_, err = part(2, 201)
	itest.WantErr(t, err, http.StatusForbidden, "QuotaExceeded")
	itest.Put(t, c, "qbk", "c", make([]byte, 201)) // 725 used: the upload's 300 no longer fit
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("qbk"), Key: aws.String("mp"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: p1.ETag}}}})
	itest.WantErr(t, err, http.StatusForbidden, "QuotaExceeded")
	itest.WantNoObject(t, c, "qbk", "mp")
	// Raise the quota: the completion fits.
	resp, body = rsvCall(t, srv, "", "PUT", "/qbk?quota", []byte("<BucketQuota><QuotaBytes>2048</QuotaBytes></BucketQuota>"), nil)
	if resp.StatusCode != 200 {
		t.Fatalf("PUT ?quota: %s %s", resp.Status, body)
	}
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("qbk"), Key: aws.String("mp"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: p1.ETag}}}}); err != nil {
		t.Fatalf("complete under the raised quota: %v", err)
	}
	if q, used := quotaOf(t, srv, "qbk"); q != 2048 || used != 1025 {
		t.Errorf("quota %d, used %d; want 2048, 1025", q, used)
	}
	// Deletes free room.
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("qbk"), Key: aws.String("c")}); err != nil {
		t.Fatal(err)
	}
	// Removed: no limit.
	resp, _ = rsvCall(t, srv, "", "DELETE", "/qbk?quota", nil, nil)
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE ?quota: %s", resp.Status)
	}
	itest.Put(t, c, "qbk", "big", make([]byte, 4096))
	if q, used := quotaOf(t, srv, "qbk"); q != 0 || used != 824+4096 {
		t.Errorf("quota %d, used %d; want 0, %d", q, used, 824+4096)
	}

	// A restart keeps usage exact; fsck checks it.
	srv.Stop()
	var out, errOut bytes.Buffer
	if code := cli.Run(ctx, []string{"fsck", "--data-dir", dir}, &out, &errOut); code != 0 {
		t.Errorf("jog fsck: exit %d: %s %s", code, out.String(), errOut.String())
	}
	srv = testutil.StartServer(t, opts...)
	if _, used := quotaOf(t, srv, "qbk"); used != 824+4096 {
		t.Errorf("used %d after a restart, want %d", used, 824+4096)
	}
	// The object count (the console's buckets list shows it): a, b, mp
	// and big; the refused writes and the deleted c are not there.
	resp, body = rsvCall(t, srv, "", "GET", "/qbk?quota", nil, nil)
	var q struct{ ObjectCount int64 }
	if err := xml.Unmarshal(body, &q); err != nil || q.ObjectCount != 4 || resp.Header.Get("X-Jog-Bucket-Objects") != "4" {
		t.Errorf("GET ?quota: ObjectCount %d (%v), header %q; want 4: %s", q.ObjectCount, err, resp.Header.Get("X-Jog-Bucket-Objects"), body)
	}
}

// TestBucketQuotaConcurrent: 32 writers put objects into a bucket whose
// quota holds exactly some of them (never exceeded), then into one whose
// quota holds exactly all of them (never falsely refused).
func TestBucketQuotaConcurrent(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithoutFsync(), testutil.WithInlineMax(0))
	c := itest.PooledAWSClient(t, srv, 32)
	ctx := context.Background()
	const writers, each, size = 32, 3, 1000
	for _, tc := range []struct {
		bucket string
		fit    int
	}{{"qtight", 50}, {"qexact", writers * each}} {
		resp, body := rsvCall(t, srv, "", "PUT", "/"+tc.bucket, nil, map[string]string{"x-jog-bucket-quota": fmt.Sprint(tc.fit * size)})
		if resp.StatusCode != 200 {
			t.Fatalf("create %s: %s %s", tc.bucket, resp.Status, body)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		passed, refused := 0, 0
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(tc.bucket), Key: aws.String(fmt.Sprintf("w%02d-%d", w, i)),
						Body: bytes.NewReader(make([]byte, size))})
					mu.Lock()
					switch code := itest.Code(err); {
					case err == nil:
						passed++
					case code == "QuotaExceeded":
						refused++
					default:
						t.Errorf("PutObject: %v", err)
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if passed != tc.fit || refused != writers*each-tc.fit {
			t.Errorf("%s: %d passed, %d refused; want %d and %d", tc.bucket, passed, refused, tc.fit, writers*each-tc.fit)
		}
		if _, used := quotaOf(t, srv, tc.bucket); used != int64(tc.fit*size) {
			t.Errorf("%s: used %d, want %d", tc.bucket, used, tc.fit*size)
		}
	}
}
