package integration

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// authzBootstrap provisions the matrix's users through --iam-bootstrap.
const authzBootstrap = `{
 "groups": [{"name": "readers", "policies": {"read": {"Version":"2012-10-17","Statement":[
   {"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::data/*"},
   {"Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::data"}]}}}],
 "users": [
  {"name": "alice", "accessKeys": [{"accessKeyId": "AKIAALICE00000000000", "secretAccessKey": "alice-secret-0000000000000000000000000000"}],
   "policies": {"data": ` + authzAlicePolicy + `}},
  {"name": "bob", "accessKeys": [{"accessKeyId": "AKIABOB0000000000000", "secretAccessKey": "bob-secret-00000000000000000000000000000"}]},
  {"name": "carol", "groups": ["readers"], "accessKeys": [{"accessKeyId": "AKIACAROL00000000000", "secretAccessKey": "carol-secret-0000000000000000000000000000"}]},
  {"name": "dave", "accessKeys": [{"accessKeyId": "AKIADAVE000000000000", "secretAccessKey": "dave-secret-00000000000000000000000000000"}],
   "policies": {"most": {"Version":"2012-10-17","Statement":[
     {"Effect":"Allow","Action":"s3:*","Resource":"*"},
     {"Effect":"Deny","Action":["s3:GetObject","s3:PutObject","s3:DeleteObject"],"Resource":"arn:aws:s3:::data/*"},
     {"Effect":"Deny","Action":"s3:CreateBucket","Resource":"*"}]}}}
 ]}`

// authzAlicePolicy is alice's policy, and the matrix role's.
const authzAlicePolicy = `{"Version":"2012-10-17","Statement":[
     {"Effect":"Allow","Action":"s3:*","Resource":["arn:aws:s3:::data","arn:aws:s3:::data/*"]},
     {"Effect":"Allow","Action":["s3:ListAllMyBuckets","s3:CreateBucket"],"Resource":"*"}]}`

// roleSession is an S3 client of a session of role name, which the root
// assumes (with sessionPolicy, if not ""); the role is created first,
// with the inline policy rolePolicy, unless rolePolicy is "".
func roleSession(t *testing.T, srv *testutil.Server, name, rolePolicy, sessionPolicy string) *s3.Client {
	t.Helper()
	ctx := context.Background()
	stsRoot := stsClient(t, srv, testutil.AccessKey, testutil.SecretKey, "")
	id, err := stsRoot.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatal(err)
	}
	arn := "arn:aws:iam::" + aws.ToString(id.Account) + ":role/" + name
	if rolePolicy != "" {
		admin := iamClient(t, srv, testutil.AccessKey, testutil.SecretKey)
		if _, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(
			`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + aws.ToString(id.Account) + `:root"},"Action":"sts:AssumeRole"}]}`)}); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String("p"), PolicyDocument: aws.String(rolePolicy)}); err != nil {
			t.Fatal(err)
		}
	}
	in := &sts.AssumeRoleInput{RoleArn: aws.String(arn), RoleSessionName: aws.String("matrix")}
	if sessionPolicy != "" {
		in.Policy = aws.String(sessionPolicy)
	}
	out, err := stsRoot.AssumeRole(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	return sessionS3(t, srv, out.Credentials)
}

var authzKeys = map[string][2]string{
	"alice": {"AKIAALICE00000000000", "alice-secret-0000000000000000000000000000"},
	"bob":   {"AKIABOB0000000000000", "bob-secret-00000000000000000000000000000"},
	"carol": {"AKIACAROL00000000000", "carol-secret-0000000000000000000000000000"},
	"dave":  {"AKIADAVE000000000000", "dave-secret-00000000000000000000000000000"},
}

func startAuthz(t *testing.T) (*testutil.Server, map[string]*s3.Client) {
	t.Helper()
	return startUsers(t, authzBootstrap, authzKeys)
}

// startUsers starts a server with the users of an --iam-bootstrap
// document and returns a client for each (keys: name → access key,
// secret), the root's ("root") and an anonymous one ("anonymous").
func startUsers(t *testing.T, bootstrap string, keys map[string][2]string) (*testutil.Server, map[string]*s3.Client) {
	t.Helper()
	return startUsersWith(t, bootstrap, keys)
}

