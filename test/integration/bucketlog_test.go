package integration

import (
	"context"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/s3api"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// withBucketLogInterval sets --bucket-log-interval.
func withBucketLogInterval(d time.Duration) testutil.Option {
	return func(c *config.Config) { c.BucketLogInterval = d }
}

// s3LogRecord matches a record of S3's server access log format, its
// fields captured in order (quoted ones without their quotes).
var s3LogRecord = regexp.MustCompile(`^(\S+) (\S+) \[([^\]]+)\] (\S+) (\S+) (\S+) (\S+) (\S+) "((?:[^"\\]|\\.)*)" (\d{3}) (\S+) (\S+) (\S+) (\S+) (\S+) "((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)" (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+)$`)

// logRecord is a parsed record: the fields the tests look at.
type logRecord struct {
	owner, bucket, time, remote, requester, id, op, key, uri, status, code, sent, size string
	userAgent, hostID, sigVersion, authType, host                                      string
}

func parseS3Log(t *testing.T, body string) []logRecord {
	t.Helper()
	var out []logRecord
	for _, line := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		m := s3LogRecord.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("not a server access log record: %q", line)
			continue
		}
		out = append(out, logRecord{owner: m[1], bucket: m[2], time: m[3], remote: m[4], requester: m[5], id: m[6],
			op: m[7], key: m[8], uri: m[9], status: m[10], code: m[11], sent: m[12], size: m[13],
			userAgent: m[17], hostID: m[19], sigVersion: m[20], authType: m[22], host: m[23]})
	}
	return out
}

// requestID is the x-amz-request-id of a call's answer or error.
func requestID(t *testing.T, md middleware.Metadata, err error) string {
	t.Helper()
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.ServiceRequestID()
	}
	if err != nil {
		t.Fatal(err)
	}
	id, ok := awsmiddleware.GetRequestIDMetadata(md)
	if !ok || id == "" {
		t.Fatal("no request ID in the answer")
	}
	return id
}

// waitLogRecords lists target's log objects under prefix until their
// records name every one of ids (20 s at most), and returns the records
// and the object keys.
func waitLogRecords(t *testing.T, c *s3.Client, target, prefix string, ids ...string) ([]logRecord, []string) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var recs []logRecord
		var keys []string
		out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(target), Prefix: aws.String(prefix)})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range out.Contents {
			keys = append(keys, aws.ToString(o.Key))
			body, _ := itest.Get(t, c, target, aws.ToString(o.Key))
			recs = append(recs, parseS3Log(t, string(body))...)
		}
		missing := 0
		for _, id := range ids {
			if findRecord(recs, id) == nil {
				missing++
			}
		}
		if missing == 0 {
			return recs, keys
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d requests not in %s/%s after 20 s (objects %v)", missing, len(ids), target, prefix, keys)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func findRecord(recs []logRecord, id string) *logRecord {
	for i := range recs {
		if recs[i].id == id {
			return &recs[i]
		}
	}
	return nil
}

