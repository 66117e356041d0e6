package integration

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// denialBootstrap: erin has no policy; frank may do anything in S3 but
// read locked/ (an identity policy's Deny); gina may do anything in S3,
// and the bucket policy denies her the bucket's hidden/ prefix.
const denialBootstrap = `{"users": [
  {"name": "erin", "accessKeys": [{"accessKeyId": "AKIAERIN000000000000", "secretAccessKey": "erin-secret-00000000000000000000000000000"}]},
  {"name": "frank", "accessKeys": [{"accessKeyId": "AKIAFRANK00000000000", "secretAccessKey": "frank-secret-0000000000000000000000000000"}],
   "policies": {"most": {"Version":"2012-10-17","Statement":[
     {"Effect":"Allow","Action":"s3:*","Resource":"*"},
     {"Effect":"Deny","Action":"s3:GetObject","Resource":"arn:aws:s3:::denials/locked/*"}]}}},
  {"name": "gina", "accessKeys": [{"accessKeyId": "AKIAGINA000000000000", "secretAccessKey": "gina-secret-00000000000000000000000000000"}],
   "policies": {"all": {"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}}}
 ]}`

var denialKeys = map[string][2]string{
	"erin":  {"AKIAERIN000000000000", "erin-secret-00000000000000000000000000000"},
	"frank": {"AKIAFRANK00000000000", "frank-secret-0000000000000000000000000000"},
	"gina":  {"AKIAGINA000000000000", "gina-secret-00000000000000000000000000000"},
}

// startDenials starts a server with denialBootstrap's users and the
// bucket "denials" holding hidden/x, locked/x and open/x, its policy
// denying gina hidden/*. It returns the clients and each user's ARN.
func startDenials(t *testing.T) (*testutil.Server, map[string]*s3.Client, map[string]string) {
	t.Helper()
	srv, cl := startUsers(t, denialBootstrap, denialKeys)
	ctx := context.Background()
	arns := map[string]string{}
	for name, k := range denialKeys {
		id, err := stsClient(t, srv, k[0], k[1], "").GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		if err != nil {
			t.Fatal(err)
		}
		arns[name] = aws.ToString(id.Arn)
	}
	root := cl["root"]
	itest.CreateBucket(t, root, "denials")
	for _, k := range []string{"hidden/x", "locked/x", "open/x"} {
		itest.Put(t, root, "denials", k, []byte("kept: "+k))
	}
	pol := `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":{"AWS":"` + arns["gina"] + `"},
		"Action":"s3:*","Resource":"arn:aws:s3:::denials/hidden/*"}]}`
	if _, err := root.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String("denials"), Policy: aws.String(pol)}); err != nil {
		t.Fatal(err)
	}
	return srv, cl, arns
}

// sdkErrMessage is the S3 error's code and message of an aws-sdk-go-v2 error.
func sdkErrMessage(t *testing.T, err error) (string, string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("not an S3 error: %v", err)
	}
	return ae.ErrorCode(), ae.ErrorMessage()
}

