package console

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestConsoleQuickForms drives the settings page's forms for the common
// lifecycle rules and bucket policy grants (issue 42, items 14 and 17) as
// root, and checks each effect through S3: the empty lifecycle editor saves
// nothing; a wildcard prefix is refused before anything is sent; an
// expiration rule and an abort-uploads rule are stored beside each other;
// a public-read grant of public/ lets an anonymous client GET public/a.txt
// and nothing else (not publicity.txt, not the listing); a read-only grant
// to IAM user reader, who has no policy of its own, lets reader list and
// GET but not PUT or DELETE, and keeps the public-read statement; an
// unknown user is refused before anything is sent; and S3's refusal of a
// public policy (BlockPublicPolicy) shows in the confirmation.
func TestConsoleQuickForms(t *testing.T) {
	srv, b := startConsole(t)
	c := srv.s3(t)
	ctx := context.Background()
	itest.CreateBucket(t, c, "forms")
	for _, key := range []string{"public/a.txt", "publicity.txt", "private/b.txt"} {
		itest.Put(t, c, "forms", key, []byte("hello, "+key))
	}
	readerKey, readerSecret := srv.newUser(t, "reader", "") // no policy of its own
	reader := srv.s3(t, readerKey, readerSecret)
	f := &flow{t: t, b: b, passed: map[string]bool{}}
	const signedIn = "the root signs in"
	f.step(signedIn, nil, func(p *tab) {
		p.signIn(testutil.AccessKey, testutil.SecretKey)
		p.visible(hook("bucket-row", "data-bucket", "forms"))
	})
	lifecycle, policy := hook("settings-lifecycle"), hook("settings-policy")

	f.step("an empty lifecycle editor holds no rule and saves none", []string{signedIn}, func(p *tab) {
		p.need("lifecycle-xml", "lifecycle-save")
		p.open("/console/settings/forms")
		p.visible(hook("lifecycle-xml"))
		if v := p.eval(`document.querySelector('[data-test="lifecycle-xml"]').value`); v != "" {
			p.t.Errorf("the lifecycle editor of a bucket without rules holds %q, want nothing", v)
		}
		p.click(hook("lifecycle-save"))
		sectionSays(p, lifecycle, "Write a lifecycle configuration first")
		wantLifecycle(p.t, c, "forms")
	})

	f.step("the lifecycle form adds an expiration rule, then an abort-uploads rule beside it", []string{signedIn}, func(p *tab) {
		p.need("lifecycle-prefix", "lifecycle-expire-days", "lifecycle-abort-days", "lifecycle-add", "confirm-shown")
		p.open("/console/settings/forms")
		p.enter(hook("lifecycle-prefix"), "tmp/*")
		p.enter(hook("lifecycle-expire-days"), "7")
		p.click(hook("lifecycle-add"))
		sectionSays(p, lifecycle, "no wildcards")
		wantLifecycle(p.t, c, "forms")

		p.open("/console/settings/forms")
		p.enter(hook("lifecycle-prefix"), "tmp/")
		p.enter(hook("lifecycle-expire-days"), "7")
		p.click(hook("lifecycle-add"))
		if shown := p.text(hook("confirm-shown")); !strings.Contains(shown, "<Prefix>tmp/</Prefix>") || !strings.Contains(shown, "<Days>7</Days>") {
			p.t.Errorf("the confirmation shows %q, want the rule's prefix and days", shown)
		}
		confirm(p, "")
		sectionSays(p, lifecycle, "Rule added.")
		rules := wantLifecycle(p.t, c, "forms", "expire-tmp-7d")
		r := rules[0]
		if r.Status != types.ExpirationStatusEnabled || r.Filter == nil || aws.ToString(r.Filter.Prefix) != "tmp/" ||
			r.Expiration == nil || aws.ToInt32(r.Expiration.Days) != 7 || r.AbortIncompleteMultipartUpload != nil {
			p.t.Errorf("the stored rule: %+v, want tmp/ expiring after 7 days, enabled", r)
		}

		p.open("/console/settings/forms")
		p.enter(hook("lifecycle-abort-days"), "3")
		p.click(hook("lifecycle-add"))
		confirm(p, "")
		sectionSays(p, lifecycle, "Rule added.")
		rules = wantLifecycle(p.t, c, "forms", "expire-tmp-7d", "abort-uploads-all-3d")
		if a := rules[1].AbortIncompleteMultipartUpload; a == nil || aws.ToInt32(a.DaysAfterInitiation) != 3 || rules[1].Expiration != nil {
			p.t.Errorf("the second rule: %+v, want uploads aborted after 3 days and no expiration", rules[1])
		}
	})

	const public = "the public-read form makes public/ readable anonymously, and nothing else"
	f.step(public, []string{signedIn}, func(p *tab) {
		p.need("policy-public-prefix", "policy-public-add", "confirm-shown")
		for _, key := range []string{"public/a.txt", "private/b.txt"} {
			wantAnonymous(p.t, srv, "forms/"+key, http.StatusForbidden)
		}
		p.open("/console/settings/forms")
		p.click(hook("policy-public-add"))
		sectionSays(p, policy, "Give a prefix")
		wantStatements(p.t, c, "forms")
		p.enter(hook("policy-public-prefix"), "public/")
		p.click(hook("policy-public-add"))
		if shown := p.text(hook("confirm-shown")); !strings.Contains(shown, `"arn:aws:s3:::forms/public/*"`) || !strings.Contains(shown, `"Principal": "*"`) {
			p.t.Errorf("the confirmation shows %q, want the public statement of forms/public/*", shown)
		}
		confirm(p, "")
		sectionSays(p, policy, "Statement added.")
		wantStatements(p.t, c, "forms", "PublicRead")
		wantAnonymous(p.t, srv, "forms/public/a.txt", http.StatusOK)
		for _, outside := range []string{"forms/publicity.txt", "forms/private/b.txt", "forms?list-type=2", "forms?list-type=2&prefix=public/"} {
			wantAnonymous(p.t, srv, outside, http.StatusForbidden)
		}
	})

	f.step("the read-only form lets an existing user list and GET, not PUT or DELETE", []string{signedIn}, func(p *tab) {
		p.need("policy-readonly-user", "policy-readonly-add")
		if _, err := reader.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("forms"), Key: aws.String("private/b.txt")}); itest.Code(err) != "AccessDenied" {
			p.t.Fatalf("reader's GET before the grant: %v, want AccessDenied", err)
		}
		before := statementSids(p.t, c, "forms")
		p.open("/console/settings/forms")
		p.enter(hook("policy-readonly-user"), "nobody")
		p.click(hook("policy-readonly-add"))
		sectionSays(p, policy, "There is no user nobody")
		wantStatements(p.t, c, "forms", before...)

		p.open("/console/settings/forms")
		p.enter(hook("policy-readonly-user"), "reader")
		p.click(hook("policy-readonly-add"))
		if shown := p.text(hook("confirm-shown")); !strings.Contains(shown, ":user/reader") {
			p.t.Errorf("the confirmation shows %q, want reader's ARN", shown)
		}
		confirm(p, "")
		sectionSays(p, policy, "Statement added.")
		wantStatements(p.t, c, "forms", append(before, "ReadOnly")...)
		itest.WantObject(p.t, reader, "forms", "private/b.txt", []byte("hello, private/b.txt"))
		if _, err := reader.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("forms")}); err != nil {
			p.t.Errorf("reader's listing: %v", err)
		}
		_, err := reader.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("forms"), Key: aws.String("private/c.txt"), Body: strings.NewReader("no")})
		if itest.Code(err) != "AccessDenied" {
			p.t.Errorf("reader's PUT: %v, want AccessDenied", err)
		}
		_, err = reader.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("forms"), Key: aws.String("private/b.txt")})
		if itest.Code(err) != "AccessDenied" {
			p.t.Errorf("reader's DELETE: %v, want AccessDenied", err)
		}
		itest.WantObject(p.t, c, "forms", "private/b.txt", []byte("hello, private/b.txt"))
	})

	f.step("S3's refusal of a public policy shows in the confirmation; nothing is stored", []string{signedIn}, func(p *tab) {
		p.need("policy-public-prefix", "policy-public-add")
		itest.CreateBucket(p.t, c, "blocked")
		if _, err := c.PutPublicAccessBlock(ctx, &s3.PutPublicAccessBlockInput{Bucket: aws.String("blocked"),
			PublicAccessBlockConfiguration: &types.PublicAccessBlockConfiguration{BlockPublicPolicy: aws.Bool(true)}}); err != nil {
			p.t.Fatal(err)
		}
		p.open("/console/settings/blocked")
		p.enter(hook("policy-public-prefix"), "public/")
		p.click(hook("policy-public-add"))
		p.click(hook("confirm-submit"))
		got := p.until("the dialog to show S3's refusal", wait,
			`(() => { const e = document.querySelector('dialog .dialog-error'); return e && !e.hidden ? e.textContent : ''; })()`)
		if !strings.HasPrefix(got, "AccessDenied") {
			p.t.Errorf("the dialog says %q, want S3's AccessDenied", got)
		}
		wantStatements(p.t, c, "blocked")
	})
}