// TestBucketLogging: PutBucketLogging validates as S3 (the target must
// exist), GetBucketLogging returns what was set; requests on the bucket
// are spooled, survive a restart before their delivery, and arrive in the
// target bucket as objects named prefix + date + unique string, in S3's
// log format, one record per request.
func TestBucketLogging(t *testing.T) {
	srv := testutil.StartServer(t, withBucketLogInterval(time.Hour))
	c := srv.AWSClient(t)
	ctx := context.Background()
	itest.CreateBucket(t, c, "logsrc")
	itest.CreateBucket(t, c, "logdst")

	got, err := c.GetBucketLogging(ctx, &s3.GetBucketLoggingInput{Bucket: aws.String("logsrc")})
	if err != nil || got.LoggingEnabled != nil {
		t.Fatalf("logging of a new bucket: %+v, %v", got.LoggingEnabled, err)
	}
	_, err = c.PutBucketLogging(ctx, &s3.PutBucketLoggingInput{Bucket: aws.String("logsrc"), BucketLoggingStatus: &types.BucketLoggingStatus{
		LoggingEnabled: &types.LoggingEnabled{TargetBucket: aws.String("no-such-target"), TargetPrefix: aws.String("x/")}}})
	itest.WantErr(t, err, 400, "InvalidTargetBucketForLogging")
	for body, want := range map[string]string{
		`<BucketLoggingStatus><LoggingEnabled><TargetBucket>logdst</TargetBucket></LoggingEnabled></BucketLoggingStatus>`: "MalformedXML",
		`<BucketLoggingStatus><LoggingEnabled><TargetPrefix>p/</TargetPrefix></LoggingEnabled></BucketLoggingStatus>`:     "MalformedXML",
		`<Other/>`: "MalformedXML",
		`<BucketLoggingStatus><LoggingEnabled><TargetBucket>logdst</TargetBucket><TargetPrefix>p/</TargetPrefix>` +
			`<TargetGrants><Grant><Permission>READ</Permission></Grant></TargetGrants></LoggingEnabled></BucketLoggingStatus>`: "NotImplemented",
		`<BucketLoggingStatus><LoggingEnabled><TargetBucket>logdst</TargetBucket><TargetPrefix>p/</TargetPrefix>` +
			`<TargetObjectKeyFormat><PartitionedPrefix/></TargetObjectKeyFormat></LoggingEnabled></BucketLoggingStatus>`: "NotImplemented",
	} {
		req := itest.RawRequest(t, srv, "PUT", "/logsrc?logging", []byte(body))
		itest.Sign(t, req, []byte(body), itest.SignOpts{})
		resp, rb := itest.Do(t, req)
		status := 400
		if want == "NotImplemented" {
			status = 501
		}
		itest.WantRawErr(t, resp, rb, status, want)
	}
	_, err = c.PutBucketLogging(ctx, &s3.PutBucketLoggingInput{Bucket: aws.String("no-such-source"), BucketLoggingStatus: &types.BucketLoggingStatus{
		LoggingEnabled: &types.LoggingEnabled{TargetBucket: aws.String("logdst"), TargetPrefix: aws.String("x/")}}})
	itest.WantErr(t, err, 404, "NoSuchBucket")
	_, err = c.PutBucketLogging(ctx, &s3.PutBucketLoggingInput{Bucket: aws.String("logsrc"), BucketLoggingStatus: &types.BucketLoggingStatus{
		LoggingEnabled: &types.LoggingEnabled{TargetBucket: aws.String("logdst"), TargetPrefix: aws.String("src-logs/")}}})
	if err != nil {
		t.Fatal(err)
	}
	got, err = c.GetBucketLogging(ctx, &s3.GetBucketLoggingInput{Bucket: aws.String("logsrc")})
	if err != nil || got.LoggingEnabled == nil || aws.ToString(got.LoggingEnabled.TargetBucket) != "logdst" ||
		aws.ToString(got.LoggingEnabled.TargetPrefix) != "src-logs/" {
		t.Fatalf("GetBucketLogging: %+v, %v", got.LoggingEnabled, err)
	}

	// The requests to find in the log.
	body := []byte("logged bytes")
	put, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("logsrc"), Key: aws.String("dir/a b.txt"), Body: strings.NewReader(string(body))})
	putID := requestID(t, put.ResultMetadata, err)
	get, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("logsrc"), Key: aws.String("dir/a b.txt")})
	getID := requestID(t, get.ResultMetadata, err)
	_, _ = io.Copy(io.Discard, get.Body)
	get.Body.Close()
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("logsrc"), Key: aws.String("missing")})
	missID := requestID(t, middleware.Metadata{}, err)
	// Another bucket's requests are not logged.
	other, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("logdst")})
	otherID := requestID(t, other.ResultMetadata, err)

	// Restart before any delivery (the interval is an hour): the records
	// wait in the spool and are delivered at start-up.
	addr := srv.Addr // the Host of the requests
	srv.Stop()
	srv = testutil.StartServer(t, testutil.WithDataDir(srv.DataDir), withBucketLogInterval(time.Hour))
	c = srv.AWSClient(t)
	recs, keys := waitLogRecords(t, c, "logdst", "src-logs/", putID, getID, missID)
	for _, k := range keys {
		if !regexp.MustCompile(`^src-logs/\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d-[0-9A-F]{16}$`).MatchString(k) {
			t.Errorf("log object name %q", k)
		}
	}
	root := s3api.CanonicalID(testutil.AccessKey)
	for _, want := range []struct {
		id, op, key, status, code, sent, size string
	}{
		{putID, "REST.PUT.OBJECT", "dir/a%20b.txt", "200", "-", "-", "12"},
		{getID, "REST.GET.OBJECT", "dir/a%20b.txt", "200", "-", "12", "12"},
		{missID, "REST.GET.OBJECT", "missing", "404", "NoSuchKey", "", "-"},
	} {
		r := findRecord(recs, want.id)
		if r.owner != root || r.bucket != "logsrc" || r.requester != root || r.remote != "127.0.0.1" ||
			r.op != want.op || r.key != want.key || r.status != want.status || r.code != want.code ||
			(want.sent != "" && r.sent != want.sent) || r.size != want.size ||
			r.hostID != s3api.HostID(want.id) || r.sigVersion != "SigV4" || r.authType != "AuthHeader" ||
			r.host != addr || !strings.Contains(r.userAgent, "aws-sdk-go-v2") {
			t.Errorf("record of %s: %+v, want %+v", want.op, *r, want)
		}
		if _, err := time.Parse("02/Jan/2006:15:04:05 -0700", r.time); err != nil {
			t.Errorf("record time %q: %v", r.time, err)
		}
	}
	if findRecord(recs, otherID) != nil {
		t.Error("a request on a bucket without logging was logged")
	}
	// The delivery removed the spool: another restart delivers nothing new.
	n := len(keys)
	srv.Stop()
	srv = testutil.StartServer(t, testutil.WithDataDir(srv.DataDir), withBucketLogInterval(time.Hour))
	c = srv.AWSClient(t)
	if _, keys = waitLogRecords(t, c, "logdst", "src-logs/", putID); len(keys) != n {
		t.Errorf("log objects after another restart: %d, want %d: %v", len(keys), n, keys)
	}

	// An empty BucketLoggingStatus turns logging off.
	if _, err := c.PutBucketLogging(ctx, &s3.PutBucketLoggingInput{Bucket: aws.String("logsrc"),
		BucketLoggingStatus: &types.BucketLoggingStatus{}}); err != nil {
		t.Fatal(err)
	}
	got, err = c.GetBucketLogging(ctx, &s3.GetBucketLoggingInput{Bucket: aws.String("logsrc")})
	if err != nil || got.LoggingEnabled != nil {
		t.Fatalf("logging after turning it off: %+v, %v", got.LoggingEnabled, err)
	}
}

