package integration

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go/middleware"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// putLogging sets src's logging to target and prefix ("" target: off).
func putLogging(c *s3.Client, src, target, prefix string) error {
	st := &types.BucketLoggingStatus{}
	if target != "" {
		st.LoggingEnabled = &types.LoggingEnabled{TargetBucket: aws.String(target), TargetPrefix: aws.String(prefix)}
	}
	_, err := c.PutBucketLogging(context.Background(), &s3.PutBucketLoggingInput{Bucket: aws.String(src), BucketLoggingStatus: st})
	return err
}

// scrapeWait scrapes /metrics until cond holds of the scrape (60 s at
// most: a failing target's retries back off) and fails the test if it
// never does.
func scrapeWait(t *testing.T, srv *testutil.Server, what string, cond func(scrape) bool) scrape {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := scrapeMetrics(t, srv, metricsToken)
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60 s, not %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// logRequestIDs are the request IDs of the records in target's log
// objects under prefix.
func logRequestIDs(t *testing.T, c *s3.Client, target, prefix string) map[string]bool {
	t.Helper()
	out, err := c.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(target), Prefix: aws.String(prefix)})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, o := range out.Contents {
		body, _ := itest.Get(t, c, target, aws.ToString(o.Key))
		for _, r := range parseS3Log(t, string(body)) {
			ids[r.id] = true
		}
	}
	return ids
}

