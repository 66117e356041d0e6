package integration

// Bucket configurations JOG carries out none of (encryption, website,
// accelerate, request payment, analytics, inventory,
// metrics, intelligent-tiering): their GETs answer the empty state as S3
// does for a bucket without one; their PUTs and DELETEs stay 501
// NotImplemented and change nothing. (Notifications are JOG's since
// session 19; their GET still answers the empty state of a bucket without
// one, and an EventBridgeConfiguration is still 501.)

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

const cfgBootstrap = `{"users": [
 {"name": "cfguser", "accessKeys": [{"accessKeyId": "AKIACFGUSER000000000", "secretAccessKey": "cfguser-secret-00000000000000000000000000"}]}
]}`

// cfgRead is one configuration read through aws-sdk-go-v2: call runs it on
// bucket and checks a successful answer is the empty state; code is the
// 404 S3 answers instead of a document ("" for a 200).
type cfgRead struct {
	name, action, code string
	call               func(ctx context.Context, c *s3.Client, b *string) error
}

func cfgReads(t *testing.T) []cfgRead {
	id := aws.String("cfg1")
	noTruncation := func(op string, truncated *bool, n int, next *string) error {
		if aws.ToBool(truncated) || n != 0 || next != nil {
			t.Errorf("%s: truncated %v, %d configurations, next %v; want an empty, complete list", op, aws.ToBool(truncated), n, next)
		}
		return nil
	}
	return []cfgRead{
		{"GetBucketEncryption", "s3:GetEncryptionConfiguration", "ServerSideEncryptionConfigurationNotFoundError",
			func(ctx context.Context, c *s3.Client, b *string) error {
				_, err := c.GetBucketEncryption(ctx, &s3.GetBucketEncryptionInput{Bucket: b})
				return err
			}},
		{"GetBucketWebsite", "s3:GetBucketWebsite", "NoSuchWebsiteConfiguration",
			func(ctx context.Context, c *s3.Client, b *string) error {
				_, err := c.GetBucketWebsite(ctx, &s3.GetBucketWebsiteInput{Bucket: b})
				return err
			}},
		{"GetBucketAccelerateConfiguration", "s3:GetAccelerateConfiguration", "",
			func(ctx context.Context, c *s3.Client, b *string) error {
				out, err := c.GetBucketAccelerateConfiguration(ctx, &s3.GetBucketAccelerateConfigurationInput{Bucket: b})
				if err == nil && out.Status != "" {
					t.Errorf("GetBucketAccelerateConfiguration: Status %q, want none (never set)", out.Status)
				}
				return err
			}},
		{"GetBucketRequestPayment", "s3:GetBucketRequestPayment", "",
			func(ctx context.Context, c *s3.Client, b *string) error {
				out, err := c.GetBucketRequestPayment(ctx, &s3.GetBucketRequestPaymentInput{Bucket: b})
				if err == nil && out.Payer != types.PayerBucketOwner {
					t.Errorf("GetBucketRequestPayment: Payer %q, want BucketOwner", out.Payer)
				}
				return err
			}},
		{"GetBucketNotificationConfiguration", "s3:GetBucketNotification", "",
			func(ctx context.Context, c *s3.Client, b *string) error {
				out, err := c.GetBucketNotificationConfiguration(ctx, &s3.GetBucketNotificationConfigurationInput{Bucket: b})
				if err == nil && (len(out.TopicConfigurations)+len(out.QueueConfigurations)+len(out.LambdaFunctionConfigurations) != 0 || out.EventBridgeConfiguration != nil) {
					t.Errorf("GetBucketNotificationConfiguration: %+v, want nothing configured", out)
				}
				return err
			}},
		{"GetBucketAnalyticsConfiguration", "s3:GetAnalyticsConfiguration", "NoSuchConfiguration",
			func(ctx context.Context, c *s3.Client, b *string) error {
				_, err := c.GetBucketAnalyticsConfiguration(ctx, &s3.GetBucketAnalyticsConfigurationInput{Bucket: b, Id: id})
				return err
			}},
		{"ListBucketAnalyticsConfigurations", "s3:GetAnalyticsConfiguration", "",
			func(ctx context.Context, c *s3.Client, b *string) error {
				out, err := c.ListBucketAnalyticsConfigurations(ctx, &s3.ListBucketAnalyticsConfigurationsInput{Bucket: b})
				if err != nil {
					return err
				}
				return noTruncation("ListBucketAnalyticsConfigurations", out.IsTruncated, len(out.AnalyticsConfigurationList), out.NextContinuationToken)
			}},
		{"GetBucketInventoryConfiguration", "s3:GetInventoryConfiguration", "NoSuchConfiguration",
			func(ctx context.Context, c *s3.Client, b *string) error {
				_, err := c.GetBucketInventoryConfiguration(ctx, &s3.GetBucketInventoryConfigurationInput{Bucket: b, Id: id})
				return err
			}},
		{"ListBucketInventoryConfigurations", "s3:GetInventoryConfiguration", "",
			func(ctx context.Context, c *s3.Client, b *string) error {
				out, err := c.ListBucketInventoryConfigurations(ctx, &s3.ListBucketInventoryConfigurationsInput{Bucket: b, ContinuationToken: aws.String("page2")})
				if err != nil {
					return err
				}
				if aws.ToString(out.ContinuationToken) != "page2" {
					t.Errorf("ListBucketInventoryConfigurations: ContinuationToken %q, want the one sent", aws.ToString(out.ContinuationToken))
				}
				return noTruncation("ListBucketInventoryConfigurations", out.IsTruncated, len(out.InventoryConfigurationList), out.NextContinuationToken)
			}},
		{"GetBucketMetricsConfiguration", "s3:GetMetricsConfiguration", "NoSuchConfiguration",
			func(ctx context.Context, c *s3.Client, b *string) error {
				_, err := c.GetBucketMetricsConfiguration(ctx, &s3.GetBucketMetricsConfigurationInput{Bucket: b, Id: id})
				return err
			}},
		{"ListBucketMetricsConfigurations", "s3:GetMetricsConfiguration", "",
			func(ctx context.Context, c *s3.Client, b *string) error {
				out, err := c.ListBucketMetricsConfigurations(ctx, &s3.ListBucketMetricsConfigurationsInput{Bucket: b})
				if err != nil {
					return err
				}
				return noTruncation("ListBucketMetricsConfigurations", out.IsTruncated, len(out.MetricsConfigurationList), out.NextContinuationToken)
			}},
		{"GetBucketIntelligentTieringConfiguration", "s3:GetIntelligentTieringConfiguration", "NoSuchConfiguration",
			func(ctx context.Context, c *s3.Client, b *string) error {
				_, err := c.GetBucketIntelligentTieringConfiguration(ctx, &s3.GetBucketIntelligentTieringConfigurationInput{Bucket: b, Id: id})
				return err
			}},
		{"ListBucketIntelligentTieringConfigurations", "s3:GetIntelligentTieringConfiguration", "",
			func(ctx context.Context, c *s3.Client, b *string) error {
				out, err := c.ListBucketIntelligentTieringConfigurations(ctx, &s3.ListBucketIntelligentTieringConfigurationsInput{Bucket: b})
				if err != nil {
					return err
				}
				return noTruncation("ListBucketIntelligentTieringConfigurations", out.IsTruncated, len(out.IntelligentTieringConfigurationList), out.NextContinuationToken)
			}},
	}
}