// sectionSays waits for the settings section s's message to hold want, and
// returns it.
func sectionSays(p *tab, s sel, want string) string {
	p.t.Helper()
	msg := s.in(".section-msg")
	return p.until("the section to say "+want, wait, `(() => { const t = (document.querySelector('`+msg.css+`') || {}).textContent || '';
		return t.includes('`+want+`') ? t : ''; })()`)
}

// wantLifecycle asserts bucket's lifecycle rules have the IDs given, in
// order (none: no configuration), as GetBucketLifecycleConfiguration
// answers, and returns them.
func wantLifecycle(t *testing.T, c *s3.Client, bucket string, ids ...string) []types.LifecycleRule {
	t.Helper()
	out, err := c.GetBucketLifecycleConfiguration(context.Background(), &s3.GetBucketLifecycleConfigurationInput{Bucket: aws.String(bucket)})
	if len(ids) == 0 {
		if itest.Code(err) != "NoSuchLifecycleConfiguration" {
			t.Fatalf("GetBucketLifecycleConfiguration %s: %v, want NoSuchLifecycleConfiguration", bucket, err)
		}
		return nil
	}
	if err != nil {
		t.Fatalf("GetBucketLifecycleConfiguration %s: %v", bucket, err)
	}
	var got []string
	for _, r := range out.Rules {
		got = append(got, aws.ToString(r.ID))
	}
	if strings.Join(got, " ") != strings.Join(ids, " ") {
		t.Fatalf("GetBucketLifecycleConfiguration %s: rules %v, want %v", bucket, got, ids)
	}
	return out.Rules
}

