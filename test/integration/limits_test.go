package integration

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// gatedBody blocks its reader until released, holding a request in flight.
type gatedBody struct {
	started chan struct{}
	release chan struct{}
	once    sync.Once
	sent    bool
}

func (g *gatedBody) Read(p []byte) (int, error) {
	g.once.Do(func() { close(g.started) })
	if g.sent {
		return 0, io.EOF
	}
	<-g.release
	g.sent = true
	p[0] = 'x'
	return 1, nil
}

func signedPut(t *testing.T, srv *testutil.Server, path string, body io.Reader, size int64) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = size
	itest.Sign(t, req, nil, itest.SignOpts{PayloadHash: "UNSIGNED-PAYLOAD"})
	return req
}

// waitTempFiles waits, a minute at most, until srv's tmp/ holds n files
// (uploads inside the blob writer; 0 once they ended), else fails with
// what.
func waitTempFiles(t *testing.T, srv *testutil.Server, n int, what string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		entries, _ := os.ReadDir(filepath.Join(srv.DataDir, "tmp"))
		if len(entries) == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d temp files, want %d", what, len(entries), n)
		}
	}
}

// TestMaxRequestsSlowDown holds the server at its request bound and checks
// that one more request is refused with 503 SlowDown at once, and that the
// server serves again once the held requests finish.
func TestMaxRequestsSlowDown(t *testing.T) {
	// Inline off: the test sees held uploads as files in tmp/.
	srv := testutil.StartServer(t, testutil.WithMaxRequests(2), testutil.WithFilesOnly())
	c := srv.AWSClient(t, func(o *s3.Options) { o.RetryMaxAttempts = 1 })
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("limits")}); err != nil {
		t.Fatal(err)
	}
	var gates []*gatedBody
	var wg sync.WaitGroup
	for i := range 2 {
		g := &gatedBody{started: make(chan struct{}), release: make(chan struct{})}
		gates = append(gates, g)
		req := signedPut(t, srv, fmt.Sprintf("/limits/held-%d", i), g, 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Errorf("held request: %v", err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("held request: %s", resp.Status)
			}
		}()
	}
	released := false
	release := func() {
		if !released {
			released = true
			for _, g := range gates {
				close(g.release)
			}
			wg.Wait()
		}
	}
	defer release() // also on failure: the server drains before it stops
	for _, g := range gates {
		<-g.started
	}
	// The held requests are inside the server, holding both slots, once
	// each has created its temp blob and waits for the rest of its body.
	// Watch the data dir, not the API: a probe request would take a slot.
	waitTempFiles(t, srv, 2, "the held requests never reached the server's blob writer")
	_, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("limits")})
	if got := itest.Code(err); got != "SlowDown" {
		t.Errorf("request beyond the bound: %v, want SlowDown", err)
	}
	release()
	if _, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("limits")}); err != nil {
		t.Fatalf("after the held requests finished: %v", err)
	}
}

// TestSlowlorisConnections holds 500 connections that send a partial request
// header and never finish it; the server must keep answering other clients.
func TestSlowlorisConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 500 connections")
	}
	srv := testutil.StartServer(t)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 500 {
		conn, err := net.Dial("tcp", srv.Addr)
		if err != nil {
			t.Fatalf("dial after %d connections: %v", len(conns), err)
		}
		if _, err := io.WriteString(conn, "GET /bucket/key HTTP/1.1\r\nHost: x\r\nX-Slow: "); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, conn)
	}
	c := srv.AWSClient(t)
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("alive")}); err != nil {
		t.Fatalf("server unresponsive with 500 slow connections open: %v", err)
	}
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("alive"), Key: aws.String("k"), Body: strings.NewReader("still here")}); err != nil {
		t.Fatal(err)
	}
}
