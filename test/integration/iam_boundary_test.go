package integration

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/test/integration/itest"
)

// TestIAMPermissionsBoundary: a user whose identity policy allows s3:*
// under a boundary allowing only s3:GetObject may read but not write;
// GetUser and GetRole show the boundary; the boundary policy cannot be
// deleted while in use; removing the boundary restores the identity
// policy's reach.
func TestIAMPermissionsBoundary(t *testing.T) {
	srv, root, rootS3 := startIAMServer(t, "bnd")
	ctx := context.Background()
	if _, err := rootS3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("bnd"), Key: aws.String("k"), Body: strings.NewReader("original")}); err != nil {
		t.Fatal(err)
	}
	user := s3UserClient(t, srv, root, "bounded", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`)
	pol, err := root.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("GetOnly"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	arn := pol.Policy.Arn

	_, err = root.PutUserPermissionsBoundary(ctx, &iam.PutUserPermissionsBoundaryInput{UserName: aws.String("bounded"), PermissionsBoundary: aws.String(strings.Replace(aws.ToString(arn), "GetOnly", "Nothing", 1))})
	wantIAMError(t, "a boundary that does not exist", err, "NoSuchEntity", 404)
	_, err = root.PutUserPermissionsBoundary(ctx, &iam.PutUserPermissionsBoundaryInput{UserName: aws.String("nobody"), PermissionsBoundary: arn})
	wantIAMError(t, "the boundary of a user that does not exist", err, "NoSuchEntity", 404)
	if _, err := root.PutUserPermissionsBoundary(ctx, &iam.PutUserPermissionsBoundaryInput{UserName: aws.String("bounded"), PermissionsBoundary: arn}); err != nil {
		t.Fatal(err)
	}
	u, err := root.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("bounded")})
	if err != nil || u.User.PermissionsBoundary == nil || aws.ToString(u.User.PermissionsBoundary.PermissionsBoundaryArn) != aws.ToString(arn) ||
		u.User.PermissionsBoundary.PermissionsBoundaryType != "Policy" {
		t.Fatalf("GetUser: %+v, %v", u, err)
	}

	// Bounded: GetObject allowed, PutObject denied and the object kept.
	got, err := user.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("bnd"), Key: aws.String("k")})
	if err != nil {
		t.Fatalf("GetObject within the boundary: %v", err)
	}
	got.Body.Close()
	_, err = user.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("bnd"), Key: aws.String("k"), Body: strings.NewReader("changed")})
	itest.WantErr(t, err, http.StatusForbidden, "AccessDenied")
	_, err = user.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("bnd"), Key: aws.String("k")})
	itest.WantErr(t, err, http.StatusForbidden, "AccessDenied")
	if b, _ := itest.Get(t, rootS3, "bnd", "k"); string(b) != "original" {
		t.Fatalf("after refused writes: %q", b)
	}

	_, err = root.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: arn})
	wantIAMError(t, "DeletePolicy of a boundary in use", err, "DeleteConflict", 409)

	// CreateUser with a boundary; one that does not exist creates nothing.
	_, err = root.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("born"), PermissionsBoundary: aws.String(strings.Replace(aws.ToString(arn), "GetOnly", "Nothing", 1))})
	wantIAMError(t, "CreateUser with a boundary that does not exist", err, "NoSuchEntity", 404)
	_, err = root.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("born")})
	wantIAMError(t, "born after a refused CreateUser", err, "NoSuchEntity", 404)
	born, err := root.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("born"), PermissionsBoundary: arn})
	if err != nil || born.User.PermissionsBoundary == nil || aws.ToString(born.User.PermissionsBoundary.PermissionsBoundaryArn) != aws.ToString(arn) {
		t.Fatalf("CreateUser with a boundary: %+v, %v", born, err)
	}
	if p, err := root.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: arn}); err != nil || aws.ToInt32(p.Policy.PermissionsBoundaryUsageCount) != 2 {
		t.Fatalf("GetPolicy: PermissionsBoundaryUsageCount %v, %v; want 2", p.Policy.PermissionsBoundaryUsageCount, err)
	}
	if _, err := root.DeleteUser(ctx, &iam.DeleteUserInput{UserName: aws.String("born")}); err != nil {
		t.Fatalf("DeleteUser of a user with a boundary: %v", err)
	}

	// A role's boundary.
	if _, err := root.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("ops"), AssumeRolePolicyDocument: aws.String(trustEC2)}); err != nil {
		t.Fatal(err)
	}
	if _, err := root.PutRolePermissionsBoundary(ctx, &iam.PutRolePermissionsBoundaryInput{RoleName: aws.String("ops"), PermissionsBoundary: arn}); err != nil {
		t.Fatal(err)
	}
	r, err := root.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("ops")})
	if err != nil || r.Role.PermissionsBoundary == nil || aws.ToString(r.Role.PermissionsBoundary.PermissionsBoundaryArn) != aws.ToString(arn) {
		t.Fatalf("GetRole: %+v, %v", r, err)
	}
	if _, err := root.DeleteRolePermissionsBoundary(ctx, &iam.DeleteRolePermissionsBoundaryInput{RoleName: aws.String("ops")}); err != nil {
		t.Fatal(err)
	}
	if r, err := root.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("ops")}); err != nil || r.Role.PermissionsBoundary != nil {
		t.Fatalf("GetRole after DeleteRolePermissionsBoundary: %+v, %v", r, err)
	}

	// Without the boundary, s3:* reaches PutObject again.
	if _, err := root.DeleteUserPermissionsBoundary(ctx, &iam.DeleteUserPermissionsBoundaryInput{UserName: aws.String("bounded")}); err != nil {
		t.Fatal(err)
	}
	if u, err := root.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("bounded")}); err != nil || u.User.PermissionsBoundary != nil {
		t.Fatalf("GetUser after DeleteUserPermissionsBoundary: %+v, %v", u, err)
	}
	if _, err := user.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("bnd"), Key: aws.String("k"), Body: strings.NewReader("changed")}); err != nil {
		t.Fatalf("PutObject without the boundary: %v", err)
	}
	if b, _ := itest.Get(t, rootS3, "bnd", "k"); string(b) != "changed" {
		t.Fatalf("after PutObject: %q", b)
	}
	if _, err := root.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: arn}); err != nil {
		t.Fatalf("DeletePolicy once no longer a boundary: %v", err)
	}
}
