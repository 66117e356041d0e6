package console

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// encViewerPolicy lets a user read bucket enc, its objects and its
// default encryption, and change nothing.
const encViewerPolicy = `{"Version":"2012-10-17","Statement":[
 {"Effect":"Allow","Action":["s3:ListBucket","s3:GetEncryptionConfiguration"],"Resource":"arn:aws:s3:::enc"},
 {"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::enc/*"}]}`

// TestConsoleEncryption: the root sets a bucket's default encryption on
// its settings page (SSE-S3, then SSE-KMS with a key, then none) and the
// S3 API answers each; a user who may only read it sees it, its form
// disabled with the reason (the server's permissions answer), and the
// server's configuration unchanged; an object's details show its
// encryption and KMS key.
func TestConsoleEncryption(t *testing.T) {
	srv, b := startConsole(t)
	c := srv.s3(t)
	itest.CreateBucket(t, c, "enc")
	viewerKey, viewerSecret := srv.newUser(t, "encviewer", encViewerPolicy)
	f := &flow{t: t, b: b, passed: map[string]bool{}}
	section := hook("settings-encryption")
	choose := func(p *tab, mode, key string) {
		p.open("/console/settings/enc")
		p.visible(hook("encryption-save"))
		p.eval(`(() => { const s = document.querySelector('[data-test="encryption-mode"]'); s.value = '` + mode + `';
			s.dispatchEvent(new Event('change', {bubbles: true})); return ''; })()`)
		if key != "" {
			p.enter(hook("encryption-key"), key)
		}
		p.click(hook("encryption-save"))
	}
	current := func(p *tab, want string) {
		p.until("the current default encryption to show "+want, wait,
			`(() => { const e = document.querySelector('[data-test="encryption-current"]'); return e && e.textContent.startsWith('`+want+`') ? 'shown' : ''; })()`)
	}

	f.step("the root sets SSE-S3, then SSE-KMS with a key, then removes it", nil, func(p *tab) {
		p.need("settings-encryption", "encryption-mode", "encryption-key", "encryption-save", "encryption-current")
		p.signIn(testutil.AccessKey, testutil.SecretKey)
		p.open("/console/settings/enc")
		current(p, "None")
		choose(p, "AES256", "")
		current(p, "SSE-S3 (AES256)")
		wantBucketEncryption(p.t, c, "enc", types.ServerSideEncryptionAes256, "")
		choose(p, "aws:kms", "console-key")
		current(p, "SSE-KMS, key ")
		if got := p.text(hook("encryption-current")); !strings.HasSuffix(got, "console-key") {
			p.t.Errorf("encryption-current %q, want SSE-KMS with key console-key", got)
		}
		wantBucketEncryption(p.t, c, "enc", types.ServerSideEncryptionAwsKms, "console-key")
		p.click(section.in("button.danger"))
		current(p, "None")
		wantBucketEncryption(p.t, c, "enc", "", "")
	})

	f.step("a read-only user sees the default encryption and cannot change it", nil, func(p *tab) {
		p.need("not-allowed")
		if _, err := c.PutBucketEncryption(context.Background(), &s3.PutBucketEncryptionInput{Bucket: aws.String("enc"),
			ServerSideEncryptionConfiguration: &types.ServerSideEncryptionConfiguration{Rules: []types.ServerSideEncryptionRule{{
				ApplyServerSideEncryptionByDefault: &types.ServerSideEncryptionByDefault{SSEAlgorithm: types.ServerSideEncryptionAes256}}}}}); err != nil {
			p.t.Fatal(err)
		}
		p.signIn(viewerKey, viewerSecret)
		p.open("/console/settings/enc")
		current(p, "SSE-S3 (AES256)")
		// The server says the viewer may not change it: the form is
		// disabled and the section says why.
		note := section.in(`[data-test="not-allowed"][data-action="s3:PutEncryptionConfiguration"]`)
		p.visible(note)
		if got := p.text(note); !strings.Contains(got, "Your policy doesn't allow s3:PutEncryptionConfiguration") {
			p.t.Errorf("the viewer is told %q", got)
		}
		for _, control := range []string{"encryption-mode", "encryption-key", "encryption-save"} {
			if p.eval(`document.querySelector('[data-test="`+control+`"]').disabled ? 'yes' : ''`) != "yes" {
				p.t.Errorf("%s is offered to the viewer", control)
			}
		}
		wantBucketEncryption(p.t, c, "enc", types.ServerSideEncryptionAes256, "")
	})

	f.step("an object's details show its encryption", nil, func(p *tab) {
		p.need("detail-encryption", "detail-kms-key")
		ctx := context.Background()
		// The step before left a default (SSE-S3): plain.txt asks for none.
		if _, err := c.DeleteBucketEncryption(ctx, &s3.DeleteBucketEncryptionInput{Bucket: aws.String("enc")}); err != nil {
			p.t.Fatal(err)
		}
		for key, in := range map[string]*s3.PutObjectInput{
			"plain.txt": {ServerSideEncryption: ""},
			"s3.txt":    {ServerSideEncryption: types.ServerSideEncryptionAes256},
			"kms.txt":   {ServerSideEncryption: types.ServerSideEncryptionAwsKms}, // the default key
		} {
			in.Bucket, in.Key, in.Body = aws.String("enc"), aws.String(key), strings.NewReader("hello, "+key)
			if _, err := c.PutObject(ctx, in); err != nil {
				p.t.Fatalf("PutObject %s: %v", key, err)
			}
		}
		p.signIn(testutil.AccessKey, testutil.SecretKey)
		for key, want := range map[string][2]string{
			"plain.txt": {"None", ""}, "s3.txt": {"SSE-S3 (AES256)", ""}, "kms.txt": {"SSE-KMS", kms.SSES3KeyID},
		} {
			openObject(p, "enc", "", key)
			if got := p.text(hook("detail-encryption")); got != want[0] {
				p.t.Errorf("%s: detail-encryption %q, want %q", key, got, want[0])
			}
			got := p.eval(`(document.querySelector('[data-test="detail-kms-key"]') || {}).textContent || ''`)
			if got != want[1] && !strings.HasSuffix(got, ":key/"+want[1]) {
				p.t.Errorf("%s: detail-kms-key %q, want %q", key, got, want[1])
			}
		}
	})
}

