package integration

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/testutil"
)

// rotateOwnKeys is AWS's example policy "Allows IAM users to rotate their
// own access keys programmatically and in the console".
const rotateOwnKeys = `{
  "Version": "2012-10-17",
  "Statement": [{
    "Effect": "Allow",
    "Action": ["iam:DeleteAccessKey", "iam:GetAccessKeyLastUsed", "iam:UpdateAccessKey", "iam:CreateAccessKey", "iam:ListAccessKeys"],
    "Resource": "arn:aws:iam::*:user/${aws:username}"
  }]
}`

// newIAMUser creates user name with the inline policy doc (none when
// "") and an access key, returned.
func newIAMUser(t *testing.T, root *iam.Client, name, doc string) (string, string) {
	t.Helper()
	ctx := context.Background()
	if _, err := root.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(name)}); err != nil {
		t.Fatal(err)
	}
	if doc != "" {
		if _, err := root.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(name), PolicyName: aws.String("p"), PolicyDocument: aws.String(doc)}); err != nil {
			t.Fatal(err)
		}
	}
	k, err := root.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(k.AccessKey.AccessKeyId), aws.ToString(k.AccessKey.SecretAccessKey)
}

// iamUserClient creates user name (newIAMUser) and returns an IAM client
// signing with its key.
func iamUserClient(t *testing.T, srv *testutil.Server, root *iam.Client, name, doc string) *iam.Client {
	t.Helper()
	id, secret := newIAMUser(t, root, name, doc)
	return iamClient(t, srv, id, secret)
}

// s3UserClient creates user name (newIAMUser) and returns an S3 client
// signing with its key.
func s3UserClient(t *testing.T, srv *testutil.Server, root *iam.Client, name, doc string) *s3.Client {
	t.Helper()
	id, secret := newIAMUser(t, root, name, doc)
	return srv.AWSClient(t, func(o *s3.Options) { o.Credentials = credentials.NewStaticCredentialsProvider(id, secret, "") })
}

