package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	ststypes "github.com/aws/aws-sdk-go-v2/service/sts/types"

	"github.com/jogstore/jog/internal/cli"
	"github.com/jogstore/jog/internal/iam/keyring"
	jogsts "github.com/jogstore/jog/internal/sts"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// stsBootstrap: alice has no policy of her own (roles trust her by ARN),
// bob may assume the role "acct" (whose trust policy names the account),
// carol may read data/*.
const stsBootstrap = `{
 "users": [
  {"name": "alice", "accessKeys": [{"accessKeyId": "AKIASTSALICE00000000", "secretAccessKey": "alice-secret-0000000000000000000000000000"}]},
  {"name": "bob", "accessKeys": [{"accessKeyId": "AKIASTSBOB0000000000", "secretAccessKey": "bob-secret-00000000000000000000000000000"}],
   "policies": {"assume": {"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"arn:aws:iam::*:role/acct"}]}}},
  {"name": "carol", "accessKeys": [{"accessKeyId": "AKIASTSCAROL00000000", "secretAccessKey": "carol-secret-0000000000000000000000000000"}],
   "policies": {"read": {"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::data/*"}]}}}
 ]}`

var stsKeys = map[string][2]string{
	"alice": {"AKIASTSALICE00000000", "alice-secret-0000000000000000000000000000"},
	"bob":   {"AKIASTSBOB0000000000", "bob-secret-00000000000000000000000000000"},
	"carol": {"AKIASTSCAROL00000000", "carol-secret-0000000000000000000000000000"},
}

// rolePolicy is the roles' own policy: read data, write data/up/.
const rolePolicy = `{"Version":"2012-10-17","Statement":[
 {"Effect":"Allow","Action":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::data","arn:aws:s3:::data/*"]},
 {"Effect":"Allow","Action":"s3:PutObject","Resource":"arn:aws:s3:::data/up/*"}]}`

func stsClient(t *testing.T, srv *testutil.Server, access, secret, token string) *sts.Client {
	t.Helper()
	return sts.NewFromConfig(queryConfig(t, srv, access, secret, token), func(o *sts.Options) { o.BaseEndpoint = aws.String(srv.URL) })
}

// sessionS3 is an S3 client signing with temporary credentials.
func sessionS3(t *testing.T, srv *testutil.Server, c *ststypes.Credentials) *s3.Client {
	return tokenS3(t, srv, aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), aws.ToString(c.SessionToken))
}

func tokenS3(t *testing.T, srv *testutil.Server, id, secret, token string) *s3.Client {
	return srv.AWSClient(t, func(o *s3.Options) {
		o.Credentials = credentials.NewStaticCredentialsProvider(id, secret, token)
	})
}

type stsEnv struct {
	srv     *testutil.Server
	root    *s3.Client
	iam     *iam.Client
	account string
	sts     map[string]*sts.Client // by user
}

// startSTS starts a server with the users above, buckets data and
// private with an object each, and the roles "reader" (trusting alice by
// her ARN) and "acct" (trusting the account), both with rolePolicy.
func startSTS(t *testing.T) *stsEnv {
	t.Helper()
	file := filepath.Join(t.TempDir(), "iam.json")
	if err := os.WriteFile(file, []byte(stsBootstrap), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := testutil.StartServer(t, testutil.WithIAMBootstrap(file), testutil.WithoutFsync())
	e := &stsEnv{srv: srv, root: srv.AWSClient(t), iam: iamClient(t, srv, srv.Config.AccessKey, srv.Config.SecretKey), sts: map[string]*sts.Client{}}
	e.sts["root"] = stsClient(t, srv, srv.Config.AccessKey, srv.Config.SecretKey, "")
	for n, k := range stsKeys {
		e.sts[n] = stsClient(t, srv, k[0], k[1], "")
	}
	id, err := e.sts["root"].GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatal(err)
	}
	e.account = aws.ToString(id.Account)
	if aws.ToString(id.Arn) != "arn:aws:iam::"+e.account+":root" {
		t.Fatalf("root's GetCallerIdentity: %+v", id)
	}
	for _, b := range []string{"data", "private"} {
		itest.CreateBucket(t, e.root, b)
		itest.Put(t, e.root, b, "obj", []byte("original "+b))
	}
	e.role(t, "reader", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::`+e.account+`:user/alice"},"Action":"sts:AssumeRole"}]}`)
	e.role(t, "acct", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::`+e.account+`:root"},"Action":"sts:AssumeRole"}]}`)
	return e
}

func (e *stsEnv) role(t *testing.T, name, trust string) {
	t.Helper()
	ctx := context.Background()
	if _, err := e.iam.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(trust)}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.iam.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String("rw"), PolicyDocument: aws.String(rolePolicy)}); err != nil {
		t.Fatal(err)
	}
}