// statementSids is the Sids of bucket's policy statements, in order (none
// when it has no policy).
func statementSids(t *testing.T, c *s3.Client, bucket string) []string {
	t.Helper()
	out, err := c.GetBucketPolicy(context.Background(), &s3.GetBucketPolicyInput{Bucket: aws.String(bucket)})
	if itest.Code(err) == "NoSuchBucketPolicy" {
		return nil
	}
	if err != nil {
		t.Fatalf("GetBucketPolicy %s: %v", bucket, err)
	}
	var doc struct{ Statement []struct{ Sid string } }
	if err := json.Unmarshal([]byte(aws.ToString(out.Policy)), &doc); err != nil {
		t.Fatalf("GetBucketPolicy %s: %v in %s", bucket, err, aws.ToString(out.Policy))
	}
	var sids []string
	for _, s := range doc.Statement {
		sids = append(sids, s.Sid)
	}
	return sids
}

// wantStatements asserts bucket's policy statements have the Sids given, in
// order (none: no policy).
func wantStatements(t *testing.T, c *s3.Client, bucket string, sids ...string) {
	t.Helper()
	if got := statementSids(t, c, bucket); strings.Join(got, " ") != strings.Join(sids, " ") {
		t.Fatalf("the policy of %s has statements %q, want %q", bucket, got, sids)
	}
}

// wantAnonymous asserts an unsigned GET of path (bucket/key, or with a
// query) on the S3 port answers status.
func wantAnonymous(t *testing.T, srv *jogServer, path string, status int) {
	t.Helper()
	if got, body := httpGet(t, srv.URL+"/"+path); got != status {
		t.Errorf("anonymous GET /%s: %d %s, want %d", path, got, body, status)
	}
}
