package integration

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/smithy-go"

	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// iamClient is aws-sdk-go-v2's IAM client for srv, signing with key.
func iamClient(t *testing.T, srv *testutil.Server, access, secret string) *iam.Client {
	t.Helper()
	return iamTokenClient(t, srv, access, secret, "")
}

// iamTokenClient is an IAM client signing with temporary credentials
// (token: their session token).
func iamTokenClient(t *testing.T, srv *testutil.Server, access, secret, token string) *iam.Client {
	t.Helper()
	return iam.NewFromConfig(queryConfig(t, srv, access, secret, token), func(o *iam.Options) { o.BaseEndpoint = aws.String(srv.URL) })
}

// queryConfig is the SDK configuration of an IAM or STS client of srv
// (token: a session token, or "").
func queryConfig(t *testing.T, srv *testutil.Server, access, secret, token string) aws.Config {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(),
		config.WithRegion(srv.Config.Region),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(access, secret, token)),
		config.WithRetryMaxAttempts(1),
	)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// wantIAMError checks err is IAM's code with HTTP status.
func wantIAMError(t *testing.T, what string, err error, code string, status int) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != code {
		t.Fatalf("%s: err %v, want %s", what, err, code)
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) && re.HTTPStatusCode() != status {
		t.Fatalf("%s: status %d, want %d", what, re.HTTPStatusCode(), status)
	}
}

const (
	allowGet  = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}]}`
	trustEC2  = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}`
	malformed = `{"Version":"2012-10-17","Statement":[{"Effect":"Maybe","Action":"s3:GetObject","Resource":"*"}]}`
)

