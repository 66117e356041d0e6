package integration

import (
	"context"
	"encoding/xml"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// permsBootstrap: reader may read and list but not read secret/ (an
// explicit Deny); writer may do anything to objects.
const permsBootstrap = `{"users": [
 {"name": "reader", "accessKeys": [{"accessKeyId": "AKIAPERMREADER000000", "secretAccessKey": "reader-secret-000000000000000000000000000"}],
  "policies": {"read": {"Version": "2012-10-17", "Statement": [
   {"Effect": "Allow", "Action": ["s3:Get*", "s3:List*"], "Resource": "*"},
   {"Effect": "Deny", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::perms/secret/*"}]}}},
 {"name": "writer", "accessKeys": [{"accessKeyId": "AKIAPERMWRITER000000", "secretAccessKey": "writer-secret-000000000000000000000000000"}],
  "policies": {"write": {"Version": "2012-10-17", "Statement": [
   {"Effect": "Allow", "Action": ["s3:*Object", "s3:ListBucket"], "Resource": "*"}]}}}
]}`

var permsKeys = map[string]itest.SignOpts{
	"reader": {AccessKey: "AKIAPERMREADER000000", SecretKey: "reader-secret-000000000000000000000000000"},
	"writer": {AccessKey: "AKIAPERMWRITER000000", SecretKey: "writer-secret-000000000000000000000000000"},
	"root":   {},
}

type permsAnswer struct {
	Principal   string
	Resource    string
	Permissions []struct {
		Action  string
		Allowed bool
	} `xml:"Permission"`
	NotificationTargets *bool
}

// TestGetPermissions: GetBucketPermissions and GetObjectPermissions answer
// each action as the real request of the same caller is decided — the
// identity policy, its explicit Deny on secret/, and the bucket policy
// granting reader uploads under drop/ — always about the signer (another
// principal cannot be named), and never to an anonymous request.
func TestGetPermissions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "iam.json")
	if err := os.WriteFile(file, []byte(permsBootstrap), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := testutil.StartServer(t, testutil.WithIAMBootstrap(file), testutil.WithoutFsync())
	root := srv.AWSClient(t)
	itest.CreateBucket(t, root, "perms")
	for _, k := range []string{"secret/a", "open/a"} {
		itest.Put(t, root, "perms", k, []byte("bytes"))
	}
	grant := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::perms/drop/*",
	 "Condition":{"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::*:user/reader"}}}]}`
	if _, err := root.PutBucketPolicy(context.Background(), &s3.PutBucketPolicyInput{Bucket: aws.String("perms"), Policy: aws.String(grant)}); err != nil {
		t.Fatal(err)
	}
	send := func(who, method, path string) (*http.Response, []byte) {
		t.Helper()
		req := itest.RawRequest(t, srv, method, path, nil)
		if o, ok := permsKeys[who]; ok {
			itest.Sign(t, req, nil, o)
		}
		return itest.Do(t, req)
	}
	ask := func(who, path string) permsAnswer {
		t.Helper()
		resp, body := send(who, "GET", path)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: %s %s", who, path, resp.Status, body)
		}
		var a permsAnswer
		if err := xml.Unmarshal(body, &a); err != nil {
			t.Fatalf("%s %s: %v in %s", who, path, err, body)
		}
		return a
	}
	allowed := func(a permsAnswer) string {
		var b strings.Builder
		for _, p := range a.Permissions {
			b.WriteString(p.Action)
			if p.Allowed {
				b.WriteString("=yes ")
			} else {
				b.WriteString("=no ")
			}
		}
		return strings.TrimSpace(b.String())
	}
	for _, c := range []struct{ who, path, want string }{
		{"reader", "/perms?permissions&actions=s3:ListBucket,s3:DeleteBucket,s3:PutBucketPolicy,s3:GetBucketPolicy",
			"s3:ListBucket=yes s3:DeleteBucket=no s3:PutBucketPolicy=no s3:GetBucketPolicy=yes"},
		{"reader", "/perms/open/a?permissions&actions=s3:GetObject,s3:PutObject,s3:DeleteObject", "s3:GetObject=yes s3:PutObject=no s3:DeleteObject=no"},
		{"reader", "/perms/secret/a?permissions&actions=s3:GetObject,s3:GetObjectTagging", "s3:GetObject=no s3:GetObjectTagging=yes"},
		{"reader", "/perms/drop/?permissions&actions=s3:PutObject", "s3:PutObject=yes"},
		{"writer", "/perms?permissions&actions=s3:ListBucket,s3:DeleteBucket", "s3:ListBucket=yes s3:DeleteBucket=no"},
		{"writer", "/perms/secret/a?permissions&actions=s3:GetObject,s3:DeleteObject", "s3:GetObject=yes s3:DeleteObject=yes"},
		{"root", "/perms?permissions&actions=s3:DeleteBucket,jog:CreateReservation", "s3:DeleteBucket=yes jog:CreateReservation=yes"},
	} {
		a := ask(c.who, c.path)
		if got := allowed(a); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.who, c.path, got, c.want)
		}
		if want := "user/" + c.who; c.who != "root" && !strings.HasSuffix(a.Principal, want) {
			t.Errorf("%s %s: principal %q, want the caller's (%s)", c.who, c.path, a.Principal, want)
		}
	}
	a := ask("reader", "/perms?permissions&actions=s3:ListBucket")
	if a.Resource != "arn:aws:s3:::perms" || a.NotificationTargets == nil || *a.NotificationTargets {
		t.Errorf("bucket answer: resource %q, notification targets %v; want the bucket's ARN and false", a.Resource, a.NotificationTargets)
	}

	// The answers are the real requests' decisions.
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/perms/secret/a", http.StatusForbidden},
		{"GET", "/perms/open/a", http.StatusOK},
		{"DELETE", "/perms", http.StatusForbidden},
		{"DELETE", "/perms/open/a", http.StatusForbidden},
	} {
		if resp, body := send("reader", c.method, c.path); resp.StatusCode != c.status {
			t.Errorf("reader %s %s: %s %s, want %d as the permissions answer says", c.method, c.path, resp.Status, body, c.status)
		}
	}

	// Nobody else's permissions, no unknown action, nothing to anonymous
	// requests.
	for _, c := range []struct{ who, path, code string }{
		{"reader", "/perms?permissions&actions=s3:DeleteBucket&user=writer", "InvalidArgument"},
		{"reader", "/perms?permissions&actions=s3:DeleteBucket&principal=arn:aws:iam::000000000000:user/writer", "InvalidArgument"},
		{"reader", "/perms?permissions&actions=s3:*", "InvalidArgument"},
		{"reader", "/perms?permissions&actions=s3:NoSuchAction", "InvalidArgument"},
		{"reader", "/perms?permissions", "InvalidArgument"},
		{"anonymous", "/perms?permissions&actions=s3:ListBucket", "AccessDenied"},
	} {
		if resp, body := send(c.who, "GET", c.path); resp.StatusCode/100 != 4 || itest.BodyCode(body) != c.code {
			t.Errorf("%s %s: %s %s, want %s", c.who, c.path, resp.Status, body, c.code)
		}
	}
}