// wantBucketEncryption asserts bucket's default encryption as the S3 API
// answers it (mode "": none).
func wantBucketEncryption(t *testing.T, c *s3.Client, bucket string, mode types.ServerSideEncryption, key string) {
	t.Helper()
	out, err := c.GetBucketEncryption(context.Background(), &s3.GetBucketEncryptionInput{Bucket: aws.String(bucket)})
	var ae smithy.APIError
	if mode == "" {
		if !errors.As(err, &ae) || ae.ErrorCode() != "ServerSideEncryptionConfigurationNotFoundError" {
			t.Fatalf("GetBucketEncryption %s: %v, want ServerSideEncryptionConfigurationNotFoundError", bucket, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("GetBucketEncryption %s: %v", bucket, err)
	}
	rules := out.ServerSideEncryptionConfiguration.Rules
	if len(rules) != 1 || rules[0].ApplyServerSideEncryptionByDefault == nil {
		t.Fatalf("GetBucketEncryption %s: %d rules, want one default", bucket, len(rules))
	}
	d := rules[0].ApplyServerSideEncryptionByDefault
	// JOG answers a key as its ARN (…:key/ID), as S3 may.
	if got := aws.ToString(d.KMSMasterKeyID); d.SSEAlgorithm != mode || (got != key && !strings.HasSuffix(got, ":key/"+key)) {
		t.Fatalf("GetBucketEncryption %s: %s key %q, want %s key %q", bucket, d.SSEAlgorithm, aws.ToString(d.KMSMasterKeyID), mode, key)
	}
}
