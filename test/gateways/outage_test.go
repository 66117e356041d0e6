package gateways

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/internal/testutil/pgtest"
)

// TestPostgresOutage (issue 42, item 23): PostgreSQL stops under a
// running gateway. While it is down, S3 requests that need the metadata
// are answered 503 ServiceUnavailable with a Retry-After, not 500; the
// log says so in single lines, at most a few of them however many
// requests fail; once PostgreSQL is back, requests succeed and the log
// says the store is serving again.
func TestPostgresOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("a gateway over PostgreSQL, stopped and started")
	}
	tmp := t.TempDir()
	bin := testutil.BuildJog(t, tmp)
	cluster := pgtest.Own(t)
	meta := cluster.NewDatabase(t)
	g := testutil.StartJog(t, bin, nil, "--data-dir", tmp+"/data", "--meta", meta, "--access-key", accessKey,
		"--secret-key", secretKey, "--region", region)
	c := g.Client(region, accessKey, secretKey)
	one := func(o *s3.Options) { o.RetryMaxAttempts = 1 } // every answer seen, none retried
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("outage")}); err != nil {
		t.Fatal(err)
	}
	put := func() error {
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("outage"), Key: aws.String("k"),
			Body: strings.NewReader("during")}, one)
		return err
	}
	if err := put(); err != nil {
		t.Fatal(err)
	}

	cluster.Halt(t)
	before := len(g.Log.String())
	requests := map[string]func() error{
		"PutObject": put,
		"GetObject": func() error {
			_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("outage"), Key: aws.String("k")}, one)
			return err
		},
		"ListObjectsV2": func() error {
			_, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("outage")}, one)
			return err
		},
	}
	// Requests for 8 seconds, over 8 of the background components' polls
	// (the reservations' activator reads the store every second): the log
	// must not grow with them.
	failed := 0
	for end := time.Now().Add(8 * time.Second); time.Now().Before(end); {
		for name, req := range requests {
			if !wantUnavailable(t, name, req()) {
				t.Fatalf("log:\n%s", g.Log)
			}
			failed++
		}
		time.Sleep(20 * time.Millisecond)
	}
	during := g.Log.String()[before:]
	var loud []string
	for _, l := range strings.Split(strings.TrimSpace(during), "\n") {
		if strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
			loud = append(loud, l)
		}
	}
	// The outage's first line, another each time a connection still
	// answered while PostgreSQL shut down; the console's one line about
	// sign-outs.
	if len(loud) > 5 || !strings.Contains(during, "unreachable") {
		t.Errorf("%d requests failed in the outage; the log has %d WARN or ERROR lines, want at most 5, one saying the store is unreachable:\n%s",
			failed, len(loud), during)
	}
	if strings.Contains(during, `\n`) {
		t.Errorf("a line of the outage's log holds a line break:\n%s", during)
	}

	cluster.Resume(t)
	resumed := len(g.Log.String())
	deadline := time.Now().Add(time.Minute)
	for err := put(); err != nil; err = put() {
		if time.Now().After(deadline) {
			t.Fatalf("PutObject still fails a minute after PostgreSQL restarted: %v\n%s", err, g.Log)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for name, req := range requests {
		if err := req(); err != nil {
			t.Errorf("%s after PostgreSQL restarted: %v", name, err)
		}
	}
	if after := g.Log.String()[resumed:]; !strings.Contains(after, "serving again") {
		t.Errorf("no \"serving again\" in the log after PostgreSQL restarted:\n%s", after)
	}
}

// wantUnavailable checks that err is a 503 ServiceUnavailable answer with
// a Retry-After of whole seconds.
func wantUnavailable(t *testing.T, name string, err error) bool {
	t.Helper()
	var re *awshttp.ResponseError
	if !errors.As(err, &re) {
		t.Errorf("%s while PostgreSQL is down: %v, want a 503 answer", name, err)
		return false
	}
	var ae smithy.APIError
	code := ""
	if errors.As(err, &ae) {
		code = ae.ErrorCode()
	}
	ra := re.Response.Header.Get("Retry-After")
	if re.HTTPStatusCode() != http.StatusServiceUnavailable || code != "ServiceUnavailable" {
		t.Errorf("%s while PostgreSQL is down: HTTP %d %s, want 503 ServiceUnavailable (%v)", name, re.HTTPStatusCode(), code, err)
		return false
	}
	if n, err := strconv.Atoi(ra); err != nil || n <= 0 {
		t.Errorf("%s while PostgreSQL is down: Retry-After %q, want whole seconds", name, ra)
		return false
	}
	return true
}