// waitRefused waits until the record of request id is dropped for want
// of the target's consent (jog_bucketlog_records_dropped_total of
// no_consent past before; 60 s at most), and fails the test if it is
// delivered into target under prefix instead.
func waitRefused(t *testing.T, srv *testutil.Server, c *s3.Client, target, prefix, id string, before float64) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		dropped := scrapeMetrics(t, srv, metricsToken).value("jog_bucketlog_records_dropped_total", "reason", "no_consent") > before
		if logRequestIDs(t, c, target, prefix)[id] {
			t.Fatalf("record %s was delivered into %s, which does not consent", id, target)
		}
		if dropped {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("record %s neither dropped nor delivered after 60 s", id)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// consentUsers: alice may do anything with her bucket alone, bob with
// his.
const consentUsers = `{"users": [
  {"name": "alice", "accessKeys": [{"accessKeyId": "AKIAALICE00000000000", "secretAccessKey": "alice-secret-0000000000000000000000000000"}],
   "policies": {"own": {"Version":"2012-10-17","Statement":[
     {"Effect":"Allow","Action":"s3:*","Resource":["arn:aws:s3:::alicesrc","arn:aws:s3:::alicesrc/*"]}]}}},
  {"name": "bob", "accessKeys": [{"accessKeyId": "AKIABOB0000000000000", "secretAccessKey": "bob-secret-00000000000000000000000000000"}],
   "policies": {"own": {"Version":"2012-10-17","Statement":[
     {"Effect":"Allow","Action":"s3:*","Resource":["arn:aws:s3:::bobdst","arn:aws:s3:::bobdst/*"]}]}}}
 ]}`

// TestBucketLoggingTargetConsent (issue 43, B): a user with rights on its
// own bucket alone cannot have its logs written into another's bucket
// until that bucket's owner grants the logging service s3:PutObject for
// that source and prefix in its policy; once the grant is withdrawn the
// records are no longer delivered. The root's configuration needs no
// grant, but the target's Deny stops it too.
func TestBucketLoggingTargetConsent(t *testing.T) {
	srv, cl := startUsersWith(t, consentUsers, map[string][2]string{"alice": authzKeys["alice"], "bob": authzKeys["bob"]},
		withBucketLogInterval(100*time.Millisecond), withMetricsToken)
	ctx := context.Background()
	root, alice, bob := cl["root"], cl["alice"], cl["bob"]
	itest.CreateBucket(t, root, "alicesrc")
	itest.CreateBucket(t, root, "bobdst")
	_, err := alice.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("bobdst"), Key: aws.String("x"), Body: strings.NewReader("x")})
	itest.WantErr(t, err, http.StatusForbidden, "AccessDenied")

	// No grant: refused, nothing configured.
	itest.WantErr(t, putLogging(alice, "alicesrc", "bobdst", "alice/"), http.StatusBadRequest, "InvalidTargetBucketForLogging")
	if got, err := alice.GetBucketLogging(ctx, &s3.GetBucketLoggingInput{Bucket: aws.String("alicesrc")}); err != nil || got.LoggingEnabled != nil {
		t.Fatalf("logging after a refusal: %+v, %v", got.LoggingEnabled, err)
	}

	// Bob grants the logging service alicesrc's logs under alice/.
	id, err := stsClient(t, srv, testutil.AccessKey, testutil.SecretKey, "").GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatal(err)
	}
	putPolicy(t, bob, "bobdst", `{"Version":"2012-10-17","Statement":[{"Sid":"S3ServerAccessLogsPolicy","Effect":"Allow",
		"Principal":{"Service":"logging.s3.amazonaws.com"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::bobdst/alice/*",
		"Condition":{"ArnLike":{"aws:SourceArn":"arn:aws:s3:::alicesrc"},"StringEquals":{"aws:SourceAccount":"`+aws.ToString(id.Account)+`"}}}]}`)
	itest.WantErr(t, putLogging(alice, "alicesrc", "bobdst", "other/"), http.StatusBadRequest, "InvalidTargetBucketForLogging")
	if err := putLogging(alice, "alicesrc", "bobdst", "alice/"); err != nil {
		t.Fatalf("PutBucketLogging with the target's grant: %v", err)
	}
	put, err := alice.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("alicesrc"), Key: aws.String("k"), Body: strings.NewReader("v")})
	granted := requestID(t, put.ResultMetadata, err)
	waitLogRecords(t, bob, "bobdst", "alice/", granted)

	// Bob withdraws the grant: alice's later records are dropped, not
	// written.
	if _, err := bob.DeleteBucketPolicy(ctx, &s3.DeleteBucketPolicyInput{Bucket: aws.String("bobdst")}); err != nil {
		t.Fatal(err)
	}
	head, err := alice.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("alicesrc"), Key: aws.String("k")})
	waitRefused(t, srv, bob, "bobdst", "alice/", requestID(t, head.ResultMetadata, err), 0)

	// The root may log into any bucket; a Deny of the target's stops
	// that too.
	if err := putLogging(root, "alicesrc", "bobdst", "alice/"); err != nil {
		t.Fatalf("the root's PutBucketLogging: %v", err)
	}
	head, err = alice.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("alicesrc"), Key: aws.String("k")})
	byRoot := requestID(t, head.ResultMetadata, err)
	waitLogRecords(t, bob, "bobdst", "alice/", byRoot)
	putPolicy(t, bob, "bobdst", `{"Version":"2012-10-17","Statement":[{"Effect":"Deny",
		"Principal":{"Service":"logging.s3.amazonaws.com"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::bobdst/*"}]}`)
	before := scrapeMetrics(t, srv, metricsToken).value("jog_bucketlog_records_dropped_total", "reason", "no_consent")
	_, err = alice.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("alicesrc"), Key: aws.String("missing")})
	waitRefused(t, srv, bob, "bobdst", "alice/", requestID(t, middleware.Metadata{}, err), before)
	itest.WantErr(t, putLogging(root, "alicesrc", "bobdst", "alice/"), http.StatusBadRequest, "InvalidTargetBucketForLogging")
}

// withBucketLogSpoolMax sets --bucket-log-spool-max.
func withBucketLogSpoolMax(n int64) testutil.Option {
	return func(c *config.Config) { c.BucketLogSpoolMax = config.Size(n) }
}

