package integration

// Repeated headers (issue 43, finding A): a policy reads every line of a
// header, a handler one. For each condition key a request header gives,
// an IAM user may write only with one value of it; it sends the
// forbidden value on one line and the allowed one on the next, signed
// (SigV4 signs the lines joined). JOG refuses the request before either
// reads the header, and nothing is stored or changed.

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// repeatCase is one header-derived condition key and a write it governs.
type repeatCase struct {
	key, header        string
	allowed, forbidden string
	bucket             string
	// op is "put" (PutObject), "copy" (CopyObject) or "bucket-acl"
	// (PutBucketAcl); extra are headers the write needs besides.
	op    string
	extra []string
}

// actions are the IAM actions the case's write needs with its header.
func (c repeatCase) actions() string {
	switch c.op {
	case "bucket-acl":
		return `"s3:PutBucketAcl"`
	case "copy":
		return `"s3:PutObject"`
	}
	return `["s3:PutObject","s3:PutObjectAcl","s3:PutObjectRetention","s3:PutObjectLegalHold"]`
}

// policy allows the write only with the allowed value ("allow"), or
// allows everything and denies the write with any other value through a
// negated operator ("deny").
func (c repeatCase) policy(variant string) string {
	cond := fmt.Sprintf(`{"%s":{"%s":%q}}`, map[string]string{"allow": "StringEquals", "deny": "StringNotEquals"}[variant], c.key, c.allowed)
	if variant == "allow" {
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"},
			{"Effect":"Allow","Action":` + c.actions() + `,"Resource":"*","Condition":` + cond + `}]}`
	}
	return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"},
		{"Effect":"Deny","Action":` + c.actions() + `,"Resource":"*","Condition":` + cond + `}]}`
}

const (
	allUsers  = `uri="http://acs.amazonaws.com/groups/global/AllUsers"`
	authUsers = `uri="http://acs.amazonaws.com/groups/global/AuthenticatedUsers"`
)

func repeatCases() []repeatCase {
	until := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
	soon, late := until.Format(time.RFC3339), until.AddDate(20, 0, 0).Format(time.RFC3339)
	lockUntil := "X-Amz-Object-Lock-Retain-Until-Date: " + soon
	cases := []repeatCase{
		{key: "s3:x-amz-acl", header: "X-Amz-Acl", allowed: "private", forbidden: "public-read", bucket: "acl", op: "put"},
		{key: "s3:x-amz-grant-write", header: "X-Amz-Grant-Write", allowed: authUsers, forbidden: allUsers, bucket: "aclb", op: "bucket-acl"},
		{key: "s3:object-lock-mode", header: "X-Amz-Object-Lock-Mode", allowed: "GOVERNANCE", forbidden: "COMPLIANCE", bucket: "lock", op: "put", extra: []string{lockUntil}},
		{key: "s3:object-lock-retain-until-date", header: "X-Amz-Object-Lock-Retain-Until-Date", allowed: soon, forbidden: late, bucket: "lock", op: "put",
			extra: []string{"X-Amz-Object-Lock-Mode: GOVERNANCE"}},
		{key: "s3:object-lock-legal-hold", header: "X-Amz-Object-Lock-Legal-Hold", allowed: "OFF", forbidden: "ON", bucket: "lock", op: "put"},
		{key: "s3:x-amz-content-sha256", header: "X-Amz-Content-Sha256", allowed: itest.SHA256Hex(repeatBody), forbidden: "UNSIGNED-PAYLOAD", bucket: "plain", op: "put"},
		{key: "s3:x-amz-copy-source", header: "X-Amz-Copy-Source", allowed: "copy/public/a", forbidden: "copy/secret/b", bucket: "copy", op: "copy"},
		{key: "s3:x-amz-metadata-directive", header: "X-Amz-Metadata-Directive", allowed: "COPY", forbidden: "REPLACE", bucket: "copy", op: "copy",
			extra: []string{"X-Amz-Copy-Source: copy/public/a"}},
		{key: "s3:x-amz-storage-class", header: "X-Amz-Storage-Class", allowed: "STANDARD", forbidden: "GLACIER", bucket: "plain", op: "put"},
		{key: "aws:referer", header: "Referer", allowed: "https://app.example/", forbidden: "https://evil.example/", bucket: "plain", op: "put"},
		{key: "aws:useragent", header: "User-Agent", allowed: "allowed-agent/1.0", forbidden: "forbidden-agent/1.0", bucket: "plain", op: "put"},
		{key: "s3:x-amz-server-side-encryption", header: "X-Amz-Server-Side-Encryption", allowed: "AES256", forbidden: "aws:kms", bucket: "plain", op: "put"},
		{key: "s3:x-amz-server-side-encryption-aws-kms-key-id", header: "X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id", allowed: kms.SSES3KeyID, forbidden: "other-key",
			bucket: "plain", op: "put", extra: []string{"X-Amz-Server-Side-Encryption: aws:kms"}},
	}
	for _, g := range []string{"full-control", "read", "read-acp", "write-acp"} {
		cases = append(cases, repeatCase{key: "s3:x-amz-grant-" + g, header: "X-Amz-Grant-" + g, allowed: authUsers, forbidden: allUsers, bucket: "acl", op: "put"})
	}
	return cases
}

var repeatBody = []byte("a body written only with the allowed header value")