// startIAMServer starts a server with the buckets, and returns it, the
// root's IAM client and the root's S3 client.
func startIAMServer(t *testing.T, buckets ...string) (*testutil.Server, *iam.Client, *s3.Client) {
	t.Helper()
	srv := testutil.StartServer(t, testutil.WithoutFsync())
	rootS3 := srv.AWSClient(t)
	for _, b := range buckets {
		if _, err := rootS3.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
	return srv, iamClient(t, srv, srv.Config.AccessKey, srv.Config.SecretKey), rootS3
}

// TestIAMUserCallers: IAM users call the IAM API under their identity
// policies: the self-service key policy manages the caller's own keys
// and nothing else; iam:* creates users; a condition that does not hold
// denies; every denial is IAM's AccessDenied and changes nothing.
func TestIAMUserCallers(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithoutFsync())
	ctx := context.Background()
	root := iamClient(t, srv, srv.Config.AccessKey, srv.Config.SecretKey)
	self := iamUserClient(t, srv, root, "selfie", rotateOwnKeys)
	admin := iamUserClient(t, srv, root, "admin", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:*","Resource":"*"}]}`)
	remote := iamUserClient(t, srv, root, "remote", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:*","Resource":"*","Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}]}`)
	nobody := iamUserClient(t, srv, root, "nobody", "")
	if _, err := root.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("other")}); err != nil {
		t.Fatal(err)
	}
	me, err := root.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("selfie")})
	if err != nil {
		t.Fatal(err)
	}
	acct := strings.Split(aws.ToString(me.User.Arn), ":")[4]

	// Its own keys, UserName implied by the signing key.
	k, err := self.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{})
	if err != nil {
		t.Fatalf("CreateAccessKey of itself: %v", err)
	}
	if aws.ToString(k.AccessKey.UserName) != "selfie" {
		t.Fatalf("CreateAccessKey for %q", aws.ToString(k.AccessKey.UserName))
	}
	l, err := self.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: aws.String("selfie")})
	if err != nil || len(l.AccessKeyMetadata) != 2 {
		t.Fatalf("ListAccessKeys of itself: %+v, %v", l, err)
	}
	if _, err := self.UpdateAccessKey(ctx, &iam.UpdateAccessKeyInput{AccessKeyId: k.AccessKey.AccessKeyId, Status: "Inactive"}); err != nil {
		t.Fatalf("UpdateAccessKey of itself: %v", err)
	}
	if _, err := self.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{AccessKeyId: k.AccessKey.AccessKeyId}); err != nil {
		t.Fatalf("DeleteAccessKey of itself: %v", err)
	}

	// Another user's keys, other users, its own policies: denied.
	_, err = self.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String("other")})
	wantIAMError(t, "CreateAccessKey of another user", err, "AccessDenied", 403)
	_, err = self.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: aws.String("other")})
	wantIAMError(t, "ListAccessKeys of another user", err, "AccessDenied", 403)
	_, err = self.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("mallory")})
	wantIAMError(t, "CreateUser", err, "AccessDenied", 403)
	want := "User: arn:aws:iam::" + acct + ":user/selfie is not authorized to perform: iam:CreateUser on resource: arn:aws:iam::" + acct + ":user/mallory"
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("CreateUser denial: %v, want %q", err, want)
	}
	// No escalation: attaching an admin policy to itself needs
	// iam:AttachUserPolicy / iam:PutUserPolicy, which it lacks.
	adminPolicy, err := root.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("everything"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = self.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String("selfie"), PolicyArn: adminPolicy.Policy.Arn})
	wantIAMError(t, "AttachUserPolicy to itself", err, "AccessDenied", 403)
	_, err = self.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("selfie"), PolicyName: aws.String("mine"), PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`)})
	wantIAMError(t, "PutUserPolicy to itself", err, "AccessDenied", 403)
	_, err = nobody.ListUsers(ctx, &iam.ListUsersInput{})
	wantIAMError(t, "ListUsers without a policy", err, "AccessDenied", 403)
	_, err = nobody.GetUser(ctx, &iam.GetUserInput{})
	wantIAMError(t, "GetUser of itself without a policy", err, "AccessDenied", 403)
	// aws:SourceIp: the test's requests come from 127.0.0.1.
	_, err = remote.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("mallory")})
	wantIAMError(t, "CreateUser outside the allowed network", err, "AccessDenied", 403)

	// Nothing changed.
	_, err = root.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("mallory")})
	wantIAMError(t, "mallory after denials", err, "NoSuchEntity", 404)
	if ks, err := root.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: aws.String("other")}); err != nil || len(ks.AccessKeyMetadata) != 0 {
		t.Fatalf("other's keys: %+v, %v", ks, err)
	}
	if ap, err := root.ListAttachedUserPolicies(ctx, &iam.ListAttachedUserPoliciesInput{UserName: aws.String("selfie")}); err != nil || len(ap.AttachedPolicies) != 0 {
		t.Fatalf("selfie's attached policies: %+v, %v", ap, err)
	}
	if ps, err := root.ListUserPolicies(ctx, &iam.ListUserPoliciesInput{UserName: aws.String("selfie")}); err != nil || len(ps.PolicyNames) != 1 {
		t.Fatalf("selfie's inline policies: %+v, %v", ps, err)
	}

	// iam:* may.
	if _, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("mallory")}); err != nil {
		t.Fatalf("CreateUser with iam:*: %v", err)
	}
	g, err := admin.GetUser(ctx, &iam.GetUserInput{})
	if err != nil || aws.ToString(g.User.UserName) != "admin" {
		t.Fatalf("GetUser of itself: %+v, %v", g, err)
	}
	if _, err := admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String("mallory"), PolicyArn: adminPolicy.Policy.Arn}); err != nil {
		t.Fatalf("AttachUserPolicy with iam:*: %v", err)
	}
}

