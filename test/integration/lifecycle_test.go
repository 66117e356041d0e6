package integration

// Lifecycle: Put/Get/DeleteBucketLifecycleConfiguration through
// aws-sdk-go-v2 and raw signed requests, x-amz-expiration, and the worker
// expiring objects and aborting uploads with a one-second lifecycle day.

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

func lcPut(ctx context.Context, c *s3.Client, bucket string, rules []types.LifecycleRule) error {
	_, err := c.PutBucketLifecycleConfiguration(ctx, &s3.PutBucketLifecycleConfigurationInput{
		Bucket: aws.String(bucket), LifecycleConfiguration: &types.BucketLifecycleConfiguration{Rules: rules}})
	return err
}

func lcRules() []types.LifecycleRule {
	return []types.LifecycleRule{
		{ID: aws.String("tmp"), Status: types.ExpirationStatusEnabled,
			Filter:     &types.LifecycleRuleFilter{Prefix: aws.String("tmp/")},
			Expiration: &types.LifecycleExpiration{Days: aws.Int32(3)}},
		{ID: aws.String("uploads"), Status: types.ExpirationStatusEnabled, Filter: &types.LifecycleRuleFilter{},
			AbortIncompleteMultipartUpload: &types.AbortIncompleteMultipartUpload{DaysAfterInitiation: aws.Int32(2)}},
		{ID: aws.String("logs"), Status: types.ExpirationStatusDisabled,
			Filter: &types.LifecycleRuleFilter{And: &types.LifecycleRuleAndOperator{Prefix: aws.String("logs/"),
				ObjectSizeGreaterThan: aws.Int64(10), ObjectSizeLessThan: aws.Int64(1000)}},
			Expiration:                  &types.LifecycleExpiration{Date: aws.Time(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))},
			NoncurrentVersionExpiration: &types.NoncurrentVersionExpiration{NoncurrentDays: aws.Int32(7), NewerNoncurrentVersions: aws.Int32(2)}},
		{ID: aws.String("big"), Status: types.ExpirationStatusEnabled,
			Filter:     &types.LifecycleRuleFilter{ObjectSizeGreaterThan: aws.Int64(1 << 20)},
			Expiration: &types.LifecycleExpiration{Days: aws.Int32(30)}},
	}
}

// lcState is what a refused request could have changed: the stored rules.
func lcState(t *testing.T, c *s3.Client, bucket string) string {
	t.Helper()
	out, err := c.GetBucketLifecycleConfiguration(context.Background(), &s3.GetBucketLifecycleConfigurationInput{Bucket: aws.String(bucket)})
	if err != nil {
		return itest.Code(err)
	}
	return lcJSON(t, out.Rules)
}

// lcJSON renders rules for comparison, following pointers.
func lcJSON(t *testing.T, rules []types.LifecycleRule) string {
	t.Helper()
	b, err := json.Marshal(rules)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLifecycleConfigRoundTrip(t *testing.T) {
	_, c := itest.StartBucket(t, "lcb")
	ctx := context.Background()
	b := aws.String("lcb")

	_, err := c.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: b})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchLifecycleConfiguration")

	if err := lcPut(ctx, c, "lcb", lcRules()); err != nil {
		t.Fatalf("PutBucketLifecycleConfiguration: %v", err)
	}
	out, err := c.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: b})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := lcJSON(t, out.Rules), lcJSON(t, lcRules()); got != want {
		t.Fatalf("rules read back:\n%s\nwant\n%s", got, want)
	}

	// Replaced whole; a rule without an ID gets one.
	if err := lcPut(ctx, c, "lcb", []types.LifecycleRule{{Status: types.ExpirationStatusEnabled,
		Filter: &types.LifecycleRuleFilter{Prefix: aws.String("")}, Expiration: &types.LifecycleExpiration{Days: aws.Int32(1)}}}); err != nil {
		t.Fatal(err)
	}
	out, err = c.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: b})
	if err != nil || len(out.Rules) != 1 || aws.ToString(out.Rules[0].ID) == "" {
		t.Fatalf("replaced configuration: %+v %v", out, err)
	}

	if _, err := c.DeleteBucketLifecycle(ctx, &s3.DeleteBucketLifecycleInput{Bucket: b}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: b})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchLifecycleConfiguration")
	if _, err := c.DeleteBucketLifecycle(ctx, &s3.DeleteBucketLifecycleInput{Bucket: b}); err != nil {
		t.Errorf("deleting no configuration: %v", err)
	}
	_, err = c.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: aws.String("nope")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
}