// startUsersWith is startUsers with more options.
func startUsersWith(t *testing.T, bootstrap string, keys map[string][2]string, opts ...testutil.Option) (*testutil.Server, map[string]*s3.Client) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "iam.json")
	if err := os.WriteFile(file, []byte(bootstrap), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := testutil.StartServer(t, append([]testutil.Option{testutil.WithIAMBootstrap(file), testutil.WithoutFsync()}, opts...)...)
	clients := map[string]*s3.Client{"root": srv.AWSClient(t)}
	for name, k := range keys {
		clients[name] = srv.AWSClient(t, func(o *s3.Options) {
			o.Credentials = credentials.NewStaticCredentialsProvider(k[0], k[1], "")
		})
	}
	clients["anonymous"] = srv.AWSClient(t, func(o *s3.Options) { o.Credentials = aws.AnonymousCredentials{} })
	return srv, clients
}

// TestAuthzMatrix: principals × operations, each cell allowed or denied
// as the policies say, and a denied request changes nothing.
func TestAuthzMatrix(t *testing.T) {
	srv, cl := startAuthz(t)
	ctx := context.Background()
	root := cl["root"]
	// An assumed role with alice's rights, and a session of it narrowed
	// by a session policy to reading data.
	cl["role"] = roleSession(t, srv, "matrix", authzAlicePolicy, "")
	cl["narrowed"] = roleSession(t, srv, "matrix", "", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::data","arn:aws:s3:::data/*"]}]}`)
	for _, b := range []string{"data", "private", "pol"} {
		itest.CreateBucket(t, root, b)
	}
	orig := []byte("original bytes")
	itest.Put(t, root, "data", "obj", orig)
	itest.Put(t, root, "private", "obj", []byte("private"))

	type op struct {
		name string
		do   func(c *s3.Client, who string) error
		// unchanged checks, after a denial, that nothing changed.
		unchanged func(t *testing.T, who string)
	}
	noBucket := func(b string) func(*testing.T, string) {
		return func(t *testing.T, who string) {
			if _, err := root.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(b + who)}); err == nil {
				t.Errorf("bucket %s%s exists after a denied CreateBucket", b, who)
			}
		}
	}
	noObject := func(prefix string) func(*testing.T, string) {
		return func(t *testing.T, who string) { itest.WantNoObject(t, root, "data", prefix+who) }
	}
	objIntact := func(t *testing.T, _ string) { itest.WantObject(t, root, "data", "obj", orig) }
	ops := []op{
		{"ListBuckets", func(c *s3.Client, _ string) error { _, err := c.ListBuckets(ctx, &s3.ListBucketsInput{}); return err }, nil},
		{"CreateBucket", func(c *s3.Client, who string) error {
			_, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("new-" + who)})
			return err
		}, noBucket("new-")},
		{"PutObject", func(c *s3.Client, who string) error {
			_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("data"), Key: aws.String("put-" + who), Body: strings.NewReader("x")})
			return err
		}, noObject("put-")},
		{"GetObject", func(c *s3.Client, _ string) error {
			out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("data"), Key: aws.String("obj")})
			if err == nil {
				out.Body.Close()
			}
			return err
		}, objIntact},
		{"HeadObject", func(c *s3.Client, _ string) error {
			_, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("data"), Key: aws.String("obj")})
			return err
		}, objIntact},
		{"DeleteObject", func(c *s3.Client, who string) error {
			itest.Put(t, root, "data", "del-"+who, []byte("keep"))
			_, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("data"), Key: aws.String("del-" + who)})
			return err
		}, func(t *testing.T, who string) { itest.WantObject(t, root, "data", "del-"+who, []byte("keep")) }},
		{"ListObjectsV2", func(c *s3.Client, _ string) error {
			_, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("data")})
			return err
		}, nil},
		{"CopyObject", func(c *s3.Client, who string) error {
			_, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("data"), Key: aws.String("copy-" + who), CopySource: aws.String("data/obj")})
			return err
		}, noObject("copy-")},
		{"CopyObjectFromPrivate", func(c *s3.Client, who string) error {
			_, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("data"), Key: aws.String("pcopy-" + who), CopySource: aws.String("private/obj")})
			return err
		}, noObject("pcopy-")},
		{"PutBucketPolicy", func(c *s3.Client, _ string) error {
			_, err := c.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String("pol"), Policy: aws.String(
				`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:DeleteBucket","Resource":"arn:aws:s3:::pol"}]}`)})
			return err
		}, func(t *testing.T, _ string) {}},
	}
	// allowed[op] lists the principals allowed; every other is denied.
	allowed := map[string]string{
		"ListBuckets":           "root alice dave role",
		"CreateBucket":          "root alice role",
		"PutObject":             "root alice role",
		"GetObject":             "root alice carol role narrowed",
		"HeadObject":            "root alice carol role narrowed",
		"DeleteObject":          "root alice role",
		"ListObjectsV2":         "root alice carol dave role narrowed",
		"CopyObject":            "root alice role",
		"CopyObjectFromPrivate": "root",
		"PutBucketPolicy":       "root dave",
	}
	for _, o := range ops {
		for _, who := range []string{"root", "alice", "bob", "carol", "dave", "role", "narrowed", "anonymous"} {
			want := strings.Contains(" "+allowed[o.name]+" ", " "+who+" ")
			err := o.do(cl[who], who)
			switch {
			case want && err != nil:
				t.Errorf("%s by %s: %v, want allowed", o.name, who, err)
			case !want && err == nil:
				t.Errorf("%s by %s: allowed, want AccessDenied", o.name, who)
			case !want:
				if code, status := itest.ErrInfo(err); status != http.StatusForbidden || (code != "AccessDenied" && o.name != "HeadObject") {
					t.Errorf("%s by %s: %s %d, want 403 AccessDenied", o.name, who, code, status)
				}
				if o.unchanged != nil {
					o.unchanged(t, who)
				}
			}
		}
	}
	// The policy only root and dave could put is there; the listing of
	// data holds only what allowed principals wrote.
	out, err := root.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("data")})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range out.Contents {
		keys = append(keys, *o.Key)
	}
	want := "copy-alice copy-role copy-root del-bob del-carol del-dave del-narrowed del-anonymous obj pcopy-root put-alice put-role put-root"
	if got := strings.Join(keys, " "); got != sortedWords(want) {
		t.Errorf("data holds %q, want %q", got, sortedWords(want))
	}
}

func sortedWords(s string) string {
	w := strings.Fields(s)
	slices.Sort(w)
	return strings.Join(w, " ")
}

// TestAuthzDeleteObjectsPerKey: DeleteObjects decides each key; a denied
// key is an AccessDenied entry and stays.
func TestAuthzDeleteObjectsPerKey(t *testing.T) {
	_, cl := startAuthz(t)
	ctx := context.Background()
	root := cl["root"]
	itest.CreateBucket(t, root, "data")
	itest.CreateBucket(t, root, "mixed")
	for _, b := range []string{"data", "mixed"} {
		itest.Put(t, root, b, "k", []byte("v"))
	}
	// alice may delete in data only; her request to mixed is denied per key.
	for _, b := range []string{"data", "mixed"} {
		out, err := cl["alice"].DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(b),
			Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String("k")}}}})
		if err != nil {
			t.Fatalf("DeleteObjects %s: %v", b, err)
		}
		if b == "data" && (len(out.Deleted) != 1 || len(out.Errors) != 0) {
			t.Errorf("data: deleted %d, errors %d; want 1, 0", len(out.Deleted), len(out.Errors))
		}
		if b == "mixed" && (len(out.Errors) != 1 || aws.ToString(out.Errors[0].Code) != "AccessDenied") {
			t.Errorf("mixed: errors %+v, want one AccessDenied", out.Errors)
		}
	}
	itest.WantNoObject(t, root, "data", "k")
	itest.WantObject(t, root, "mixed", "k", []byte("v"))
	// A bucket policy allowing bob to delete under tmp/ only: a mixed request.
	itest.Put(t, root, "mixed", "tmp/a", []byte("a"))
	putPolicy(t, root, "mixed", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:DeleteObject","Resource":"arn:aws:s3:::mixed/tmp/*","Condition":{"StringEquals":{"aws:username":"bob"}}}]}`)
	out, err := cl["bob"].DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("mixed"),
		Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String("tmp/a")}, {Key: aws.String("k")}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Deleted) != 1 || aws.ToString(out.Deleted[0].Key) != "tmp/a" || len(out.Errors) != 1 || aws.ToString(out.Errors[0].Key) != "k" {
		t.Errorf("bob's DeleteObjects: deleted %+v errors %+v", out.Deleted, out.Errors)
	}
	itest.WantNoObject(t, root, "mixed", "tmp/a")
	itest.WantObject(t, root, "mixed", "k", []byte("v"))
}

func putPolicy(t *testing.T, c *s3.Client, bucket, doc string) {
	t.Helper()
	if _, err := c.PutBucketPolicy(context.Background(), &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(doc)}); err != nil {
		t.Fatalf("PutBucketPolicy %s: %v", bucket, err)
	}
}

// TestAuthzBucketPolicy: public read for anonymous requests (curl with no
// keys), conditions on the source address and on s3:prefix, a grant to
// another user, and the policy's own API.
func TestAuthzBucketPolicy(t *testing.T) {
	srv, cl := startAuthz(t)
	ctx := context.Background()
	root := cl["root"]
	itest.CreateBucket(t, root, "pub")
	itest.Put(t, root, "pub", "o", []byte("public"))

	// No policy: anonymous is denied, with plain HTTP too.
	resp, err := http.Get(srv.URL + "/pub/o")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("anonymous GET without a policy: %d, want 403", resp.StatusCode)
	}
	if _, err := root.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String("pub")}); itest.Code(err) != "NoSuchBucketPolicy" {
		t.Errorf("GetBucketPolicy without one: %v", err)
	}
	doc := `{"Version":"2012-10-17","Statement":[{"Sid":"Public","Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::pub/*"}]}`
	putPolicy(t, root, "pub", doc)
	got, err := root.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String("pub")})
	if err != nil || aws.ToString(got.Policy) != doc {
		t.Errorf("GetBucketPolicy: %v %v", aws.ToString(got.Policy), err)
	}
	st, err := root.GetBucketPolicyStatus(ctx, &s3.GetBucketPolicyStatusInput{Bucket: aws.String("pub")})
	if err != nil || !aws.ToBool(st.PolicyStatus.IsPublic) {
		t.Errorf("GetBucketPolicyStatus: %+v %v, want public", st, err)
	}
	resp, err = http.Get(srv.URL + "/pub/o")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "public" {
		t.Errorf("anonymous GET with a public-read policy: %d %q", resp.StatusCode, body)
	}
	// Anonymous may not write or list; bob (no identity policy) reads.
	_, err = cl["anonymous"].PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("pub"), Key: aws.String("o"), Body: strings.NewReader("defaced")})
	itest.WantErr(t, err, http.StatusForbidden, "AccessDenied")
	_, err = cl["anonymous"].ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("pub")})
	itest.WantErr(t, err, http.StatusForbidden, "AccessDenied")
	itest.WantObject(t, root, "pub", "o", []byte("public"))
	itest.WantObject(t, cl["bob"], "pub", "o", []byte("public"))
	// Nor anything without a bucket, nor what JOG does not implement.
	for _, rq := range [][2]string{{"GET", "/"}, {"PUT", "/pub?acl"}, {"PUT", "/"}} {
		req, _ := http.NewRequest(rq[0], srv.URL+rq[1], nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("anonymous %s %s: %d, want 403", rq[0], rq[1], resp.StatusCode)
		}
	}

	// Malformed policies are refused, with the reason, and change nothing.
	for _, bad := range []string{`{"Statement":[`, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::other/*"}]}`} {
		_, err := root.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String("pub"), Policy: aws.String(bad)})
		itest.WantErr(t, err, http.StatusBadRequest, "MalformedPolicy")
	}
	if got, _ := root.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String("pub")}); aws.ToString(got.Policy) != doc {
		t.Errorf("a refused policy replaced the stored one")
	}

	// A grant to another user by ARN, narrowed by the source address and
	// s3:prefix.
	itest.CreateBucket(t, root, "shared")
	itest.Put(t, root, "shared", "home/bob/f", []byte("f"))
	grant := func(notIP string) string {
		return `{"Version":"2012-10-17","Statement":[
		 {"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/*","Condition":{"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::*:user/bob"}}},
		 {"Effect":"Allow","Principal":"*","Action":"s3:ListBucket","Resource":"arn:aws:s3:::shared","Condition":{"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::*:user/bob"},"StringLike":{"s3:prefix":"home/bob/*"}}},
		 {"Effect":"Deny","Principal":"*","Action":"s3:*","Resource":["arn:aws:s3:::shared","arn:aws:s3:::shared/*"],"Condition":{"NotIpAddress":{"aws:SourceIp":"` + notIP + `"}}}]}`
	}
	putPolicy(t, root, "shared", grant("127.0.0.1/32"))
	st, err = root.GetBucketPolicyStatus(ctx, &s3.GetBucketPolicyStatusInput{Bucket: aws.String("shared")})
	// A wildcard account in aws:PrincipalArn names bob of any account:
	// public by AWS's definition.
	if err != nil || !aws.ToBool(st.PolicyStatus.IsPublic) {
		t.Errorf("GetBucketPolicyStatus of a grant to any account's bob: %v, want public", err)
	}
	itest.WantObject(t, cl["bob"], "shared", "home/bob/f", []byte("f"))
	_, err = cl["carol"].GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("shared"), Key: aws.String("home/bob/f")})
	itest.WantErr(t, err, http.StatusForbidden, "AccessDenied")
	if _, err := cl["bob"].ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("shared"), Prefix: aws.String("home/bob/")}); err != nil {
		t.Errorf("bob lists his prefix: %v", err)
	}
	_, err = cl["bob"].ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("shared")})
	itest.WantErr(t, err, http.StatusForbidden, "AccessDenied")
	// From outside 10.0.0.0/8 (the test's 127.0.0.1) everything is denied,
	// to the root's policy change included only for users.
	putPolicy(t, root, "shared", grant("10.0.0.0/8"))
	_, err = cl["bob"].GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("shared"), Key: aws.String("home/bob/f")})
	itest.WantErr(t, err, http.StatusForbidden, "AccessDenied")
	itest.WantObject(t, root, "shared", "home/bob/f", []byte("f"))

	// Deleting the policy makes the bucket private again at once.
	if _, err := root.DeleteBucketPolicy(ctx, &s3.DeleteBucketPolicyInput{Bucket: aws.String("pub")}); err != nil {
		t.Fatal(err)
	}
	resp, err = http.Get(srv.URL + "/pub/o")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("anonymous GET after DeleteBucketPolicy: %d, want 403", resp.StatusCode)
	}
}

// TestAuthzFormAndTags: a browser form signed with a user's key is that
// user's PutObject; s3:ExistingObjectTag decides on the object's tags.
func TestAuthzFormAndTags(t *testing.T) {
	srv, cl := startAuthz(t)
	ctx := context.Background()
	root := cl["root"]
	itest.CreateBucket(t, root, "data")
	future := time.Now().Add(time.Hour)
	for _, who := range []string{"alice", "bob"} {
		k := authzKeys[who]
		fields := append(itest.SignedFormAs(t, k[0], k[1], future, map[string]string{"bucket": "data"}, map[string]string{"key": "form-" + who}),
			itest.FormField{Name: "key", Value: "form-" + who})
		resp, body := itest.PostForm(t, srv.URL+"/data", fields, "f.txt", []byte("posted"))
		switch who {
		case "alice":
			if resp.StatusCode != http.StatusNoContent {
				t.Errorf("alice's form: %d %s", resp.StatusCode, body)
			}
			itest.WantObject(t, root, "data", "form-alice", []byte("posted"))
		default:
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "AccessDenied") {
				t.Errorf("bob's form: %d %s, want 403 AccessDenied", resp.StatusCode, body)
			}
			itest.WantNoObject(t, root, "data", "form-bob")
		}
	}

	itest.CreateBucket(t, root, "tagged")
	itest.Put(t, root, "tagged", "open", []byte("o"), func(in *s3.PutObjectInput) { in.Tagging = aws.String("share=yes") })
	itest.Put(t, root, "tagged", "closed", []byte("c"), func(in *s3.PutObjectInput) { in.Tagging = aws.String("share=no") })
	putPolicy(t, root, "tagged", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::tagged/*","Condition":{"StringEquals":{"s3:ExistingObjectTag/share":"yes"}}}]}`)
	itest.WantObject(t, cl["anonymous"], "tagged", "open", []byte("o"))
	_, err := cl["anonymous"].GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("tagged"), Key: aws.String("closed")})
	itest.WantErr(t, err, http.StatusForbidden, "AccessDenied")
	// Retagging changes the decision at once.
	if _, err := root.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: aws.String("tagged"), Key: aws.String("closed"),
		Tagging: &types.Tagging{TagSet: []types.Tag{{Key: aws.String("share"), Value: aws.String("yes")}}}}); err != nil {
		t.Fatal(err)
	}
	itest.WantObject(t, cl["anonymous"], "tagged", "closed", []byte("c"))
}

// TestAuthzHeaderActions: headers that need an action of their own — the
// GOVERNANCE bypass (s3:BypassGovernanceRetention), lock and tag headers
// on a write (s3:PutObjectRetention, s3:PutObjectLegalHold,
// s3:PutObjectTagging) — are refused to a user allowed only the
// operation's own action, and nothing changes.
func TestAuthzHeaderActions(t *testing.T) {
	_, cl := startAuthz(t)
	ctx := context.Background()
	root, bob := cl["root"], cl["bob"]
	if _, err := root.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("vault"), ObjectLockEnabledForBucket: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	policyFor := func(actions string) string {
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":[` + actions +
			`],"Resource":"arn:aws:s3:::vault/*","Condition":{"StringEquals":{"aws:username":"bob"}}}]}`
	}
	putPolicy(t, root, "vault", policyFor(`"s3:PutObject","s3:GetObject","s3:DeleteObjectVersion"`))
	until := aws.Time(time.Now().Add(24 * time.Hour))
	locked := func(in *s3.PutObjectInput) {
		in.ObjectLockMode, in.ObjectLockRetainUntilDate = types.ObjectLockModeGovernance, until
		in.ChecksumAlgorithm = types.ChecksumAlgorithmCrc32
	}
	put := func(c *s3.Client, key string, opt func(*s3.PutObjectInput)) (*s3.PutObjectOutput, error) {
		in := &s3.PutObjectInput{Bucket: aws.String("vault"), Key: aws.String(key), Body: strings.NewReader("x")}
		if opt != nil {
			opt(in)
		}
		return c.PutObject(ctx, in)
	}
	_, err := put(bob, "g", locked)
	itest.WantErr(t, err, http.StatusForbidden, "AccessDenied")
	_, err = put(bob, "g", func(in *s3.PutObjectInput) {
		in.ObjectLockLegalHoldStatus, in.ChecksumAlgorithm = types.ObjectLockLegalHoldStatusOn, types.ChecksumAlgorithmCrc32
	})
	itest.WantErr(t, err, http.StatusForbidden, "AccessDenied")
	_, err = put(bob, "g", func(in *s3.PutObjectInput) { in.Tagging = aws.String("a=b") })
	itest.WantErr(t, err, http.StatusForbidden, "AccessDenied")
	itest.WantNoObject(t, root, "vault", "g")
	if _, err := put(bob, "plain", nil); err != nil {
		t.Fatalf("bob's plain PUT: %v", err)
	}

	out, err := put(root, "g", locked)
	if err != nil {
		t.Fatal(err)
	}
	del := func(c *s3.Client) error {
		_, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("vault"), Key: aws.String("g"),
			VersionId: out.VersionId, BypassGovernanceRetention: aws.Bool(true)})
		return err
	}
	itest.WantErr(t, del(bob), http.StatusForbidden, "AccessDenied")
	dobj, err := bob.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("vault"), BypassGovernanceRetention: aws.Bool(true),
		Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String("g"), VersionId: out.VersionId}}}})
	if err != nil || len(dobj.Errors) != 1 || aws.ToString(dobj.Errors[0].Code) != "AccessDenied" {
		t.Fatalf("bob's DeleteObjects with the bypass = %+v, %v; want one AccessDenied", dobj, err)
	}
	wantVersionThere(t, root, "vault", "g", aws.ToString(out.VersionId))

	putPolicy(t, root, "vault", policyFor(`"s3:PutObject","s3:GetObject","s3:DeleteObjectVersion","s3:BypassGovernanceRetention","s3:PutObjectRetention"`))
	if _, err := put(bob, "g2", locked); err != nil {
		t.Fatalf("bob's locked PUT once allowed s3:PutObjectRetention: %v", err)
	}
	if err := del(bob); err != nil {
		t.Fatalf("bob's bypass once allowed s3:BypassGovernanceRetention: %v", err)
	}
}

// TestAuthzAnonymousLimits: what S3 refuses an anonymous request even when
// a bucket policy allows it: the bucket policy's own operations (405, as
// to any caller outside the account: the policy stays as it was) and
// response-* overrides on GET and HEAD (400 InvalidRequest); the same
// requests signed by a user the policy allows pass.
func TestAuthzAnonymousLimits(t *testing.T) {
	srv, cl := startAuthz(t)
	ctx := context.Background()
	root := cl["root"]
	itest.CreateBucket(t, root, "open")
	itest.Put(t, root, "open", "o", []byte("public"))
	doc := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*",
		"Action":["s3:GetObject","s3:GetBucketPolicy","s3:PutBucketPolicy","s3:DeleteBucketPolicy"],
		"Resource":["arn:aws:s3:::open","arn:aws:s3:::open/*"]}]}`
	putPolicy(t, root, "open", doc)

	anon := func(method, path string, body io.Reader) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, body)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, rq := range []struct{ method, body string }{{"GET", ""}, {"PUT", `{"Version":"2012-10-17","Statement":[]}`}, {"DELETE", ""}} {
		if code, body := anon(rq.method, "/open?policy", strings.NewReader(rq.body)); code != http.StatusMethodNotAllowed || !strings.Contains(body, "MethodNotAllowed") {
			t.Errorf("anonymous %s ?policy: %d %s, want 405 MethodNotAllowed", rq.method, code, itest.Short([]byte(body)))
		}
	}
	if got, err := root.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String("open")}); err != nil || aws.ToString(got.Policy) != doc {
		t.Errorf("the policy after anonymous writes: %v", err)
	}
	if _, err := cl["bob"].GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String("open")}); err != nil {
		t.Errorf("bob, in the account, allowed by the policy: %v", err)
	}

	if code, body := anon("GET", "/open/o", nil); code != http.StatusOK || body != "public" {
		t.Errorf("anonymous GET: %d %q", code, body)
	}
	for _, m := range []string{"GET", "HEAD"} {
		code, body := anon(m, "/open/o?response-content-type=text%2Fhtml", nil)
		if code != http.StatusBadRequest || m == "GET" && !strings.Contains(body, "InvalidRequest") {
			t.Errorf("anonymous %s with response-content-type: %d %s, want 400 InvalidRequest", m, code, itest.Short([]byte(body)))
		}
	}
	out, err := cl["bob"].GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("open"), Key: aws.String("o"), ResponseContentType: aws.String("text/plain")})
	if err != nil || aws.ToString(out.ContentType) != "text/plain" {
		t.Fatalf("bob's GET with response-content-type: %v", err)
	}
	out.Body.Close()
}