// TestIAMUsersAndKeys: users and access keys through the SDK, with IAM's
// errors.
func TestIAMUsersAndKeys(t *testing.T) {
	srv := testutil.StartServer(t)
	c := iamClient(t, srv, srv.Config.AccessKey, srv.Config.SecretKey)
	ctx := context.Background()

	u, err := c.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice"), Path: aws.String("/team/")})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(u.User.UserName) != "alice" || aws.ToString(u.User.Path) != "/team/" ||
		!strings.HasSuffix(aws.ToString(u.User.Arn), ":user/team/alice") || !strings.HasPrefix(aws.ToString(u.User.UserId), "AIDA") || u.User.CreateDate == nil {
		t.Fatalf("CreateUser: %+v", u.User)
	}
	_, err = c.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("Alice")})
	wantIAMError(t, "CreateUser again", err, "EntityAlreadyExists", 409)
	_, err = c.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("bad/name")})
	wantIAMError(t, "CreateUser bad name", err, "ValidationError", 400)
	g, err := c.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("alice")})
	if err != nil || aws.ToString(g.User.Arn) != aws.ToString(u.User.Arn) {
		t.Fatalf("GetUser: %+v, %v", g, err)
	}
	_, err = c.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("nobody")})
	wantIAMError(t, "GetUser missing", err, "NoSuchEntity", 404)

	for _, n := range []string{"bob", "carol", "dave"} {
		if _, err := c.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(n)}); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	var marker *string
	for pages := 0; ; pages++ {
		l, err := c.ListUsers(ctx, &iam.ListUsersInput{MaxItems: aws.Int32(3), Marker: marker})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range l.Users {
			names = append(names, aws.ToString(u.UserName))
		}
		if !l.IsTruncated {
			break
		}
		marker = l.Marker
		if pages > 3 {
			t.Fatal("ListUsers does not end")
		}
	}
	if strings.Join(names, ",") != "alice,bob,carol,dave" {
		t.Fatalf("ListUsers: %v", names)
	}
	l, err := c.ListUsers(ctx, &iam.ListUsersInput{PathPrefix: aws.String("/team/")})
	if err != nil || len(l.Users) != 1 || aws.ToString(l.Users[0].UserName) != "alice" {
		t.Fatalf("ListUsers /team/: %+v, %v", l, err)
	}

	k1, err := c.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String("alice")})
	if err != nil {
		t.Fatal(err)
	}
	if id := aws.ToString(k1.AccessKey.AccessKeyId); !strings.HasPrefix(id, "AKIA") || len(id) != 20 ||
		len(aws.ToString(k1.AccessKey.SecretAccessKey)) != 40 || k1.AccessKey.Status != "Active" {
		t.Fatalf("CreateAccessKey: %+v", k1.AccessKey)
	}
	if _, err := c.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String("alice")}); err != nil {
		t.Fatal(err)
	}
	_, err = c.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String("alice")})
	wantIAMError(t, "third key", err, "LimitExceeded", 409)
	_, err = c.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String("nobody")})
	wantIAMError(t, "key for nobody", err, "NoSuchEntity", 404)

	id := k1.AccessKey.AccessKeyId
	if _, err := c.UpdateAccessKey(ctx, &iam.UpdateAccessKeyInput{UserName: aws.String("alice"), AccessKeyId: id, Status: "Inactive"}); err != nil {
		t.Fatal(err)
	}
	_, err = c.UpdateAccessKey(ctx, &iam.UpdateAccessKeyInput{UserName: aws.String("alice"), AccessKeyId: id, Status: "Sleeping"})
	wantIAMError(t, "bad status", err, "ValidationError", 400)
	ks, err := c.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: aws.String("alice")})
	if err != nil || len(ks.AccessKeyMetadata) != 2 {
		t.Fatalf("ListAccessKeys: %+v, %v", ks, err)
	}
	// Keys created in the same millisecond may list in either order.
	status := map[string]string{}
	var active string
	for _, k := range ks.AccessKeyMetadata {
		status[aws.ToString(k.AccessKeyId)] = string(k.Status)
		if k.Status == "Active" {
			active = aws.ToString(k.AccessKeyId)
		}
	}
	if status[aws.ToString(id)] != "Inactive" || active == "" || aws.ToString(ks.AccessKeyMetadata[0].UserName) != "alice" {
		t.Fatalf("ListAccessKeys: %v", status)
	}
	// The user's key authenticates IAM requests (TestIAMUserCallers):
	// with a wrong secret it does not.
	_, err = iamClient(t, srv, active, "whatever").ListUsers(ctx, &iam.ListUsersInput{})
	wantIAMError(t, "user key, wrong secret", err, "SignatureDoesNotMatch", 403)

	_, err = c.DeleteUser(ctx, &iam.DeleteUserInput{UserName: aws.String("alice")})
	wantIAMError(t, "DeleteUser with keys", err, "DeleteConflict", 409)
	for _, k := range ks.AccessKeyMetadata {
		if _, err := c.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{UserName: aws.String("alice"), AccessKeyId: k.AccessKeyId}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = c.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{UserName: aws.String("alice"), AccessKeyId: id})
	wantIAMError(t, "DeleteAccessKey again", err, "NoSuchEntity", 404)
	if _, err := c.DeleteUser(ctx, &iam.DeleteUserInput{UserName: aws.String("alice")}); err != nil {
		t.Fatal(err)
	}
	_, err = c.DeleteUser(ctx, &iam.DeleteUserInput{UserName: aws.String("alice")})
	wantIAMError(t, "DeleteUser again", err, "NoSuchEntity", 404)
}