func (e *stsEnv) roleARN(name string) string { return "arn:aws:iam::" + e.account + ":role/" + name }

func (e *stsEnv) assume(t *testing.T, who, role string, opts ...func(*sts.AssumeRoleInput)) *sts.AssumeRoleOutput {
	t.Helper()
	in := &sts.AssumeRoleInput{RoleArn: aws.String(e.roleARN(role)), RoleSessionName: aws.String("s1")}
	for _, o := range opts {
		o(in)
	}
	out, err := e.sts[who].AssumeRole(context.Background(), in)
	if err != nil {
		t.Fatalf("%s AssumeRole %s: %v", who, role, err)
	}
	return out
}

// TestSTSAssumeRole: who may assume which role, and what the session may
// do with S3: what the role's policy allows, nothing else, and a denied
// write changes nothing.
func TestSTSAssumeRole(t *testing.T) {
	e := startSTS(t)
	ctx := context.Background()

	out := e.assume(t, "alice", "reader", func(in *sts.AssumeRoleInput) { in.DurationSeconds = aws.Int32(1800) })
	c := out.Credentials
	if id := aws.ToString(c.AccessKeyId); !strings.HasPrefix(id, "ASIA") || len(id) != 20 || aws.ToString(c.SecretAccessKey) == "" || aws.ToString(c.SessionToken) == "" {
		t.Fatalf("credentials: %+v", c)
	}
	if d := time.Until(aws.ToTime(c.Expiration)); d < 25*time.Minute || d > 31*time.Minute {
		t.Fatalf("expiration %v is not in 30 minutes", c.Expiration)
	}
	wantARN := "arn:aws:sts::" + e.account + ":assumed-role/reader/s1"
	if aws.ToString(out.AssumedRoleUser.Arn) != wantARN || !strings.HasPrefix(aws.ToString(out.AssumedRoleUser.AssumedRoleId), "AROA") ||
		!strings.HasSuffix(aws.ToString(out.AssumedRoleUser.AssumedRoleId), ":s1") {
		t.Fatalf("AssumedRoleUser: %+v", out.AssumedRoleUser)
	}
	id, err := stsClient(t, e.srv, aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), aws.ToString(c.SessionToken)).
		GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil || aws.ToString(id.Arn) != wantARN || aws.ToString(id.UserId) != aws.ToString(out.AssumedRoleUser.AssumedRoleId) || aws.ToString(id.Account) != e.account {
		t.Fatalf("GetCallerIdentity of the session: %+v, %v", id, err)
	}

	s := sessionS3(t, e.srv, c)
	itest.WantObject(t, s, "data", "obj", []byte("original data"))
	if _, err := s.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("data")}); err != nil {
		t.Fatalf("ListObjectsV2: %v", err)
	}
	itest.Put(t, s, "data", "up/new", []byte("new"))
	_, err = s.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("data"), Key: aws.String("obj"), Body: bytes.NewReader([]byte("overwritten"))})
	itest.WantErr(t, err, 403, "AccessDenied")
	itest.WantObject(t, e.root, "data", "obj", []byte("original data"))
	_, err = s.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("private"), Key: aws.String("obj")})
	itest.WantErr(t, err, 403, "AccessDenied")
	_, err = s.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("data"), Key: aws.String("obj")})
	itest.WantErr(t, err, 403, "AccessDenied")
	itest.WantObject(t, e.root, "data", "obj", []byte("original data"))

	// The trust policy names the account: the caller's own policies must
	// allow sts:AssumeRole too. Bob's do; alice's and carol's do not.
	e.assume(t, "bob", "acct")
	for _, who := range []string{"alice", "carol"} {
		_, err = e.sts[who].AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(e.roleARN("acct")), RoleSessionName: aws.String("s2")})
		wantIAMError(t, who+" assumes acct", err, "AccessDenied", 403)
	}
	// The trust policy names alice only.
	for _, who := range []string{"bob", "carol", "root"} {
		_, err = e.sts[who].AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(e.roleARN("reader")), RoleSessionName: aws.String("s2")})
		wantIAMError(t, who+" assumes reader", err, "AccessDenied", 403)
	}
	// JOG's root assumes a role that trusts the account.
	rs := sessionS3(t, e.srv, e.assume(t, "root", "acct").Credentials)
	_, err = rs.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("private"), Key: aws.String("obj")})
	itest.WantErr(t, err, 403, "AccessDenied") // the role's rights, not the root's
	// A role that does not exist is refused as one the caller may not assume.
	_, err = e.sts["alice"].AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(e.roleARN("nobody")), RoleSessionName: aws.String("s2")})
	wantIAMError(t, "a missing role", err, "AccessDenied", 403)
	// A long-term key of another user with the session's token.
	_, err = tokenS3(t, e.srv, stsKeys["carol"][0], stsKeys["carol"][1], aws.ToString(c.SessionToken)).
		GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("data"), Key: aws.String("obj")})
	itest.WantErr(t, err, 400, "InvalidToken")
	// The temporary key without its token is unknown, as S3 answers.
	_, err = tokenS3(t, e.srv, aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), "").
		GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("data"), Key: aws.String("obj")})
	itest.WantErr(t, err, 403, "InvalidAccessKeyId")
}