// TestLifecycleConfigRefused: S3's errors for what it refuses, and the
// stored configuration unchanged after each.
func TestLifecycleConfigRefused(t *testing.T) {
	srv, c := itest.StartBucket(t, "lcb")
	ctx := context.Background()
	if err := lcPut(ctx, c, "lcb", lcRules()); err != nil {
		t.Fatal(err)
	}
	before := lcState(t, c, "lcb")

	glacier := lcRules()[:1]
	glacier[0].Transitions = []types.Transition{{Days: aws.Int32(30), StorageClass: types.TransitionStorageClassGlacier}}
	itest.WantErr(t, lcPut(ctx, c, "lcb", glacier), http.StatusNotImplemented, "NotImplemented")
	dup := append(lcRules()[:1], lcRules()[:1]...)
	itest.WantErr(t, lcPut(ctx, c, "lcb", dup), http.StatusBadRequest, "InvalidArgument")
	zero := lcRules()[:1]
	zero[0].Expiration.Days = aws.Int32(0)
	itest.WantErr(t, lcPut(ctx, c, "lcb", zero), http.StatusBadRequest, "InvalidArgument")
	noon := lcRules()[:1]
	noon[0].Expiration = &types.LifecycleExpiration{Date: aws.Time(time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC))}
	itest.WantErr(t, lcPut(ctx, c, "lcb", noon), http.StatusBadRequest, "InvalidArgument")
	abortTag := lcRules()[1:2]
	abortTag[0].Filter = &types.LifecycleRuleFilter{Tag: &types.Tag{Key: aws.String("k"), Value: aws.String("v")}}
	itest.WantErr(t, lcPut(ctx, c, "lcb", abortTag), http.StatusBadRequest, "InvalidRequest")
	itest.WantErr(t, lcPut(ctx, c, "nope", lcRules()), http.StatusNotFound, "NoSuchBucket")

	rule := `<Rule><ID>r</ID><Filter><Prefix>p/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`
	raw := []struct {
		name, body, md5 string
		status          int
		code            string
	}{
		{"not XML", "<LifecycleConfiguration><Rule>", "", 400, "MalformedXML"},
		{"no rules", "<LifecycleConfiguration></LifecycleConfiguration>", "", 400, "MalformedXML"},
		{"no filter", `<LifecycleConfiguration><Rule><ID>r</ID><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`, "", 400, "MalformedXML"},
		{"bad status", `<LifecycleConfiguration><Rule><ID>r</ID><Filter/><Status>On</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`, "", 400, "MalformedXML"},
		{"no action", `<LifecycleConfiguration><Rule><ID>r</ID><Filter/><Status>Enabled</Status></Rule></LifecycleConfiguration>`, "", 400, "InvalidRequest"},
		{"long ID", `<LifecycleConfiguration><Rule><ID>` + strings.Repeat("x", 256) + `</ID><Filter/><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`, "", 400, "InvalidArgument"},
		{"wrong Content-MD5", "<LifecycleConfiguration>" + rule + "</LifecycleConfiguration>", base64.StdEncoding.EncodeToString(make([]byte, 16)), 400, "BadDigest"},
	}
	for _, tc := range raw {
		req := itest.RawRequest(t, srv, http.MethodPut, "/lcb?lifecycle", []byte(tc.body))
		if tc.md5 != "" {
			req.Header.Set("Content-MD5", tc.md5)
		}
		itest.Sign(t, req, []byte(tc.body), itest.SignOpts{})
		resp, body := itest.Do(t, req)
		if resp.StatusCode != tc.status || itest.BodyCode(body) != tc.code {
			t.Errorf("%s: %d %s, want %d %s", tc.name, resp.StatusCode, body, tc.status, tc.code)
		}
	}
	if after := lcState(t, c, "lcb"); after != before {
		t.Fatalf("refused requests changed the configuration:\n%s\n%s", before, after)
	}

	// The right Content-MD5 is accepted.
	body := []byte("<LifecycleConfiguration>" + rule + "</LifecycleConfiguration>")
	sum := md5.Sum(body)
	req := itest.RawRequest(t, srv, http.MethodPut, "/lcb?lifecycle", body)
	req.Header.Set("Content-MD5", base64.StdEncoding.EncodeToString(sum[:]))
	itest.Sign(t, req, body, itest.SignOpts{})
	if resp, b := itest.Do(t, req); resp.StatusCode != http.StatusOK {
		t.Fatalf("with a right Content-MD5: %d %s", resp.StatusCode, b)
	}
}

