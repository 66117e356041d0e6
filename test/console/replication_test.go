package console

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// replViewerPolicy lets a user read bucket src's replication rules and
// objects, and change nothing.
const replViewerPolicy = `{"Version":"2012-10-17","Statement":[
 {"Effect":"Allow","Action":["s3:ListBucket","s3:GetReplicationConfiguration","s3:GetBucketVersioning"],"Resource":"arn:aws:s3:::src"},
 {"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::src/*"}]}`

// TestConsoleReplication: a source JOG with a replication target "dr" (a
// second JOG). The root adds a rule on a bucket whose versioning is off
// through its settings page: S3's refusal is shown with the offer to
// enable versioning, which adds the rule; an object uploaded under the
// rule's prefix shows COMPLETED (PENDING until then) in its details, and is on
// the destination; one outside it shows no replication status. The root
// disables a rule, adds a second, removes the first, then the whole
// configuration, each checked with GetBucketReplication. A user who may
// only read the rules sees them without edit controls.
func TestConsoleReplication(t *testing.T) {
	path := needChromium(t)
	dst := startJog(t)
	dc := dst.s3(t)
	itest.VersionedBucket(t, dc, "backup")
	srv := startJog(t, "--replication-target", "dr="+dst.URL,
		"--replication-target-credentials", "dr="+testutil.AccessKey+":"+testutil.SecretKey)
	b := newBrowser(t, path, srv.Console)
	c := srv.s3(t)
	itest.CreateBucket(t, c, "src")
	viewerKey, viewerSecret := srv.newUser(t, "replviewer", replViewerPolicy)
	f := &flow{t: t, b: b, passed: map[string]bool{}}
	said := func(p *tab, want string) string { return sectionSays(p, hook("settings-replication"), want) }
	addRule := func(p *tab, dest, prefix string) {
		p.open("/console/settings/src")
		p.visible(hook("repl-add"))
		p.enter(hook("repl-destination"), dest)
		p.enter(hook("repl-prefix"), prefix)
		p.click(hook("repl-add"))
	}
	const dest = "arn:jog:replication::dr:backup"

	f.step("the root adds a rule, enabling versioning when S3 asks for it", nil, func(p *tab) {
		p.need("settings-replication", "repl-destination", "repl-prefix", "repl-add", "repl-enable-versioning", "repl-row")
		p.signIn(testutil.AccessKey, testutil.SecretKey)
		addRule(p, "backup", "docs/")
		said(p, "The destination is arn:aws:s3:::BUCKET") // the console's check: S3 words it otherwise
		wantReplicationRules(p.t, c, "src")
		addRule(p, dest, "docs/")
		said(p, "Versioning must be")
		wantReplicationRules(p.t, c, "src")
		p.click(hook("repl-enable-versioning"))
		p.visible(hook("repl-row"))
		rules := wantReplicationRules(p.t, c, "src", "Enabled")
		r := rules[0]
		if r.Filter == nil || aws.ToString(r.Filter.Prefix) != "docs/" || aws.ToString(r.Destination.Bucket) != dest ||
			r.DeleteMarkerReplication == nil || r.DeleteMarkerReplication.Status != types.DeleteMarkerReplicationStatusEnabled {
			p.t.Errorf("the server's rule: %+v, want prefix docs/ to %s with delete markers", r, dest)
		}
		if got := p.text(hook("repl-row", "data-id", aws.ToString(r.ID))); !strings.Contains(got, "prefix docs/") || !strings.Contains(got, dest) {
			p.t.Errorf("the rule's row says %q, want its prefix and destination", got)
		}
		v, err := c.GetBucketVersioning(context.Background(), &s3.GetBucketVersioningInput{Bucket: aws.String("src")})
		if err != nil || v.Status != types.BucketVersioningStatusEnabled {
			p.t.Errorf("versioning of src: %v %v, want Enabled", v, err)
		}
	})

	f.step("an object's details show its replication status", []string{"the root adds a rule, enabling versioning when S3 asks for it"}, func(p *tab) {
		p.need("detail-replication")
		ctx := context.Background()
		for _, key := range []string{"docs/a.txt", "other/b.txt"} {
			if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("src"), Key: aws.String(key),
				Body: strings.NewReader("hello, " + key)}); err != nil {
				p.t.Fatal(err)
			}
		}
		p.signIn(testutil.AccessKey, testutil.SecretKey)
		seen := map[string]bool{}
		for deadline := time.Now().Add(wait); ; {
			openObject(p, "src", "docs/", "docs/a.txt")
			got := p.text(hook("detail-replication"))
			seen[got] = true
			if got == "COMPLETED" {
				break
			}
			if got != "PENDING" || time.Now().After(deadline) {
				p.t.Fatalf("docs/a.txt's details show replication %q (seen %v), want PENDING until COMPLETED", got, seen)
			}
		}
		out, err := dc.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("backup"), Key: aws.String("docs/a.txt")})
		if err != nil {
			p.t.Fatalf("the destination's docs/a.txt: %v", err)
		}
		body, _ := io.ReadAll(out.Body)
		_ = out.Body.Close()
		if string(body) != "hello, docs/a.txt" {
			p.t.Errorf("the destination's docs/a.txt is %q", body)
		}
		openObject(p, "src", "other/", "other/b.txt")
		p.visible(hook("detail-encryption")) // the details are read
		if got := p.eval(`(document.querySelector('[data-test="detail-replication"]') || {}).textContent || 'absent'`); got != "absent" {
			p.t.Errorf("other/b.txt, outside the rule, shows replication %q, want none", got)
		}
	})

	f.step("the root disables a rule, adds one, removes one, then the configuration", []string{"the root adds a rule, enabling versioning when S3 asks for it"}, func(p *tab) {
		p.need("repl-toggle", "repl-remove", "repl-remove-all", "repl-status")
		p.signIn(testutil.AccessKey, testutil.SecretKey)
		first := aws.ToString(wantReplicationRules(p.t, c, "src", "Enabled")[0].ID)
		row := hook("repl-row", "data-id", first)
		p.open("/console/settings/src")
		p.click(row.in(`[data-test="repl-toggle"]`))
		p.until("the rule to show Disabled", wait, `(document.querySelector('`+row.in(`[data-test="repl-status"]`).css+`') || {}).textContent === 'Disabled' ? 'yes' : ''`)
		wantReplicationRules(p.t, c, "src", "Disabled")
		addRule(p, dest, "img/")
		said(p, "Added.")
		rules := wantReplicationRules(p.t, c, "src", "Disabled", "Enabled")
		if aws.ToInt32(rules[0].Priority) == aws.ToInt32(rules[1].Priority) {
			p.t.Errorf("two rules of priority %d", aws.ToInt32(rules[0].Priority))
		}
		p.click(row.in(`[data-test="repl-remove"]`))
		confirm(p, first)
		p.gone(row)
		if got := wantReplicationRules(p.t, c, "src", "Enabled"); aws.ToString(got[0].Filter.Prefix) != "img/" {
			p.t.Errorf("the rule left has prefix %q, want img/", aws.ToString(got[0].Filter.Prefix))
		}
		p.click(hook("repl-remove-all"))
		confirm(p, "")
		p.gone(hook("repl-row"))
		wantReplicationRules(p.t, c, "src")
	})

	f.step("a read-only user sees the rules without edit controls", nil, func(p *tab) {
		p.need("not-allowed")
		ctx := context.Background()
		if v, err := c.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: aws.String("src")}); err != nil {
			p.t.Fatal(err)
		} else if v.Status != types.BucketVersioningStatusEnabled { // the first step did not pass
			itest.EnableVersioning(p.t, c, "src")
		}
		itest.ReplicateAll(p.t, c, "src", dest)
		p.signIn(viewerKey, viewerSecret)
		p.open("/console/settings/src")
		p.visible(hook("repl-row", "data-id", "all"))
		p.visible(section.in(`[data-test="not-allowed"][data-action="s3:PutReplicationConfiguration"]`))
		for _, control := range []string{"repl-add", "repl-toggle", "repl-remove", "repl-remove-all", "repl-destination"} {
			if p.eval(`document.querySelector('[data-test="`+control+`"]') ? 'shown' : ''`) != "" {
				p.t.Errorf("the read-only user is shown %s", control)
			}
		}
		wantReplicationRules(p.t, c, "src", "Enabled")
	})
}

// wantReplicationRules asserts bucket's rules have the statuses given, in
// order (none: no configuration), as GetBucketReplication answers, and
// returns them.
func wantReplicationRules(t *testing.T, c *s3.Client, bucket string, statuses ...types.ReplicationRuleStatus) []types.ReplicationRule {
	t.Helper()
	out, err := c.GetBucketReplication(context.Background(), &s3.GetBucketReplicationInput{Bucket: aws.String(bucket)})
	var ae smithy.APIError
	if len(statuses) == 0 {
		if !errors.As(err, &ae) || ae.ErrorCode() != "ReplicationConfigurationNotFoundError" {
			t.Fatalf("GetBucketReplication %s: %v, want ReplicationConfigurationNotFoundError", bucket, err)
		}
		return nil
	}
	if err != nil {
		t.Fatalf("GetBucketReplication %s: %v", bucket, err)
	}
	rules := out.ReplicationConfiguration.Rules
	var got []types.ReplicationRuleStatus
	for _, r := range rules {
		got = append(got, r.Status)
	}
	if !slices.Equal(got, statuses) {
		t.Fatalf("GetBucketReplication %s: rules %v, want %v", bucket, got, statuses)
	}
	return rules
}