// TestSTSSessionPolicy: an inline or managed session policy narrows what
// the role allows.
func TestSTSSessionPolicy(t *testing.T) {
	e := startSTS(t)
	ctx := context.Background()
	readOnly := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::data/*"}]}`
	out := e.assume(t, "alice", "reader", func(in *sts.AssumeRoleInput) { in.Policy = aws.String(readOnly) })
	//lint:ignore SA1019 STS still answers PackedPolicySize, and so does JOG
	size := out.PackedPolicySize
	if size == nil || *size < 1 || *size > 100 {
		t.Fatalf("PackedPolicySize %v", size)
	}
	s := sessionS3(t, e.srv, out.Credentials)
	itest.WantObject(t, s, "data", "obj", []byte("original data"))
	_, err := s.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("data"), Key: aws.String("up/x"), Body: bytes.NewReader([]byte("x"))})
	itest.WantErr(t, err, 403, "AccessDenied") // the role allows it, the session policy does not
	itest.WantNoObject(t, e.root, "data", "up/x")

	mp, err := e.iam.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("list"), PolicyDocument: aws.String(
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::data"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	out = e.assume(t, "alice", "reader", func(in *sts.AssumeRoleInput) {
		in.PolicyArns = []ststypes.PolicyDescriptorType{{Arn: mp.Policy.Arn}}
	})
	s = sessionS3(t, e.srv, out.Credentials)
	if _, err := s.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("data")}); err != nil {
		t.Fatalf("ListObjectsV2 under the managed session policy: %v", err)
	}
	_, err = s.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("data"), Key: aws.String("obj")})
	itest.WantErr(t, err, 403, "AccessDenied")

	// Refusals as STS's.
	for _, c := range []struct {
		name   string
		in     func(*sts.AssumeRoleInput)
		code   string
		status int
	}{
		{"short session name", func(in *sts.AssumeRoleInput) { in.RoleSessionName = aws.String("a") }, "ValidationError", 400},
		{"bad session name", func(in *sts.AssumeRoleInput) { in.RoleSessionName = aws.String("a b") }, "ValidationError", 400},
		{"too short", func(in *sts.AssumeRoleInput) { in.DurationSeconds = aws.Int32(100) }, "ValidationError", 400},
		{"over the role's maximum", func(in *sts.AssumeRoleInput) { in.DurationSeconds = aws.Int32(7200) }, "ValidationError", 400},
		{"malformed policy", func(in *sts.AssumeRoleInput) { in.Policy = aws.String(malformed) }, "MalformedPolicyDocument", 400},
		{"eleven policy ARNs", func(in *sts.AssumeRoleInput) {
			for range 11 {
				in.PolicyArns = append(in.PolicyArns, ststypes.PolicyDescriptorType{Arn: mp.Policy.Arn})
			}
		}, "ValidationError", 400},
		{"packed too large", func(in *sts.AssumeRoleInput) {
			in.Policy = aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::data/` + strings.Repeat("x", 1900) + `"}]}`)
			for range 3 {
				in.PolicyArns = append(in.PolicyArns, ststypes.PolicyDescriptorType{Arn: mp.Policy.Arn})
			}
		}, "PackedPolicyTooLarge", 400},
	} {
		in := &sts.AssumeRoleInput{RoleArn: aws.String(e.roleARN("reader")), RoleSessionName: aws.String("s1")}
		c.in(in)
		_, err := e.sts["alice"].AssumeRole(ctx, in)
		wantIAMError(t, c.name, err, c.code, c.status)
	}
}

// TestSTSTokens: an expired token, a tampered one, a presigned URL with a
// token, a bucket policy naming the role, revocation by deleting the role.
func TestSTSTokens(t *testing.T) {
	e := startSTS(t)
	ctx := context.Background()
	out := e.assume(t, "alice", "reader")
	c := out.Credentials
	get := func(cl *s3.Client, bucket string) error {
		_, err := cl.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("obj")})
		return err
	}

	// A token sealed with the server key, expired a minute ago.
	keys, err := keyring.Load(e.srv.DataDir, "")
	if err != nil {
		t.Fatal(err)
	}
	roleID, _, _ := strings.Cut(aws.ToString(out.AssumedRoleUser.AssumedRoleId), ":")
	now := time.Now()
	expired := &jogsts.Session{AccessKeyID: "ASIAEXPIRED000000000", Secret: keyring.NewSecret("expired-secret"),
		Issued: now.Add(-time.Hour), Expires: now.Add(-time.Minute), Kind: jogsts.KindRole, Name: "reader", ID: roleID, SessionName: "old"}
	err = get(tokenS3(t, e.srv, expired.AccessKeyID, "expired-secret", jogsts.Seal(keys, expired)), "data")
	itest.WantErr(t, err, 400, "ExpiredToken")
	// The same session unexpired is served: only the expiry refused it.
	expired.Expires = now.Add(time.Hour)
	if err := get(tokenS3(t, e.srv, expired.AccessKeyID, "expired-secret", jogsts.Seal(keys, expired)), "data"); err != nil {
		t.Fatalf("the crafted session unexpired: %v", err)
	}
	_, err = stsClient(t, e.srv, expired.AccessKeyID, "expired-secret", jogsts.Seal(keys, &jogsts.Session{
		AccessKeyID: expired.AccessKeyID, Secret: expired.Secret, Issued: now.Add(-time.Hour), Expires: now.Add(-time.Second), Kind: jogsts.KindRoot,
	})).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	wantIAMError(t, "STS with an expired token", err, "ExpiredToken", 403)

	// A tampered token.
	tok := []byte(aws.ToString(c.SessionToken))
	tok[len(tok)/2] ^= 'A' ^ 'B'
	if tok[len(tok)/2] == aws.ToString(c.SessionToken)[len(tok)/2] {
		t.Fatal("the token was not changed")
	}
	err = get(tokenS3(t, e.srv, aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), string(tok)), "data")
	itest.WantErr(t, err, 400, "InvalidToken")

	// A presigned URL carries the token in X-Amz-Security-Token.
	s := sessionS3(t, e.srv, c)
	ps, err := s3.NewPresignClient(s).PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("data"), Key: aws.String("obj")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ps.URL, "X-Amz-Security-Token=") {
		t.Fatalf("the presigned URL has no token: %s", ps.URL)
	}
	resp, err := e.srv.HTTPClient().Get(ps.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "original data" {
		t.Fatalf("presigned GET: %d %s", resp.StatusCode, body)
	}
	resp, err = e.srv.HTTPClient().Get(strings.Replace(ps.URL, "X-Amz-Security-Token=", "X-Amz-Security-Token=x", 1))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	itest.WantRawErr(t, resp, body, 400, "InvalidToken")

	// A browser-based upload (PostObject) signed with the session's key
	// carries its token in the form: allowed where the role allows
	// s3:PutObject, refused elsewhere, nothing stored.
	form := func(key string) (*http.Response, []byte) {
		tok := aws.ToString(c.SessionToken)
		fields := append(itest.SignedFormAs(t, aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), time.Now().Add(time.Hour),
			map[string]string{"bucket": "data"}, map[string]string{"key": key}, map[string]string{"x-amz-security-token": tok}),
			itest.FormField{Name: "key", Value: key}, itest.FormField{Name: "x-amz-security-token", Value: tok})
		return itest.PostForm(t, e.srv.URL+"/data", fields, "f.txt", []byte("posted"))
	}
	if resp, body := form("up/form"); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("the session's form: %d %s", resp.StatusCode, body)
	}
	itest.WantObject(t, e.root, "data", "up/form", []byte("posted"))
	resp, body = form("form")
	itest.WantRawErr(t, resp, body, 403, "AccessDenied")
	itest.WantNoObject(t, e.root, "data", "form")

	// A bucket policy naming the role grants to its sessions.
	itest.WantErr(t, get(s, "private"), 403, "AccessDenied")
	putPolicy(t, e.root, "private", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"`+e.roleARN("reader")+`"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::private/*"}]}`)
	if err := get(s, "private"); err != nil {
		t.Fatalf("GetObject allowed by the bucket policy naming the role: %v", err)
	}

	// Deleting the role ends its sessions.
	if _, err := e.iam.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String("reader"), PolicyName: aws.String("rw")}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.iam.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String("reader")}); err != nil {
		t.Fatal(err)
	}
	itest.WantErr(t, get(s, "private"), 403, "AccessDenied")
	itest.WantErr(t, get(s, "data"), 403, "AccessDenied")
	// A new role of the same name does not revive them.
	e.role(t, "reader", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::`+e.account+`:user/alice"},"Action":"sts:AssumeRole"}]}`)
	itest.WantErr(t, get(s, "data"), 403, "AccessDenied")
}

// TestSTSGetSessionToken: a user's session keeps the user's rights; a
// session cannot ask for another.
func TestSTSGetSessionToken(t *testing.T) {
	e := startSTS(t)
	ctx := context.Background()
	out, err := e.sts["carol"].GetSessionToken(ctx, &sts.GetSessionTokenInput{DurationSeconds: aws.Int32(900)})
	if err != nil {
		t.Fatal(err)
	}
	c := out.Credentials
	if d := time.Until(aws.ToTime(c.Expiration)); !strings.HasPrefix(aws.ToString(c.AccessKeyId), "ASIA") || d < 10*time.Minute || d > 16*time.Minute {
		t.Fatalf("credentials: %+v", c)
	}
	s := sessionS3(t, e.srv, c)
	itest.WantObject(t, s, "data", "obj", []byte("original data"))
	_, err = s.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("data"), Key: aws.String("obj"), Body: bytes.NewReader([]byte("x"))})
	itest.WantErr(t, err, 403, "AccessDenied")
	itest.WantObject(t, e.root, "data", "obj", []byte("original data"))
	cs := stsClient(t, e.srv, aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), aws.ToString(c.SessionToken))
	id, err := cs.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil || aws.ToString(id.Arn) != "arn:aws:iam::"+e.account+":user/carol" || !strings.HasPrefix(aws.ToString(id.UserId), "AIDA") {
		t.Fatalf("GetCallerIdentity: %+v, %v", id, err)
	}
	_, err = cs.GetSessionToken(ctx, &sts.GetSessionTokenInput{})
	wantIAMError(t, "GetSessionToken with a session", err, "AccessDenied", 403)
	_, err = e.sts["carol"].GetSessionToken(ctx, &sts.GetSessionTokenInput{DurationSeconds: aws.Int32(200000)})
	wantIAMError(t, "GetSessionToken too long", err, "ValidationError", 400)

	// Deactivating the key that asked does not end the session; deleting
	// the user does.
	if _, err := e.iam.UpdateAccessKey(ctx, &iam.UpdateAccessKeyInput{UserName: aws.String("carol"), AccessKeyId: aws.String(stsKeys["carol"][0]), Status: "Inactive"}); err != nil {
		t.Fatal(err)
	}
	itest.WantObject(t, s, "data", "obj", []byte("original data"))
	if _, err := e.iam.DeleteUserPolicy(ctx, &iam.DeleteUserPolicyInput{UserName: aws.String("carol"), PolicyName: aws.String("read")}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.iam.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{UserName: aws.String("carol"), AccessKeyId: aws.String(stsKeys["carol"][0])}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.iam.DeleteUser(ctx, &iam.DeleteUserInput{UserName: aws.String("carol")}); err != nil {
		t.Fatal(err)
	}
	_, err = s.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("data"), Key: aws.String("obj")})
	itest.WantErr(t, err, 403, "AccessDenied")

	// The root's session lasts at most an hour and may do what the root does.
	out, err = e.sts["root"].GetSessionToken(ctx, &sts.GetSessionTokenInput{})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Until(aws.ToTime(out.Credentials.Expiration)); d > time.Hour+time.Minute {
		t.Fatalf("the root's session lasts %v", d)
	}
	itest.WantObject(t, sessionS3(t, e.srv, out.Credentials), "private", "obj", []byte("original private"))
}

// TestSTSSessionsCallIAM: a role session calls the IAM API under the
// role's policies narrowed by its session policy, as an IAM user under its
// own; GetSessionToken credentials (a user's, the root's) are refused, as
// IAM refuses them without MFA; and a refused call changes nothing.
func TestSTSSessionsCallIAM(t *testing.T) {
	e := startSTS(t)
	ctx := context.Background()
	if _, err := e.iam.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("reader"), PolicyName: aws.String("iam"), PolicyDocument: aws.String(
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["iam:ListUsers","iam:GetUser","iam:CreateUser"],"Resource":"*"}]}`)}); err != nil {
		t.Fatal(err)
	}
	sessionIAM := func(c *ststypes.Credentials) *iam.Client {
		return iamTokenClient(t, e.srv, aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), aws.ToString(c.SessionToken))
	}
	users := func() int {
		out, err := e.iam.ListUsers(ctx, &iam.ListUsersInput{})
		if err != nil {
			t.Fatal(err)
		}
		return len(out.Users)
	}
	before := users()

	s := sessionIAM(e.assume(t, "alice", "reader").Credentials)
	if out, err := s.ListUsers(ctx, &iam.ListUsersInput{}); err != nil || len(out.Users) != before {
		t.Fatalf("ListUsers by the role session: %v, %v", out, err)
	}
	if _, err := s.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("made-by-role")}); err != nil {
		t.Fatalf("CreateUser by the role session: %v", err)
	}
	_, err := s.DeleteUser(ctx, &iam.DeleteUserInput{UserName: aws.String("made-by-role")})
	wantIAMError(t, "DeleteUser, not in the role's policy", err, "AccessDenied", 403)
	if n := users(); n != before+1 {
		t.Fatalf("%d users after a refused delete, want %d", n, before+1)
	}

	// A session policy narrows the role: this one allows listing only.
	narrow := sessionIAM(e.assume(t, "alice", "reader", func(in *sts.AssumeRoleInput) {
		in.RoleSessionName = aws.String("narrow")
		in.Policy = aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:ListUsers","Resource":"*"}]}`)
	}).Credentials)
	if _, err := narrow.ListUsers(ctx, &iam.ListUsersInput{}); err != nil {
		t.Fatalf("ListUsers, in the session policy: %v", err)
	}
	_, err = narrow.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("made-by-narrow")})
	wantIAMError(t, "CreateUser, outside the session policy", err, "AccessDenied", 403)
	if n := users(); n != before+1 {
		t.Fatalf("%d users after a refused create, want %d", n, before+1)
	}

	// GetSessionToken credentials: refused whatever the policies say.
	for _, who := range []string{"root", "carol"} {
		out, err := e.sts[who].GetSessionToken(ctx, &sts.GetSessionTokenInput{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = sessionIAM(out.Credentials).CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("made-by-" + who)})
		wantIAMError(t, who+"'s GetSessionToken session creates a user", err, "AccessDenied", 403)
	}
	if n := users(); n != before+1 {
		t.Fatalf("%d users after refused creates, want %d", n, before+1)
	}
}

// TestJogAdminSTS: jog admin asks for temporary credentials and uses them.
func TestJogAdminSTS(t *testing.T) {
	e := startSTS(t)
	ctx := context.Background()
	admin := func(creds []string, args ...string) (string, int) {
		var out, errOut bytes.Buffer
		flags := append([]string{"admin", "--endpoint", e.srv.URL, "--region", e.srv.Config.Region}, creds...)
		code := cli.Run(ctx, append(flags, args...), &out, &errOut)
		return out.String() + errOut.String(), code
	}
	root := []string{"--access-key", e.srv.Config.AccessKey, "--secret-key", e.srv.Config.SecretKey}
	out, code := admin(root, "sts", "assume-role", e.roleARN("acct"), "admin", "--json")
	var c struct{ AccessKeyId, SecretAccessKey, SessionToken, Expiration string }
	if err := json.Unmarshal([]byte(out), &c); code != 0 || err != nil || !strings.HasPrefix(c.AccessKeyId, "ASIA") || c.SessionToken == "" || c.Expiration == "" {
		t.Fatalf("sts assume-role: exit %d %q: %v", code, out, err)
	}
	if out, code := admin(root, "sts", "assume-role", e.roleARN("acct"), "admin"); code != 0 || !strings.HasPrefix(out, "AccessKeyId: ASIA") || !strings.Contains(out, "\nSessionToken: ") {
		t.Fatalf("sts assume-role: exit %d %q; want labelled fields", code, out)
	}
	session := []string{"--access-key", c.AccessKeyId, "--secret-key", c.SecretAccessKey, "--session-token", c.SessionToken}
	out, code = admin(session, "sts", "identity")
	if code != 0 || !strings.HasPrefix(out, "Arn: arn:aws:sts::"+e.account+":assumed-role/acct/admin\n") {
		t.Fatalf("sts identity of the session: exit %d %q", code, out)
	}
	if out, code := admin(session, "user", "list"); code != 1 || !strings.Contains(out, "AccessDenied") {
		t.Fatalf("the IAM API with a session: exit %d %q", code, out)
	}
	itest.WantObject(t, tokenS3(t, e.srv, c.AccessKeyId, c.SecretAccessKey, c.SessionToken), "data", "obj", []byte("original data"))
	if out, code := admin(root, "sts", "assume-role", e.roleARN("reader"), "admin"); code != 1 || !strings.Contains(out, "AccessDenied") {
		t.Fatalf("sts assume-role of a role not trusting the account: exit %d %q", code, out)
	}
}