// TestDenialMessages: a denied IAM user is told, as AWS tells a caller in
// the bucket's account, what was refused and which kind of policy
// refused it; an anonymous caller only "Access Denied"; nothing changes.
func TestDenialMessages(t *testing.T) {
	_, cl, arns := startDenials(t)
	ctx := context.Background()
	get := func(who, key string) error {
		out, err := cl[who].GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("denials"), Key: aws.String(key)})
		if err == nil {
			out.Body.Close()
		}
		return err
	}
	res := func(key string) string { return `on resource: "arn:aws:s3:::denials/` + key + `"` }
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"no identity policy allows", get("erin", "open/x"),
			"User: " + arns["erin"] + " is not authorized to perform: s3:GetObject " + res("open/x") + " because no identity-based policy allows the s3:GetObject action"},
		{"a Deny in the bucket policy", get("gina", "hidden/x"),
			"User: " + arns["gina"] + " is not authorized to perform: s3:GetObject " + res("hidden/x") + " with an explicit deny in a resource-based policy"},
		{"a Deny in an identity policy", get("frank", "locked/x"),
			"User: " + arns["frank"] + " is not authorized to perform: s3:GetObject " + res("locked/x") + " with an explicit deny in an identity-based policy"},
		{"a write, no identity policy allows", func() error {
			_, err := cl["erin"].PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("denials"), Key: aws.String("open/x"), Body: strings.NewReader("overwrite")})
			return err
		}(), "User: " + arns["erin"] + " is not authorized to perform: s3:PutObject " + res("open/x") + " because no identity-based policy allows the s3:PutObject action"},
		{"ListBuckets, no resource", func() error { _, err := cl["erin"].ListBuckets(ctx, &s3.ListBucketsInput{}); return err }(),
			"User: " + arns["erin"] + " is not authorized to perform: s3:ListAllMyBuckets because no identity-based policy allows the s3:ListAllMyBuckets action"},
		{"anonymous", get("anonymous", "open/x"), "Access Denied"},
		{"anonymous, the bucket policy's prefix", get("anonymous", "hidden/x"), "Access Denied"},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: allowed", c.name)
			continue
		}
		code, msg := sdkErrMessage(t, c.err)
		if code != "AccessDenied" || msg != c.want {
			t.Errorf("%s: %s %q\nwant AccessDenied %q", c.name, code, msg, c.want)
		}
	}
	// A DeleteObjects entry names its own key and reason.
	out, err := cl["gina"].DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("denials"), Delete: &types.Delete{
		Objects: []types.ObjectIdentifier{{Key: aws.String("hidden/x")}}}})
	if err != nil {
		t.Fatal(err)
	}
	want := "User: " + arns["gina"] + " is not authorized to perform: s3:DeleteObject " + res("hidden/x") + " with an explicit deny in a resource-based policy"
	if len(out.Errors) != 1 || aws.ToString(out.Errors[0].Code) != "AccessDenied" || aws.ToString(out.Errors[0].Message) != want {
		t.Errorf("DeleteObjects entries %+v, deleted %d; want one AccessDenied %q", out.Errors, len(out.Deleted), want)
	}
	for _, k := range []string{"hidden/x", "locked/x", "open/x"} {
		itest.WantObject(t, cl["root"], "denials", k, []byte("kept: "+k))
	}
}

// TestDenialMessageSession: a role session refused by its session policy
// is told so, under the session's ARN.
func TestDenialMessageSession(t *testing.T) {
	srv, cl := startUsers(t, `{"users": []}`, nil)
	itest.CreateBucket(t, cl["root"], "denials")
	itest.Put(t, cl["root"], "denials", "open/x", []byte("kept"))
	c := roleSession(t, srv, "denier", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`,
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:ListBucket","Resource":"*"}]}`)
	_, err := c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String("denials"), Key: aws.String("open/x")})
	if err == nil {
		t.Fatal("GetObject allowed to a session whose policy allows only s3:ListBucket")
	}
	code, msg := sdkErrMessage(t, err)
	if code != "AccessDenied" || !strings.HasPrefix(msg, "User: arn:aws:sts::") || !strings.Contains(msg, ":assumed-role/denier/matrix is not authorized") ||
		!strings.HasSuffix(msg, `on resource: "arn:aws:s3:::denials/open/x" because no session policy allows the s3:GetObject action`) {
		t.Errorf("%s %q", code, msg)
	}
}

// TestDenialMessagesBoto3 runs test/clients/boto3_denials.py against the
// same server: boto3 reads the messages as the SDK did.
func TestDenialMessagesBoto3(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not on PATH")
	}
	if err := exec.Command("python3", "-c", "import boto3").Run(); err != nil {
		t.Skip("python3 cannot import boto3 (CI installs it with `pip install boto3`)")
	}
	srv, _, arns := startDenials(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "python3", "../clients/boto3_denials.py", srv.URL)
	cmd.Env = append(os.Environ(), "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null", "AWS_EC2_METADATA_DISABLED=true",
		"JOG_REGION="+testutil.Region)
	for name, k := range denialKeys {
		up := strings.ToUpper(name)
		cmd.Env = append(cmd.Env, "JOG_"+up+"_KEY="+k[0], "JOG_"+up+"_SECRET="+k[1], "JOG_"+up+"_ARN="+arns[name])
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("boto3_denials.py: %v\n%s", err, out)
	}
	t.Logf("boto3_denials.py:\n%s", out)
	if !summaryLine.Match(out) {
		t.Errorf("boto3_denials.py printed no \"N passed, 0 failed\" line")
	}
}