// TestIAMPolicies: managed and inline policies and attachments, on users,
// groups and roles.
func TestIAMPolicies(t *testing.T) {
	srv := testutil.StartServer(t)
	c := iamClient(t, srv, srv.Config.AccessKey, srv.Config.SecretKey)
	ctx := context.Background()
	for _, n := range []string{"alice", "bob"} {
		if _, err := c.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(n)}); err != nil {
			t.Fatal(err)
		}
	}

	// Inline user policies: documents come back URL-encoded, as IAM's.
	if _, err := c.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("read"), PolicyDocument: aws.String(allowGet)}); err != nil {
		t.Fatal(err)
	}
	_, err := c.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("bad"), PolicyDocument: aws.String(malformed)})
	wantIAMError(t, "PutUserPolicy malformed", err, "MalformedPolicyDocument", 400)
	_, err = c.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("nobody"), PolicyName: aws.String("read"), PolicyDocument: aws.String(allowGet)})
	wantIAMError(t, "PutUserPolicy nobody", err, "NoSuchEntity", 404)
	gp, err := c.GetUserPolicy(ctx, &iam.GetUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("read")})
	if err != nil {
		t.Fatal(err)
	}
	if doc, _ := url.QueryUnescape(aws.ToString(gp.PolicyDocument)); doc != allowGet || aws.ToString(gp.PolicyDocument) == allowGet ||
		aws.ToString(gp.UserName) != "alice" || aws.ToString(gp.PolicyName) != "read" {
		t.Fatalf("GetUserPolicy: %+v", gp)
	}
	lp, err := c.ListUserPolicies(ctx, &iam.ListUserPoliciesInput{UserName: aws.String("alice")})
	if err != nil || len(lp.PolicyNames) != 1 || lp.PolicyNames[0] != "read" {
		t.Fatalf("ListUserPolicies: %+v, %v", lp, err)
	}
	_, err = c.GetUserPolicy(ctx, &iam.GetUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("write")})
	wantIAMError(t, "GetUserPolicy missing", err, "NoSuchEntity", 404)

	// Managed policies.
	p, err := c.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("readers"), PolicyDocument: aws.String(allowGet), Description: aws.String("read b")})
	if err != nil {
		t.Fatal(err)
	}
	arn := p.Policy.Arn
	if !strings.HasSuffix(aws.ToString(arn), ":policy/readers") || aws.ToString(p.Policy.DefaultVersionId) != "v1" || !p.Policy.IsAttachable {
		t.Fatalf("CreatePolicy: %+v", p.Policy)
	}
	_, err = c.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("readers"), PolicyDocument: aws.String(allowGet)})
	wantIAMError(t, "CreatePolicy again", err, "EntityAlreadyExists", 409)
	_, err = c.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("bad"), PolicyDocument: aws.String(malformed)})
	wantIAMError(t, "CreatePolicy malformed", err, "MalformedPolicyDocument", 400)
	_, err = c.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("huge"), PolicyDocument: aws.String(hugePolicy())})
	wantIAMError(t, "CreatePolicy huge", err, "LimitExceeded", 409)
	pv, err := c.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: arn, VersionId: aws.String("v1")})
	if err != nil {
		t.Fatal(err)
	}
	if doc, _ := url.QueryUnescape(aws.ToString(pv.PolicyVersion.Document)); doc != allowGet || !pv.PolicyVersion.IsDefaultVersion {
		t.Fatalf("GetPolicyVersion: %+v", pv.PolicyVersion)
	}
	_, err = c.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: arn, VersionId: aws.String("v2")})
	wantIAMError(t, "GetPolicyVersion v2", err, "NoSuchEntity", 404)
	_, err = c.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String("not-an-arn")})
	wantIAMError(t, "GetPolicy bad ARN", err, "InvalidInput", 400)

	if _, err := c.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String("alice"), PolicyArn: arn}); err != nil {
		t.Fatal(err)
	}
	ap, err := c.ListAttachedUserPolicies(ctx, &iam.ListAttachedUserPoliciesInput{UserName: aws.String("alice")})
	if err != nil || len(ap.AttachedPolicies) != 1 || aws.ToString(ap.AttachedPolicies[0].PolicyArn) != aws.ToString(arn) || aws.ToString(ap.AttachedPolicies[0].PolicyName) != "readers" {
		t.Fatalf("ListAttachedUserPolicies: %+v, %v", ap, err)
	}
	gpol, err := c.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: arn})
	if err != nil || aws.ToInt32(gpol.Policy.AttachmentCount) != 1 || aws.ToString(gpol.Policy.Description) != "read b" {
		t.Fatalf("GetPolicy: %+v, %v", gpol, err)
	}
	_, err = c.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: arn})
	wantIAMError(t, "DeletePolicy attached", err, "DeleteConflict", 409)
	lpol, err := c.ListPolicies(ctx, &iam.ListPoliciesInput{Scope: "Local"})
	if err != nil || len(lpol.Policies) != 1 {
		t.Fatalf("ListPolicies: %+v, %v", lpol, err)
	}

	// Groups, with inline and attached policies.
	gr, err := c.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String("devs")})
	if err != nil || !strings.HasSuffix(aws.ToString(gr.Group.Arn), ":group/devs") {
		t.Fatalf("CreateGroup: %+v, %v", gr, err)
	}
	_, err = c.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String("devs")})
	wantIAMError(t, "CreateGroup again", err, "EntityAlreadyExists", 409)
	for _, u := range []string{"bob", "alice"} {
		if _, err := c.AddUserToGroup(ctx, &iam.AddUserToGroupInput{GroupName: aws.String("devs"), UserName: aws.String(u)}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = c.AddUserToGroup(ctx, &iam.AddUserToGroupInput{GroupName: aws.String("devs"), UserName: aws.String("nobody")})
	wantIAMError(t, "AddUserToGroup nobody", err, "NoSuchEntity", 404)
	gg, err := c.GetGroup(ctx, &iam.GetGroupInput{GroupName: aws.String("devs")})
	if err != nil || len(gg.Users) != 2 || aws.ToString(gg.Users[0].UserName) != "alice" || aws.ToString(gg.Group.GroupName) != "devs" {
		t.Fatalf("GetGroup: %+v, %v", gg, err)
	}
	gfu, err := c.ListGroupsForUser(ctx, &iam.ListGroupsForUserInput{UserName: aws.String("bob")})
	if err != nil || len(gfu.Groups) != 1 {
		t.Fatalf("ListGroupsForUser: %+v, %v", gfu, err)
	}
	lg, err := c.ListGroups(ctx, &iam.ListGroupsInput{})
	if err != nil || len(lg.Groups) != 1 {
		t.Fatalf("ListGroups: %+v, %v", lg, err)
	}
	if _, err := c.PutGroupPolicy(ctx, &iam.PutGroupPolicyInput{GroupName: aws.String("devs"), PolicyName: aws.String("read"), PolicyDocument: aws.String(allowGet)}); err != nil {
		t.Fatal(err)
	}
	ggp, err := c.GetGroupPolicy(ctx, &iam.GetGroupPolicyInput{GroupName: aws.String("devs"), PolicyName: aws.String("read")})
	if err != nil || aws.ToString(ggp.GroupName) != "devs" {
		t.Fatalf("GetGroupPolicy: %+v, %v", ggp, err)
	}
	if _, err := c.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: aws.String("devs"), PolicyArn: arn}); err != nil {
		t.Fatal(err)
	}
	agp, err := c.ListAttachedGroupPolicies(ctx, &iam.ListAttachedGroupPoliciesInput{GroupName: aws.String("devs")})
	if err != nil || len(agp.AttachedPolicies) != 1 {
		t.Fatalf("ListAttachedGroupPolicies: %+v, %v", agp, err)
	}
	lgp, err := c.ListGroupPolicies(ctx, &iam.ListGroupPoliciesInput{GroupName: aws.String("devs")})
	if err != nil || len(lgp.PolicyNames) != 1 {
		t.Fatalf("ListGroupPolicies: %+v, %v", lgp, err)
	}
	_, err = c.DeleteGroup(ctx, &iam.DeleteGroupInput{GroupName: aws.String("devs")})
	wantIAMError(t, "DeleteGroup in use", err, "DeleteConflict", 409)

	// Roles with trust policies.
	r, err := c.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("app"), AssumeRolePolicyDocument: aws.String(trustEC2), MaxSessionDuration: aws.Int32(7200)})
	if err != nil {
		t.Fatal(err)
	}
	if doc, _ := url.QueryUnescape(aws.ToString(r.Role.AssumeRolePolicyDocument)); doc != trustEC2 || aws.ToInt32(r.Role.MaxSessionDuration) != 7200 {
		t.Fatalf("CreateRole: %+v", r.Role)
	}
	_, err = c.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("bad"), AssumeRolePolicyDocument: aws.String(allowGet)})
	wantIAMError(t, "CreateRole identity policy as trust", err, "MalformedPolicyDocument", 400)
	if _, err := c.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("app"), PolicyName: aws.String("read"), PolicyDocument: aws.String(allowGet)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("app"), PolicyArn: arn}); err != nil {
		t.Fatal(err)
	}
	gr2, err := c.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("app")})
	if err != nil || aws.ToString(gr2.Role.RoleName) != "app" {
		t.Fatalf("GetRole: %+v, %v", gr2, err)
	}
	lr, err := c.ListRoles(ctx, &iam.ListRolesInput{})
	if err != nil || len(lr.Roles) != 1 {
		t.Fatalf("ListRoles: %+v, %v", lr, err)
	}
	_, err = c.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String("app")})
	wantIAMError(t, "DeleteRole with policies", err, "DeleteConflict", 409)

	// Tear down in IAM's order, then everything is gone.
	steps := []func() error{
		func() error {
			_, err := c.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: aws.String("app"), PolicyArn: arn})
			return err
		},
		func() error {
			_, err := c.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String("app"), PolicyName: aws.String("read")})
			return err
		},
		func() error {
			_, err := c.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String("app")})
			return err
		},
		func() error {
			_, err := c.DetachGroupPolicy(ctx, &iam.DetachGroupPolicyInput{GroupName: aws.String("devs"), PolicyArn: arn})
			return err
		},
		func() error {
			_, err := c.DeleteGroupPolicy(ctx, &iam.DeleteGroupPolicyInput{GroupName: aws.String("devs"), PolicyName: aws.String("read")})
			return err
		},
		func() error {
			_, err := c.RemoveUserFromGroup(ctx, &iam.RemoveUserFromGroupInput{GroupName: aws.String("devs"), UserName: aws.String("alice")})
			return err
		},
		func() error {
			_, err := c.RemoveUserFromGroup(ctx, &iam.RemoveUserFromGroupInput{GroupName: aws.String("devs"), UserName: aws.String("bob")})
			return err
		},
		func() error {
			_, err := c.DeleteGroup(ctx, &iam.DeleteGroupInput{GroupName: aws.String("devs")})
			return err
		},
		func() error {
			_, err := c.DetachUserPolicy(ctx, &iam.DetachUserPolicyInput{UserName: aws.String("alice"), PolicyArn: arn})
			return err
		},
		func() error {
			_, err := c.DeleteUserPolicy(ctx, &iam.DeleteUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("read")})
			return err
		},
		func() error { _, err := c.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: arn}); return err },
		func() error {
			_, err := c.DeleteUser(ctx, &iam.DeleteUserInput{UserName: aws.String("alice")})
			return err
		},
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("teardown step %d: %v", i, err)
		}
	}
	_, err = c.DetachUserPolicy(ctx, &iam.DetachUserPolicyInput{UserName: aws.String("bob"), PolicyArn: arn})
	wantIAMError(t, "DetachUserPolicy not attached", err, "NoSuchEntity", 404)
	_, err = c.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: arn})
	wantIAMError(t, "GetPolicy deleted", err, "NoSuchEntity", 404)
}