// TestLifecycleExpirationHeader: x-amz-expiration on PUT, GET, HEAD,
// CopyObject and CompleteMultipartUpload of objects a rule expires,
// formatted as S3 does, and nowhere else.
func TestLifecycleExpirationHeader(t *testing.T) {
	_, c := itest.StartBucket(t, "lcb")
	ctx := context.Background()
	put := itest.Put(t, c, "lcb", "tmp/a", []byte("before rules"))
	if put.Expiration != nil {
		t.Errorf("x-amz-expiration without rules: %q", *put.Expiration)
	}
	if err := lcPut(ctx, c, "lcb", lcRules()); err != nil {
		t.Fatal(err)
	}
	put = itest.Put(t, c, "lcb", "tmp/b", []byte("short-lived"))
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("lcb"), Key: aws.String("tmp/b")})
	if err != nil {
		t.Fatal(err)
	}
	// Three days after the last modification, rounded to the next midnight UTC.
	due := head.LastModified.UTC().Add(3 * 24 * time.Hour).Truncate(24 * time.Hour).Add(24 * time.Hour)
	want := fmt.Sprintf(`expiry-date="%s", rule-id="tmp"`, due.Format(http.TimeFormat))
	if got := aws.ToString(put.Expiration); got != want {
		t.Errorf("PUT x-amz-expiration %q, want %q", got, want)
	}
	if got := aws.ToString(head.Expiration); got != want {
		t.Errorf("HEAD x-amz-expiration %q, want %q", got, want)
	}
	_, get := itest.Get(t, c, "lcb", "tmp/a")
	if got, wantA := aws.ToString(get.Expiration), `rule-id="tmp"`; !strings.Contains(got, wantA) {
		t.Errorf("GET of an object older than the rules: x-amz-expiration %q, want %s", got, wantA)
	}
	itest.Put(t, c, "lcb", "keep-src", []byte("source"))
	cp, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("lcb"), Key: aws.String("tmp/copy"), CopySource: aws.String("lcb/keep-src")})
	if err != nil || !strings.Contains(aws.ToString(cp.Expiration), `rule-id="tmp"`) {
		t.Errorf("CopyObject x-amz-expiration %q (%v)", aws.ToString(cp.Expiration), err)
	}
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("lcb"), Key: aws.String("tmp/mp")})
	if err != nil {
		t.Fatal(err)
	}
	part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("lcb"), Key: aws.String("tmp/mp"), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), Body: bytes.NewReader([]byte("one part"))})
	if err != nil {
		t.Fatal(err)
	}
	done, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("lcb"), Key: aws.String("tmp/mp"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: part.ETag}}}})
	if err != nil || !strings.Contains(aws.ToString(done.Expiration), `rule-id="tmp"`) {
		t.Errorf("CompleteMultipartUpload x-amz-expiration %q (%v)", aws.ToString(done.Expiration), err)
	}

	// Outside every enabled rule: no header (logs/ is disabled).
	for _, k := range []string{"keep", "logs/x"} {
		p := itest.Put(t, c, "lcb", k, bytes.Repeat([]byte("x"), 100))
		if p.Expiration != nil {
			t.Errorf("%s: x-amz-expiration %q", k, *p.Expiration)
		}
	}
}

// lcWait polls until cond holds, failing the test past a deadline.
func lcWait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func lcKeys(t *testing.T, c *s3.Client, bucket string) []string {
	t.Helper()
	out, err := c.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range out.Contents {
		keys = append(keys, *o.Key)
	}
	return keys
}