// TestBucketLoggingFailingTarget (issue 43, C): one target over its
// quota delays only its own records: the other target's arrive, on every
// round; its held records stay within the spool's bound while its source
// floods them; and turning its logging off drops them, the spool empty
// again.
func TestBucketLoggingFailingTarget(t *testing.T) {
	const spoolMax = 1 << 20
	srv := testutil.StartServer(t, testutil.WithoutFsync(), withBucketLogInterval(100*time.Millisecond), withMetricsToken,
		withBucketLogSpoolMax(spoolMax))
	c := srv.AWSClient(t)
	ctx := context.Background()
	for _, b := range []string{"srcfull", "srcok", "dstok"} {
		itest.CreateBucket(t, c, b)
	}
	if resp, body := rsvCall(t, srv, "", "PUT", "/dstfull", nil, map[string]string{"x-jog-bucket-quota": "1KiB"}); resp.StatusCode != http.StatusOK {
		t.Fatalf("CreateBucket with a quota: %s %s", resp.Status, body)
	}
	itest.Put(t, c, "dstfull", "filler", make([]byte, 1024)) // the quota, used up
	if err := putLogging(c, "srcfull", "dstfull", "l/"); err != nil {
		t.Fatal(err)
	}
	if err := putLogging(c, "srcok", "dstok", "l/"); err != nil {
		t.Fatal(err)
	}
	// The failing target's record first: a delivery that stops at it
	// would never reach the other's.
	_, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("srcfull"), Key: aws.String("a")})
	requestID(t, middleware.Metadata{}, err)
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("srcok"), Key: aws.String("a")})
	waitLogRecords(t, c, "dstok", "l/", requestID(t, middleware.Metadata{}, err))
	scrapeWait(t, srv, "the full target waiting", func(s scrape) bool {
		return s.value("jog_bucketlog_targets_waiting") == 1 && s.value("jog_bucketlog_delivery_failures_total") >= 1
	})

	// The failing source floods records of over 2 KiB (a long key, twice
	// in each): more than the bound.
	long := strings.Repeat("k", 1000)
	for i := range 600 {
		_, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("srcfull"), Key: aws.String(long + string(rune('a'+i%26)))})
		requestID(t, middleware.Metadata{}, err)
	}
	scrapeWait(t, srv, "records dropped at the spool's bound", func(s scrape) bool {
		if b := s.value("jog_bucketlog_spool_bytes"); b > spoolMax+4096 {
			t.Fatalf("spool at %v bytes, bound %d", b, spoolMax)
		}
		return s.value("jog_bucketlog_records_dropped_total", "reason", "spool_full")+
			s.value("jog_bucketlog_records_dropped_total", "reason", "evicted") > 0
	})
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("srcok"), Key: aws.String("b")})
	waitLogRecords(t, c, "dstok", "l/", requestID(t, middleware.Metadata{}, err))

	// The flood may all have been evicted: one small record held, in a
	// file of its own (b's delivery above has taken the flood's files),
	// so that there is something for the configuration's removal to drop.
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("srcfull"), Key: aws.String("z")})
	requestID(t, middleware.Metadata{}, err)
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("srcok"), Key: aws.String("c")})
	waitLogRecords(t, c, "dstok", "l/", requestID(t, middleware.Metadata{}, err))
	if s := scrapeMetrics(t, srv, metricsToken); s.value("jog_bucketlog_spool_bytes") == 0 {
		t.Fatal("nothing held for the full target")
	}

	// Logging off for the failing source: what it held goes.
	if err := putLogging(c, "srcfull", "", ""); err != nil {
		t.Fatal(err)
	}
	s := scrapeWait(t, srv, "the spool empty", func(s scrape) bool {
		return s.value("jog_bucketlog_spool_bytes") == 0 && s.value("jog_bucketlog_targets_waiting") == 0
	})
	if s.value("jog_bucketlog_records_dropped_total", "reason", "config_gone") == 0 {
		t.Error("no record dropped for the configuration removed")
	}
	out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("dstfull")})
	if err != nil || len(out.Contents) != 1 {
		t.Errorf("the full target holds %d objects (%v), want its filler alone", len(out.Contents), err)
	}
}