// TestIAMDelegatedAdmin: IAM's own condition keys. A delegated
// administrator may attach policies only to users under a given
// permissions boundary (iam:PermissionsBoundary), may set only that
// boundary, and may attach only one policy to groups (iam:PolicyARN);
// everything else is refused and changes nothing.
func TestIAMDelegatedAdmin(t *testing.T) {
	srv, root, _ := startIAMServer(t)
	ctx := context.Background()
	mk := func(name, doc string) string {
		t.Helper()
		p, err := root.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String(name), PolicyDocument: aws.String(doc)})
		if err != nil {
			t.Fatal(err)
		}
		return aws.ToString(p.Policy.Arn)
	}
	boundary := mk("Boundary", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`)
	readonly := mk("Readonly", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:Get*","Resource":"*"}]}`)
	for _, u := range []string{"bounded", "free"} {
		if _, err := root.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(u)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := root.PutUserPermissionsBoundary(ctx, &iam.PutUserPermissionsBoundaryInput{UserName: aws.String("bounded"), PermissionsBoundary: aws.String(boundary)}); err != nil {
		t.Fatal(err)
	}
	if _, err := root.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String("g")}); err != nil {
		t.Fatal(err)
	}
	delegate := iamUserClient(t, srv, root, "delegate", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":["iam:CreateUser","iam:AttachUserPolicy","iam:PutUserPermissionsBoundary"],"Resource":"*",
		 "Condition":{"StringEquals":{"iam:PermissionsBoundary":"`+boundary+`"}}},
		{"Effect":"Allow","Action":"iam:AttachGroupPolicy","Resource":"*","Condition":{"ArnEquals":{"iam:PolicyARN":"`+readonly+`"}}}]}`)

	attachUser := func(user, arn string) error {
		_, err := delegate.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String(user), PolicyArn: aws.String(arn)})
		return err
	}
	if err := attachUser("bounded", readonly); err != nil {
		t.Fatalf("attach to a user under the boundary: %v", err)
	}
	wantIAMError(t, "attach to a user without the boundary", attachUser("free", readonly), "AccessDenied", 403)
	_, err := delegate.PutUserPermissionsBoundary(ctx, &iam.PutUserPermissionsBoundaryInput{UserName: aws.String("bounded"), PermissionsBoundary: aws.String(readonly)})
	wantIAMError(t, "swapping the boundary for another", err, "AccessDenied", 403)
	_, err = delegate.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: aws.String("g"), PolicyArn: aws.String(boundary)})
	wantIAMError(t, "attach another policy to a group", err, "AccessDenied", 403)
	// It may create users only under the boundary.
	_, err = delegate.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("unbounded")})
	wantIAMError(t, "CreateUser without the boundary", err, "AccessDenied", 403)
	if _, err := delegate.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("newcomer"), PermissionsBoundary: aws.String(boundary)}); err != nil {
		t.Fatalf("CreateUser under the boundary: %v", err)
	}
	_, err = root.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("unbounded")})
	wantIAMError(t, "unbounded after the refusal", err, "NoSuchEntity", 404)
	// Nothing changed by the refusals.
	if u, err := root.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("bounded")}); err != nil || aws.ToString(u.User.PermissionsBoundary.PermissionsBoundaryArn) != boundary {
		t.Fatalf("bounded's boundary: %+v, %v", u, err)
	}
	if ap, err := root.ListAttachedUserPolicies(ctx, &iam.ListAttachedUserPoliciesInput{UserName: aws.String("free")}); err != nil || len(ap.AttachedPolicies) != 0 {
		t.Fatalf("free's policies: %+v, %v", ap, err)
	}
	if ap, err := root.ListAttachedGroupPolicies(ctx, &iam.ListAttachedGroupPoliciesInput{GroupName: aws.String("g")}); err != nil || len(ap.AttachedPolicies) != 0 {
		t.Fatalf("g's policies: %+v, %v", ap, err)
	}
	// Setting the allowed boundary on a free user, then attaching, may.
	if _, err := delegate.PutUserPermissionsBoundary(ctx, &iam.PutUserPermissionsBoundaryInput{UserName: aws.String("free"), PermissionsBoundary: aws.String(boundary)}); err != nil {
		t.Fatalf("setting the allowed boundary: %v", err)
	}
	if err := attachUser("free", readonly); err != nil {
		t.Fatalf("attach once under the boundary: %v", err)
	}
	if _, err := delegate.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: aws.String("g"), PolicyArn: aws.String(readonly)}); err != nil {
		t.Fatalf("attach the allowed policy to a group: %v", err)
	}
}