func lcUploads(t *testing.T, c *s3.Client, bucket string) []string {
	t.Helper()
	out, err := c.ListMultipartUploads(context.Background(), &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, u := range out.Uploads {
		keys = append(keys, *u.Key)
	}
	return keys
}

// TestLifecycleWorkerExpires: with a one-second lifecycle day the worker
// expires the objects a rule selects and aborts the uploads another rule
// selects, and leaves the rest.
func TestLifecycleWorkerExpires(t *testing.T) {
	_, c := itest.StartBucket(t, "lcb", testutil.WithLifecycle(time.Second, 50*time.Millisecond))
	ctx := context.Background()
	var expiring []string
	for i := range 25 {
		expiring = append(expiring, fmt.Sprintf("exp/%02d", i))
	}
	itest.PutMany(t, c, "lcb", append([]string{"keep/1", "keep/2"}, expiring...), 4, false)
	small := itest.RandBytes(1, 100)
	itest.Put(t, c, "lcb", "sz/small", small)
	itest.Put(t, c, "lcb", "sz/big", itest.RandBytes(2, 2000))
	for _, k := range []string{"tmp/u1", "tmp/u2", "keep/u"} {
		if _, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("lcb"), Key: aws.String(k)}); err != nil {
			t.Fatal(err)
		}
	}
	err := lcPut(ctx, c, "lcb", []types.LifecycleRule{
		{ID: aws.String("exp"), Status: types.ExpirationStatusEnabled, Filter: &types.LifecycleRuleFilter{Prefix: aws.String("exp/")},
			Expiration: &types.LifecycleExpiration{Days: aws.Int32(1)}},
		{ID: aws.String("big"), Status: types.ExpirationStatusEnabled,
			Filter:     &types.LifecycleRuleFilter{And: &types.LifecycleRuleAndOperator{Prefix: aws.String("sz/"), ObjectSizeGreaterThan: aws.Int64(1000)}},
			Expiration: &types.LifecycleExpiration{Days: aws.Int32(1)}},
		{ID: aws.String("off"), Status: types.ExpirationStatusDisabled, Filter: &types.LifecycleRuleFilter{},
			Expiration: &types.LifecycleExpiration{Days: aws.Int32(1)}},
		{ID: aws.String("tmp"), Status: types.ExpirationStatusEnabled, Filter: &types.LifecycleRuleFilter{Prefix: aws.String("tmp/")},
			AbortIncompleteMultipartUpload: &types.AbortIncompleteMultipartUpload{DaysAfterInitiation: aws.Int32(1)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	lcWait(t, "exp/ and sz/big to expire", func() bool { return len(lcKeys(t, c, "lcb")) == 3 })
	if got := strings.Join(lcKeys(t, c, "lcb"), ","); got != "keep/1,keep/2,sz/small" {
		t.Fatalf("left %s", got)
	}
	lcWait(t, "tmp/ uploads to be aborted", func() bool { return len(lcUploads(t, c, "lcb")) == 1 })
	if got := lcUploads(t, c, "lcb"); got[0] != "keep/u" {
		t.Fatalf("uploads left %v", got)
	}
	itest.WantObject(t, c, "lcb", "sz/small", small)
}

// TestLifecycleWorkerAfterRestart: rules stored before a restart are
// applied by the worker of the next server on the same data dir.
func TestLifecycleWorkerAfterRestart(t *testing.T) {
	srv, c := itest.StartBucket(t, "lcb", testutil.WithLifecycle(time.Second, 0))
	ctx := context.Background()
	itest.PutMany(t, c, "lcb", []string{"exp/a", "exp/b", "keep"}, 2, false)
	err := lcPut(ctx, c, "lcb", []types.LifecycleRule{{ID: aws.String("exp"), Status: types.ExpirationStatusEnabled,
		Filter: &types.LifecycleRuleFilter{Prefix: aws.String("exp/")}, Expiration: &types.LifecycleExpiration{Days: aws.Int32(1)}}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Stop()

	_, c2 := itest.Start(t, testutil.WithDataDir(srv.DataDir), testutil.WithLifecycle(time.Second, 50*time.Millisecond))
	lcWait(t, "exp/ objects to expire after the restart", func() bool { return len(lcKeys(t, c2, "lcb")) == 1 })
	if got := lcKeys(t, c2, "lcb"); got[0] != "keep" {
		t.Fatalf("left %v", got)
	}
}