// TestBucketLoggingIntoItself: a bucket that logs into itself gets its
// users' requests logged, never the delivery's own writes (no loop).
func TestBucketLoggingIntoItself(t *testing.T) {
	srv := testutil.StartServer(t, withBucketLogInterval(100*time.Millisecond))
	c := srv.AWSClient(t)
	ctx := context.Background()
	itest.CreateBucket(t, c, "selflog")
	if _, err := c.PutBucketLogging(ctx, &s3.PutBucketLoggingInput{Bucket: aws.String("selflog"), BucketLoggingStatus: &types.BucketLoggingStatus{
		LoggingEnabled: &types.LoggingEnabled{TargetBucket: aws.String("selflog"), TargetPrefix: aws.String("logs/")}}}); err != nil {
		t.Fatal(err)
	}
	put, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("selflog"), Key: aws.String("data"), Body: strings.NewReader("x")})
	first := requestID(t, put.ResultMetadata, err)
	_, keys := waitLogRecords(t, c, "selflog", "logs/", first)
	// A request after the first delivery: once it is delivered, any
	// record of that delivery's write would be there too.
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("selflog"), Key: aws.String("data")})
	second := requestID(t, head.ResultMetadata, err)
	recs, _ := waitLogRecords(t, c, "selflog", "logs/", second)
	puts := 0
	for _, r := range recs {
		if r.op == "REST.PUT.OBJECT" {
			puts++
			if strings.HasPrefix(r.key, "logs/") {
				t.Errorf("the delivery of a log object was logged: %+v", r)
			}
		}
	}
	if puts != 1 || len(keys) == 0 {
		t.Errorf("%d PUT records, want 1 (the user's); log objects %v", puts, keys)
	}
}