// cfgWrites are the PUTs and DELETEs of the same subresources: each stays
// 501 NotImplemented.
var cfgWrites = []struct{ method, path, body string }{
	{"PUT", "/cfg?website", `<WebsiteConfiguration><IndexDocument><Suffix>index.html</Suffix></IndexDocument></WebsiteConfiguration>`},
	{"DELETE", "/cfg?website", ""},
	{"PUT", "/cfg?accelerate", `<AccelerateConfiguration><Status>Enabled</Status></AccelerateConfiguration>`},
	{"PUT", "/cfg?requestPayment", `<RequestPaymentConfiguration><Payer>Requester</Payer></RequestPaymentConfiguration>`},
	{"PUT", "/cfg?notification", `<NotificationConfiguration><EventBridgeConfiguration/></NotificationConfiguration>`},
	{"PUT", "/cfg?analytics&id=cfg1", `<AnalyticsConfiguration><Id>cfg1</Id><StorageClassAnalysis/></AnalyticsConfiguration>`},
	{"DELETE", "/cfg?analytics&id=cfg1", ""},
	{"PUT", "/cfg?inventory&id=cfg1", `<InventoryConfiguration><Id>cfg1</Id><IsEnabled>true</IsEnabled></InventoryConfiguration>`},
	{"DELETE", "/cfg?inventory&id=cfg1", ""},
	{"PUT", "/cfg?metrics&id=cfg1", `<MetricsConfiguration><Id>cfg1</Id></MetricsConfiguration>`},
	{"DELETE", "/cfg?metrics&id=cfg1", ""},
	{"PUT", "/cfg?intelligent-tiering&id=cfg1", `<IntelligentTieringConfiguration><Id>cfg1</Id><Status>Enabled</Status></IntelligentTieringConfiguration>`},
	{"DELETE", "/cfg?intelligent-tiering&id=cfg1", ""},
}