// sendRepeated sends c's write, as the user with key id and secret, to
// target (the object or bucket path) with values as the header's lines,
// over a raw connection: net/http's client would send one User-Agent.
func sendRepeated(t *testing.T, srv *testutil.Server, id, secret, target string, c repeatCase, values ...string) (int, string) {
	t.Helper()
	method, body := http.MethodPut, repeatBody
	if c.op != "put" {
		body = nil
	}
	req := itest.RawRequest(t, srv, method, target, nil)
	for _, l := range c.extra {
		name, v, _ := strings.Cut(l, ": ")
		req.Header.Set(name, v)
	}
	if c.bucket == "lock" {
		sum := md5.Sum(body)
		req.Header.Set("Content-Md5", base64.StdEncoding.EncodeToString(sum[:]))
	}
	for _, v := range values {
		req.Header.Add(c.header, v)
	}
	payload := itest.SHA256Hex(body)
	if v := req.Header.Values("X-Amz-Content-Sha256"); len(v) > 0 {
		payload = v[0]
	} else {
		req.Header.Set("X-Amz-Content-Sha256", payload)
	}
	if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: id, SecretAccessKey: secret},
		req, payload, "s3", testutil.Region, time.Now()); err != nil {
		t.Fatal(err)
	}
	resp, rb, _ := rawExchange(t, srv, req, rawHead(req, fmt.Sprintf("Content-Length: %d", len(body))), strings.NewReader(string(body)))
	if resp == nil {
		t.Fatalf("%s %v: no response", c.header, values)
	}
	return resp.StatusCode, itest.BodyCode(rb)
}

// TestRepeatedHeadersRefused: every header-derived condition key, with an
// Allow on the allowed value and with a Deny on any other (StringNotEquals):
// the allowed value alone is written, the forbidden one alone is 403, the
// forbidden then the allowed on two lines is 400 InvalidArgument and
// nothing is stored or changed.
func TestRepeatedHeadersRefused(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithoutFsync())
	root := srv.AWSClient(t)
	admin := iamClient(t, srv, testutil.AccessKey, testutil.SecretKey)
	createOwnershipBucket(t, root, "acl", types.ObjectOwnershipObjectWriter)
	createOwnershipBucket(t, root, "aclb", types.ObjectOwnershipObjectWriter)
	createLockBucket(t, root, "lock")
	itest.CreateBucket(t, root, "plain")
	itest.CreateBucket(t, root, "copy")
	itest.Put(t, root, "copy", "public/a", []byte("public"))
	itest.Put(t, root, "copy", "secret/b", []byte("secret"))

	covered := map[string]bool{}
	for i, c := range repeatCases() {
		covered[c.key] = true
		for _, variant := range []string{"allow", "deny"} {
			t.Run(c.key+"/"+variant, func(t *testing.T) {
				id, secret := newIAMUser(t, admin, fmt.Sprintf("rep-%d-%s", i, variant), c.policy(variant))
				target := func(what string) string {
					if c.op == "bucket-acl" {
						return "/" + c.bucket + "?acl"
					}
					return fmt.Sprintf("/%s/%s-%d-%s", c.bucket, what, i, variant)
				}
				if st, code := sendRepeated(t, srv, id, secret, target("allowed"), c, c.allowed); st != http.StatusOK {
					t.Fatalf("the allowed value alone: %d %s, want 200", st, code)
				}
				if st, code := sendRepeated(t, srv, id, secret, target("forbidden"), c, c.forbidden); st != http.StatusForbidden {
					t.Fatalf("the forbidden value alone: %d %s, want 403", st, code)
				}
				before := bucketGrants(t, root, c)
				st, code := sendRepeated(t, srv, id, secret, target("both"), c, c.forbidden, c.allowed)
				if st != http.StatusBadRequest || code != "InvalidArgument" {
					t.Errorf("forbidden then allowed: %d %s, want 400 InvalidArgument", st, code)
				}
				if c.op == "bucket-acl" {
					if after := bucketGrants(t, root, c); !slices.Equal(before, after) {
						t.Errorf("the bucket's ACL changed: %v, then %v", before, after)
					}
				} else {
					itest.WantNoObject(t, root, c.bucket, strings.TrimPrefix(target("both"), "/"+c.bucket+"/"))
				}
			})
		}
	}
	for _, k := range authz.HeaderKeys() {
		if !covered[k] {
			t.Errorf("condition key %s has no case", k)
		}
	}

	// One line whose value is a list where the header takes one value:
	// not the allowed value for the policy (403), not a valid one for the
	// handler (400 for the root, whom no policy binds). Nothing stored.
	for i, c := range repeatCases() {
		if c.key != "s3:x-amz-acl" && c.key != "s3:object-lock-mode" {
			continue
		}
		id, secret := newIAMUser(t, admin, fmt.Sprintf("comma-%d", i), c.policy("deny"))
		one := c.forbidden + ", " + c.allowed
		for _, who := range []struct{ name, id, secret string }{{"user", id, secret}, {"root", testutil.AccessKey, testutil.SecretKey}} {
			key := fmt.Sprintf("comma-%d-%s", i, who.name)
			st, code := sendRepeated(t, srv, who.id, who.secret, "/"+c.bucket+"/"+key, c, one)
			if want := map[string]int{"user": http.StatusForbidden, "root": http.StatusBadRequest}[who.name]; st != want {
				t.Errorf("%s: %q as the %s: %d %s, want %d", c.header, one, who.name, st, code, want)
			}
			itest.WantNoObject(t, root, c.bucket, key)
		}
	}
}

// bucketGrants is the case's bucket ACL, for a bucket-acl case (else nil).
func bucketGrants(t *testing.T, root *s3.Client, c repeatCase) []string {
	t.Helper()
	if c.op != "bucket-acl" {
		return nil
	}
	out, err := root.GetBucketAcl(context.Background(), &s3.GetBucketAclInput{Bucket: aws.String(c.bucket)})
	if err != nil {
		t.Fatal(err)
	}
	return grantsOf(out.Grants)
}
