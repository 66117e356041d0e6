package integration

import (
	"context"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// awsHostRecorder records the Host of every request it forwards.
type awsHostRecorder struct {
	mu    sync.Mutex
	hosts []string
	next  http.RoundTripper
}

func (r *awsHostRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.hosts = append(r.hosts, req.URL.Host+" "+req.Method+" "+req.URL.EscapedPath())
	r.mu.Unlock()
	return r.next.RoundTrip(req)
}

func (r *awsHostRecorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.hosts)
}

func TestAWSVirtualHostedStyle(t *testing.T) {
	const domain = "s3.test.local"
	srv := testutil.StartServer(t, testutil.WithDomain(domain))
	_, port, err := net.SplitHostPort(srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	dialer := &net.Dialer{}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if host != domain && !strings.HasSuffix(host, "."+domain) {
			t.Errorf("dial to unexpected host %q", addr)
			return nil, &net.AddrError{Err: "unexpected host", Addr: addr}
		}
		return dialer.DialContext(ctx, network, srv.Addr)
	}
	rec := &awsHostRecorder{next: tr}
	c := itest.AWSClient(t, srv, func(o *s3.Options) {
		o.BaseEndpoint = aws.String("http://" + domain + ":" + port)
		o.UsePathStyle = false
		o.HTTPClient = &http.Client{Transport: rec}
	})
	ctx := context.Background()

	for _, b := range []string{"vhost", "dotted.bucket"} {
		itest.CreateBucket(t, c, b)
		if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
		keys := []string{"file.txt", "dir/sub dir/ü+x.bin", "/leading", "a//b"}
		for _, k := range keys {
			itest.Put(t, c, b, k, []byte(b+":"+k))
		}
		for _, k := range keys {
			itest.WantObject(t, c, b, k, []byte(b+":"+k))
		}
		out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(b)})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, o := range out.Contents {
			got = append(got, aws.ToString(o.Key))
		}
		if want := slices.Sorted(slices.Values(keys)); !slices.Equal(got, want) {
			t.Errorf("bucket %s lists %q, want %q", b, got, want)
		}
		if aws.ToString(out.Name) != b {
			t.Errorf("listing Name %q, want %q", aws.ToString(out.Name), b)
		}
		if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(b), Key: aws.String("file.txt")}); err != nil {
			t.Fatal(err)
		}
		itest.WantNoObject(t, c, b, "file.txt")
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("no-such"), Key: aws.String("k")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")

	// ListBuckets goes to the bare domain.
	lb, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lb.Buckets) != 2 {
		t.Errorf("ListBuckets: %d buckets", len(lb.Buckets))
	}

	// The requests really were virtual-hosted: bucket in the Host, not the path.
	hosts := rec.seen()
	var vhost, bare int
	for _, h := range hosts {
		switch {
		case strings.HasPrefix(h, "vhost."+domain+":"+port+" "), strings.HasPrefix(h, "dotted.bucket."+domain+":"+port+" "):
			vhost++
			if strings.Contains(h, " /vhost") || strings.Contains(h, " /dotted.bucket") {
				t.Errorf("virtual-hosted request repeats the bucket in the path: %s", h)
			}
		case strings.HasPrefix(h, domain+":"+port+" "):
			bare++
		}
	}
	if vhost < 20 || bare != 1 {
		t.Errorf("requests: %d virtual-hosted, %d to the bare domain (want >= 20 and 1): %q", vhost, bare, hosts)
	}

	// The same data through path-style addressing.
	pc := itest.AWSClient(t, srv)
	itest.WantObject(t, pc, "vhost", "dir/sub dir/ü+x.bin", []byte("vhost:dir/sub dir/ü+x.bin"))
	itest.WantObject(t, pc, "dotted.bucket", "/leading", []byte("dotted.bucket:/leading"))
}