func hugePolicy() string {
	return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::` + strings.Repeat("x", 7000) + `"}]}`
}

// TestIAMRefusals: IAM is served only to requests signed for service iam
// by the root: an unknown key, a wrong signature, and an IAM request
// signed for s3 are refused, and nothing is created.
func TestIAMRefusals(t *testing.T) {
	srv := testutil.StartServer(t)
	ctx := context.Background()
	root := iamClient(t, srv, srv.Config.AccessKey, srv.Config.SecretKey)

	_, err := iamClient(t, srv, "AKIAUNKNOWNKEY000000", "secret").CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("eve")})
	wantIAMError(t, "unknown key", err, "InvalidClientTokenId", 403)
	_, err = iamClient(t, srv, srv.Config.AccessKey, "wrong").CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("eve")})
	wantIAMError(t, "wrong secret", err, "SignatureDoesNotMatch", 403)

	// CreateUser's form, signed by the root for s3: the S3 API gets it and
	// refuses it.
	body := "Action=CreateUser&Version=2010-05-08&UserName=eve"
	for _, service := range []string{"s3", "sts"} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		sigv4.SignServiceRequest(req, service, srv.Config.AccessKey, srv.Config.SecretKey, srv.Config.Region, time.Now(), itest.SHA256Hex([]byte(body)))
		resp, err := srv.HTTPClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Fatalf("CreateUser signed for %s: status %d", service, resp.StatusCode)
		}
	}
	// Signed for iam but with a body other than the one signed.
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	sigv4.SignServiceRequest(req, "iam", srv.Config.AccessKey, srv.Config.SecretKey, srv.Config.Region, time.Now(), itest.SHA256Hex([]byte("Action=ListUsers")))
	resp, err := srv.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("body not the signed one: status %d", resp.StatusCode)
	}
	_, err = root.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("eve")})
	wantIAMError(t, "eve after refusals", err, "NoSuchEntity", 404)

	// An unknown action.
	req, _ = http.NewRequest(http.MethodPost, srv.URL+"/", strings.NewReader("Action=LaunchRockets&Version=2010-05-08"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	sigv4.SignServiceRequest(req, "iam", srv.Config.AccessKey, srv.Config.SecretKey, srv.Config.Region, time.Now(), itest.SHA256Hex([]byte("Action=LaunchRockets&Version=2010-05-08")))
	resp, err = srv.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("unknown action: status %d", resp.StatusCode)
	}
}
