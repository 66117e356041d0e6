package integration

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/jogstore/jog/internal/testutil"
)

// slowReader yields size bytes in small pieces, signalling after the first.
type slowReader struct {
	left    int
	started chan struct{}
	once    bool
}

func (r *slowReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	if !r.once {
		r.once = true
		close(r.started)
	}
	time.Sleep(20 * time.Millisecond)
	n := min(len(p), r.left, 64<<10)
	for i := range p[:n] {
		p[i] = byte(r.left - i)
	}
	r.left -= n
	return n, nil
}

// TestGracefulShutdownDrains stops the server while an upload is streaming:
// the upload must complete and be readable after a restart on the same data.
func TestGracefulShutdownDrains(t *testing.T) {
	dir := t.TempDir()
	// Packs off: the test sees the upload arrive as a file in tmp/.
	srv := testutil.StartServer(t, testutil.WithDataDir(dir), testutil.WithPackMax(0))
	c := srv.AWSClient(t)
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("drain")}); err != nil {
		t.Fatal(err)
	}
	const size = 1 << 20
	body := &slowReader{left: size, started: make(chan struct{})}
	var want bytes.Buffer
	_, _ = io.Copy(&want, &slowReader{left: size, started: make(chan struct{})})
	sum := md5.Sum(want.Bytes())

	// A raw UNSIGNED-PAYLOAD request: the SDKs insist on seekable bodies
	// (or aws-chunked) over plain HTTP.
	req, err := http.NewRequest(http.MethodPut, srv.URL+"/drain/slow", body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = size
	req.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
	creds := aws.Credentials{AccessKeyID: testutil.AccessKey, SecretAccessKey: testutil.SecretKey}
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, "UNSIGNED-PAYLOAD", "s3", testutil.Region, time.Now()); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("status %s", resp.Status)
			}
		}
		done <- err
	}()
	<-body.started
	// Wait until the server is inside the handler, writing the blob: the
	// request is then in flight, not merely queued on the listener.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if entries, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(entries) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("upload never reached the server's blob writer")
		}
	}
	srv.Stop() // returns only when in-flight requests have drained
	if err := <-done; err != nil {
		t.Fatalf("upload in flight during shutdown failed: %v", err)
	}

	srv2 := testutil.StartServer(t, testutil.WithDataDir(dir))
	out, err := srv2.AWSClient(t).GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("drain"), Key: aws.String("slow")})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Body.Close()
	got, _ := io.ReadAll(out.Body)
	if !bytes.Equal(got, want.Bytes()) || aws.ToString(out.ETag) != `"`+hex.EncodeToString(sum[:])+`"` {
		t.Fatalf("object after drain: %d bytes, etag %s; want %d bytes", len(got), aws.ToString(out.ETag), size)
	}
}