func TestConfigReadsEmptyState(t *testing.T) {
	file := filepath.Join(t.TempDir(), "iam.json")
	if err := os.WriteFile(file, []byte(cfgBootstrap), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := testutil.StartServer(t, testutil.WithIAMBootstrap(file), testutil.WithoutFsync())
	ctx := context.Background()
	c := srv.AWSClient(t)
	itest.CreateBucket(t, c, "cfg")
	itest.Put(t, c, "cfg", "k", []byte("bytes"))
	reads := cfgReads(t)

	// An existing bucket: the empty state; a missing one: NoSuchBucket.
	for _, r := range reads {
		err := r.call(ctx, c, aws.String("cfg"))
		switch {
		case r.code == "" && err != nil:
			t.Errorf("%s: %v, want 200 with the empty state", r.name, err)
		case r.code != "":
			if code, status := itest.ErrInfo(err); code != r.code || status != http.StatusNotFound {
				t.Errorf("%s: %d %q (%v), want 404 %s", r.name, status, code, err, r.code)
			}
		}
		if code, status := itest.ErrInfo(r.call(ctx, c, aws.String("nosuch"))); code != "NoSuchBucket" || status != http.StatusNotFound {
			t.Errorf("%s of a missing bucket: %d %q, want 404 NoSuchBucket", r.name, status, code)
		}
	}

	// x-amz-expected-bucket-owner is checked as on every bucket operation.
	other := aws.String("111122223333")
	if _, err := c.GetBucketEncryption(ctx, &s3.GetBucketEncryptionInput{Bucket: aws.String("cfg"), ExpectedBucketOwner: other}); itest.Code(err) != "AccessDenied" {
		t.Errorf("GetBucketEncryption of another owner's bucket: %v, want AccessDenied", err)
	}
	if _, err := c.ListBucketMetricsConfigurations(ctx, &s3.ListBucketMetricsConfigurationsInput{Bucket: aws.String("cfg"), ExpectedBucketOwner: other}); itest.Code(err) != "AccessDenied" {
		t.Errorf("ListBucketMetricsConfigurations of another owner's bucket: %v, want AccessDenied", err)
	}

	// PUT and DELETE stay 501 and change nothing: the reads answer as
	// before, the object is there.
	ids := regexp.MustCompile(`<(RequestId|HostId)>[^<]*</(RequestId|HostId)>`)
	state := func() string {
		var b strings.Builder
		for _, p := range []string{"/cfg?website", "/cfg?accelerate", "/cfg?requestPayment",
			"/cfg?notification", "/cfg?analytics", "/cfg?analytics&id=cfg1", "/cfg?inventory", "/cfg?inventory&id=cfg1",
			"/cfg?metrics", "/cfg?metrics&id=cfg1", "/cfg?intelligent-tiering", "/cfg?intelligent-tiering&id=cfg1", "/cfg"} {
			req := itest.RawRequest(t, srv, "GET", p, nil)
			itest.Sign(t, req, nil, itest.SignOpts{})
			resp, body := itest.Do(t, req)
			b.WriteString(p + " " + resp.Status + " " + ids.ReplaceAllString(string(body), "") + "\n")
		}
		return b.String()
	}
	before := state()
	for _, w := range cfgWrites {
		var body []byte
		if w.body != "" {
			body = []byte(w.body)
		}
		req := itest.RawRequest(t, srv, w.method, w.path, body)
		itest.Sign(t, req, body, itest.SignOpts{})
		resp, got := itest.Do(t, req)
		if resp.StatusCode != http.StatusNotImplemented || itest.BodyCode(got) != "NotImplemented" {
			t.Errorf("%s %s: %s %s, want 501 NotImplemented", w.method, w.path, resp.Status, itest.BodyCode(got))
		}
	}
	// The same through the SDK, as a client sends them.
	b := aws.String("cfg")
	for name, err := range map[string]error{
		"PutBucketAccelerateConfiguration": func() error {
			_, err := c.PutBucketAccelerateConfiguration(ctx, &s3.PutBucketAccelerateConfigurationInput{Bucket: b,
				AccelerateConfiguration: &types.AccelerateConfiguration{Status: types.BucketAccelerateStatusEnabled}})
			return err
		}(),
		"PutBucketRequestPayment": func() error {
			_, err := c.PutBucketRequestPayment(ctx, &s3.PutBucketRequestPaymentInput{Bucket: b,
				RequestPaymentConfiguration: &types.RequestPaymentConfiguration{Payer: types.PayerRequester}})
			return err
		}(),
		"DeleteBucketWebsite": func() error {
			_, err := c.DeleteBucketWebsite(ctx, &s3.DeleteBucketWebsiteInput{Bucket: b})
			return err
		}(),
		"DeleteBucketMetricsConfiguration": func() error {
			_, err := c.DeleteBucketMetricsConfiguration(ctx, &s3.DeleteBucketMetricsConfigurationInput{Bucket: b, Id: aws.String("cfg1")})
			return err
		}(),
	} {
		if code, status := itest.ErrInfo(err); code != "NotImplemented" || status != http.StatusNotImplemented {
			t.Errorf("%s: %d %q (%v), want 501 NotImplemented", name, status, code, err)
		}
	}
	if after := state(); after != before {
		t.Errorf("refused writes changed the state:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	itest.WantObject(t, c, "cfg", "k", []byte("bytes"))

	// An IAM user: denied each read without its action, served with it.
	admin := iamClient(t, srv, testutil.AccessKey, testutil.SecretKey)
	user := srv.AWSClient(t, func(o *s3.Options) {
		o.Credentials = credentials.NewStaticCredentialsProvider("AKIACFGUSER000000000", "cfguser-secret-00000000000000000000000000", "")
	})
	setPolicy := func(stmts ...map[string]any) { setUserStatements(t, admin, "cfguser", stmts...) }
	for _, r := range reads {
		setPolicy(map[string]any{"Effect": "Allow", "Action": "s3:*", "Resource": "*"},
			map[string]any{"Effect": "Deny", "Action": r.action, "Resource": "*"})
		if code, status := itest.ErrInfo(r.call(ctx, user, aws.String("cfg"))); code != "AccessDenied" || status != http.StatusForbidden {
			t.Errorf("%s by a user denied %s: %d %q, want 403 AccessDenied", r.name, r.action, status, code)
		}
		setPolicy(map[string]any{"Effect": "Allow", "Action": r.action, "Resource": "*"})
		err := r.call(ctx, user, aws.String("cfg"))
		if code := itest.Code(err); (r.code == "" && err != nil) || (r.code != "" && code != r.code) {
			t.Errorf("%s by a user allowed %s: %v, want the root's answer", r.name, r.action, err)
		}
	}
}
