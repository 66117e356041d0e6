package integration

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/jogstore/jog/internal/s3api"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// routesBootstrap: nobody has no policy; grantee and denier get theirs
// route by route.
const routesBootstrap = `{"users": [
 {"name": "nobody", "accessKeys": [{"accessKeyId": "AKIANOBODY0000000000", "secretAccessKey": "nobody-secret-000000000000000000000000000"}]},
 {"name": "grantee", "accessKeys": [{"accessKeyId": "AKIAGRANTEE000000000", "secretAccessKey": "grantee-secret-00000000000000000000000000"}]},
 {"name": "denier", "accessKeys": [{"accessKeyId": "AKIADENIER0000000000", "secretAccessKey": "denier-secret-000000000000000000000000000"}]}
]}`

// startRoutesServer starts a server with routesBootstrap's users and
// throughput capacity for reservations.
func startRoutesServer(t *testing.T) *testutil.Server {
	t.Helper()
	file := filepath.Join(t.TempDir(), "iam.json")
	if err := os.WriteFile(file, []byte(routesBootstrap), 0o600); err != nil {
		t.Fatal(err)
	}
	return testutil.StartServer(t, testutil.WithIAMBootstrap(file), testutil.WithoutFsync(), testutil.WithQoSCapacity(1e9, 1e9))
}

var routeKeys = map[string][2]string{
	"nobody":  {"AKIANOBODY0000000000", "nobody-secret-000000000000000000000000000"},
	"grantee": {"AKIAGRANTEE000000000", "grantee-secret-00000000000000000000000000"},
	"denier":  {"AKIADENIER0000000000", "denier-secret-000000000000000000000000000"},
}

// routeRequest is one request of an operation.
type routeRequest struct {
	method, path string // path escaped, with its query
	hdr          map[string]string
	body         string
	form         bool // PostObject: a form upload to path
}

// routeRequests has a request for every operation the router serves, on
// bucket rtb (object obj, multipart uploads up and up2) and rtb-del.
func routeRequests(up, up2 string) map[string]routeRequest {
	const copySrc = "/rtb/obj"
	complete := `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"00000000000000000000000000000000"</ETag></Part></CompleteMultipartUpload>`
	return map[string]routeRequest{
		"ListBuckets":                     {method: "GET", path: "/"},
		"CreateBucket":                    {method: "PUT", path: "/rtnew"},
		"HeadBucket":                      {method: "HEAD", path: "/rtb"},
		"DeleteBucket":                    {method: "DELETE", path: "/rtb-del"},
		"GetBucketLocation":               {method: "GET", path: "/rtb?location"},
		"ListObjects":                     {method: "GET", path: "/rtb"},
		"ListObjectsV2":                   {method: "GET", path: "/rtb?list-type=2"},
		"DeleteObjects":                   {method: "POST", path: "/rtb?delete", body: `<Delete><Object><Key>gone</Key></Object></Delete>`},
		"PutObject":                       {method: "PUT", path: "/rtb/put", body: "new bytes"},
		"CopyObject":                      {method: "PUT", path: "/rtb/copy", hdr: map[string]string{"X-Amz-Copy-Source": copySrc}},
		"GetObject":                       {method: "GET", path: "/rtb/obj"},
		"HeadObject":                      {method: "HEAD", path: "/rtb/obj"},
		"DeleteObject":                    {method: "DELETE", path: "/rtb/gone2"},
		"CreateMultipartUpload":           {method: "POST", path: "/rtb/mp-new?uploads"},
		"UploadPart":                      {method: "PUT", path: "/rtb/mp?partNumber=1&uploadId=" + up, body: "part bytes"},
		"UploadPartCopy":                  {method: "PUT", path: "/rtb/mp?partNumber=2&uploadId=" + up, hdr: map[string]string{"X-Amz-Copy-Source": copySrc}},
		"CompleteMultipartUpload":         {method: "POST", path: "/rtb/mp?uploadId=" + up, body: complete},
		"AbortMultipartUpload":            {method: "DELETE", path: "/rtb/mp2?uploadId=" + up2},
		"ListParts":                       {method: "GET", path: "/rtb/mp?uploadId=" + up},
		"ListMultipartUploads":            {method: "GET", path: "/rtb?uploads"},
		"GetObjectAttributes":             {method: "GET", path: "/rtb/obj?attributes", hdr: map[string]string{"X-Amz-Object-Attributes": "ETag"}},
		"PutBucketCors":                   {method: "PUT", path: "/rtb?cors", body: `<CORSConfiguration><CORSRule><AllowedOrigin>https://a.example</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>`},
		"GetBucketCors":                   {method: "GET", path: "/rtb?cors"},
		"DeleteBucketCors":                {method: "DELETE", path: "/rtb?cors"},
		"PutBucketLifecycleConfiguration": {method: "PUT", path: "/rtb?lifecycle", body: `<LifecycleConfiguration><Rule><ID>r</ID><Filter><Prefix>none/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>365</Days></Expiration></Rule></LifecycleConfiguration>`},
		"GetBucketLifecycleConfiguration": {method: "GET", path: "/rtb?lifecycle"},
		"DeleteBucketLifecycle":           {method: "DELETE", path: "/rtb?lifecycle"},
		"PutBucketVersioning":             {method: "PUT", path: "/rtb?versioning", body: `<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>`},
		"GetBucketVersioning":             {method: "GET", path: "/rtb?versioning"},
		"ListObjectVersions":              {method: "GET", path: "/rtb?versions"},
		"PutBucketTagging":                {method: "PUT", path: "/rtb?tagging", body: `<Tagging><TagSet><Tag><Key>k</Key><Value>v</Value></Tag></TagSet></Tagging>`},
		"GetBucketTagging":                {method: "GET", path: "/rtb?tagging"},
		"DeleteBucketTagging":             {method: "DELETE", path: "/rtb?tagging"},
		"PutObjectTagging":                {method: "PUT", path: "/rtb/obj?tagging", body: `<Tagging><TagSet><Tag><Key>k</Key><Value>new</Value></Tag></TagSet></Tagging>`},
		"GetObjectTagging":                {method: "GET", path: "/rtb/obj?tagging"},
		"DeleteObjectTagging":             {method: "DELETE", path: "/rtb/obj?tagging"},
		"PutObjectLockConfiguration":      {method: "PUT", path: "/rtb?object-lock", body: `<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled></ObjectLockConfiguration>`},
		"GetObjectLockConfiguration":      {method: "GET", path: "/rtb?object-lock"},
		"PutObjectRetention":              {method: "PUT", path: "/rtb/obj?retention", body: `<Retention><Mode>GOVERNANCE</Mode><RetainUntilDate>2099-01-01T00:00:00Z</RetainUntilDate></Retention>`},
		"GetObjectRetention":              {method: "GET", path: "/rtb/obj?retention"},
		"PutObjectLegalHold":              {method: "PUT", path: "/rtb/obj?legal-hold", body: `<LegalHold><Status>ON</Status></LegalHold>`},
		"GetObjectLegalHold":              {method: "GET", path: "/rtb/obj?legal-hold"},
		"PutBucketPolicy":                 {method: "PUT", path: "/rtb?policy", body: `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:GetBucketWebsite","Resource":"arn:aws:s3:::rtb"}]}`},
		"GetBucketPolicy":                 {method: "GET", path: "/rtb?policy"},
		"DeleteBucketPolicy":              {method: "DELETE", path: "/rtb?policy"},
		"GetBucketPolicyStatus":           {method: "GET", path: "/rtb?policyStatus"},
		"PutBucketAcl":                    {method: "PUT", path: "/rtb?acl", hdr: map[string]string{"X-Amz-Acl": "private"}},
		"GetBucketAcl":                    {method: "GET", path: "/rtb?acl"},
		"PutObjectAcl":                    {method: "PUT", path: "/rtb/obj?acl", hdr: map[string]string{"X-Amz-Acl": "private"}},
		"GetObjectAcl":                    {method: "GET", path: "/rtb/obj?acl"},
		"PutBucketOwnershipControls": {method: "PUT", path: "/rtb?ownershipControls",
			body: `<OwnershipControls><Rule><ObjectOwnership>BucketOwnerEnforced</ObjectOwnership></Rule></OwnershipControls>`},
		"GetBucketOwnershipControls":    {method: "GET", path: "/rtb?ownershipControls"},
		"DeleteBucketOwnershipControls": {method: "DELETE", path: "/rtb?ownershipControls"},
		"PutPublicAccessBlock": {method: "PUT", path: "/rtb?publicAccessBlock",
			body: `<PublicAccessBlockConfiguration><BlockPublicAcls>true</BlockPublicAcls></PublicAccessBlockConfiguration>`},
		"GetPublicAccessBlock":    {method: "GET", path: "/rtb?publicAccessBlock"},
		"DeletePublicAccessBlock": {method: "DELETE", path: "/rtb?publicAccessBlock"},
		"PostObject":              {method: "POST", path: "/rtb", form: true},
		"CreateReservation":       {method: "POST", path: "/rtb?reservations", body: string(rsvBody(1, 1, time.Now(), time.Now().Add(time.Hour), ""))},
		"ListReservations":        {method: "GET", path: "/rtb?reservations"},
		"PutBucketQuota":          {method: "PUT", path: "/rtb?quota", body: `<BucketQuota><QuotaBytes>1000000</QuotaBytes></BucketQuota>`},
		"GetBucketQuota":          {method: "GET", path: "/rtb?quota"},
		"GetBucketPermissions":    {method: "GET", path: "/rtb?permissions&actions=s3:GetObject"},
		"GetObjectPermissions":    {method: "GET", path: "/rtb/obj?permissions&actions=s3:GetObject"},
		"PutBucketLogging":        {method: "PUT", path: "/rtb?logging", body: `<BucketLoggingStatus xmlns="http://doc.s3.amazonaws.com/2006-03-01"/>`},
		"GetBucketLogging":        {method: "GET", path: "/rtb?logging"},
		"DeleteBucketQuota":       {method: "DELETE", path: "/rtb?quota"},
		"GetReservation":          {method: "GET", path: "/rtb?reservation=none"},
		"DeleteReservation":       {method: "DELETE", path: "/rtb?reservation=none"},

		"PutBucketEncryption": {method: "PUT", path: "/rtb?encryption",
			body: `<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>`},
		"GetBucketEncryption":                        {method: "GET", path: "/rtb?encryption"},
		"DeleteBucketEncryption":                     {method: "DELETE", path: "/rtb?encryption"},
		"GetBucketWebsite":                           {method: "GET", path: "/rtb?website"},
		"PutBucketReplication":                       {method: "PUT", path: "/rtb?replication", body: replicationDoc("arn:aws:s3:::dst")},
		"GetBucketReplication":                       {method: "GET", path: "/rtb?replication"},
		"StartReplicationResync":                     {method: "POST", path: "/rtb?replication-resync"},
		"GetReplicationResync":                       {method: "GET", path: "/rtb?replication-resync"},
		"DeleteBucketReplication":                    {method: "DELETE", path: "/rtb?replication"},
		"GetBucketAccelerateConfiguration":           {method: "GET", path: "/rtb?accelerate"},
		"GetBucketRequestPayment":                    {method: "GET", path: "/rtb?requestPayment"},
		"GetBucketNotificationConfiguration":         {method: "GET", path: "/rtb?notification"},
		"PutBucketNotificationConfiguration":         {method: "PUT", path: "/rtb?notification", body: `<NotificationConfiguration/>`},
		"GetBucketAnalyticsConfiguration":            {method: "GET", path: "/rtb?analytics&id=a"},
		"ListBucketAnalyticsConfigurations":          {method: "GET", path: "/rtb?analytics"},
		"GetBucketInventoryConfiguration":            {method: "GET", path: "/rtb?inventory&id=a"},
		"ListBucketInventoryConfigurations":          {method: "GET", path: "/rtb?inventory"},
		"GetBucketMetricsConfiguration":              {method: "GET", path: "/rtb?metrics&id=a"},
		"ListBucketMetricsConfigurations":            {method: "GET", path: "/rtb?metrics"},
		"GetBucketIntelligentTieringConfiguration":   {method: "GET", path: "/rtb?intelligent-tiering&id=a"},
		"ListBucketIntelligentTieringConfigurations": {method: "GET", path: "/rtb?intelligent-tiering"},
	}
}

// TestAuthzEveryRoute: every operation the router serves is refused with
// 403 AccessDenied, changing nothing, to an anonymous request, to a user
// without policies, to a session of a role without policies, to a session
// whose session policy allows no S3 action (its role allows s3:*), and to
// a user allowed everything but the route's own
// actions (each of them denied in turn, the copy source's too); a user
// allowed exactly the route's actions gets past authorization. A route
// added without a request here fails the test.
func TestAuthzEveryRoute(t *testing.T) {
	srv := startRoutesServer(t)
	ctx := context.Background()
	root := srv.AWSClient(t)
	admin := iamClient(t, srv, testutil.AccessKey, testutil.SecretKey)
	for _, b := range []string{"rtb", "rtb-del"} {
		itest.CreateBucket(t, root, b)
	}
	for _, k := range []string{"obj", "gone", "gone2"} {
		itest.Put(t, root, "rtb", k, []byte("bytes of "+k))
	}
	upload := func(key string) string {
		out, err := root.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("rtb"), Key: aws.String(key)})
		if err != nil {
			t.Fatal(err)
		}
		return *out.UploadId
	}
	reqs := routeRequests(upload("mp"), upload("mp2"))

	// Role sessions: one of a role without policies, one of a role allowed
	// s3:* whose session policy allows no S3 action. The root assumes
	// both (their trust policies trust the account).
	stsRoot := stsClient(t, srv, testutil.AccessKey, testutil.SecretKey, "")
	id, err := stsRoot.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatal(err)
	}
	sessions := map[string][3]string{}
	for _, r := range []struct{ name, policy, session string }{
		{"role-none", "", ""},
		{"role-narrow", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`,
			`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:GetCallerIdentity","Resource":"*"}]}`},
	} {
		out, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(r.name), AssumeRolePolicyDocument: aws.String(
			`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + aws.ToString(id.Account) + `:root"},"Action":"sts:AssumeRole"}]}`)})
		if err != nil {
			t.Fatal(err)
		}
		if r.policy != "" {
			if _, err := admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(r.name), PolicyName: aws.String("s3"), PolicyDocument: aws.String(r.policy)}); err != nil {
				t.Fatal(err)
			}
		}
		in := &sts.AssumeRoleInput{RoleArn: out.Role.Arn, RoleSessionName: aws.String("routes")}
		if r.session != "" {
			in.Policy = aws.String(r.session)
		}
		as, err := stsRoot.AssumeRole(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		c := as.Credentials
		sessions[r.name] = [3]string{aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), aws.ToString(c.SessionToken)}
	}
	keysOf := func(who string) (string, string, string) {
		if k, ok := sessions[who]; ok {
			return k[0], k[1], k[2]
		}
		k := routeKeys[who]
		return k[0], k[1], ""
	}

	send := func(who string, rq routeRequest) (*http.Response, []byte) {
		t.Helper()
		if rq.form {
			var fields []itest.FormField
			if who != "anonymous" {
				id, secret, token := keysOf(who)
				conds := []any{map[string]string{"bucket": "rtb"}, []any{"starts-with", "$key", ""}}
				if token != "" {
					conds = append(conds, map[string]string{"x-amz-security-token": token})
				}
				fields = itest.SignedFormAs(t, id, secret, time.Now().Add(time.Hour), conds...)
				if token != "" {
					fields = append(fields, itest.FormField{Name: "x-amz-security-token", Value: token})
				}
			}
			return itest.PostForm(t, srv.URL+rq.path, append(fields, itest.FormField{Name: "key", Value: "posted"}), "f.txt", []byte("posted bytes"))
		}
		var body []byte
		if rq.body != "" {
			body = []byte(rq.body)
		}
		req := itest.RawRequest(t, srv, rq.method, rq.path, body)
		for k, v := range rq.hdr {
			req.Header.Set(k, v)
		}
		if body != nil {
			sum := md5.Sum(body)
			req.Header.Set("Content-MD5", base64.StdEncoding.EncodeToString(sum[:]))
		}
		switch who {
		case "anonymous":
		case "root":
			itest.Sign(t, req, body, itest.SignOpts{})
		default:
			id, secret, token := keysOf(who)
			itest.Sign(t, req, body, itest.SignOpts{AccessKey: id, SecretKey: secret, SessionToken: token})
		}
		return itest.Do(t, req)
	}
	// state is what a refused request must leave as it was: the buckets,
	// every version in rt, its configurations, obj's tags, lock and
	// uploads, as the root reads them.
	ids := regexp.MustCompile(`<(RequestId|HostId)>[^<]*</(RequestId|HostId)>`)
	state := func() string {
		t.Helper()
		var b strings.Builder
		for _, p := range []string{"/", "/rtb?versions", "/rtb-del?versions", "/rtb?cors", "/rtb?lifecycle", "/rtb?versioning",
			"/rtb?tagging", "/rtb?policy", "/rtb?object-lock", "/rtb/obj?tagging", "/rtb/obj?retention", "/rtb/obj?legal-hold",
			"/rtb?acl", "/rtb/obj?acl", "/rtb?ownershipControls", "/rtb?publicAccessBlock", "/rtb?uploads", "/rtb?reservations", "/rtb?quota", "/rtb/mp?uploadId=" + strings.TrimPrefix(reqs["ListParts"].path, "/rtb/mp?uploadId=")} {
			resp, body := send("root", routeRequest{method: "GET", path: p})
			b.WriteString(p + " " + resp.Status + " " + ids.ReplaceAllString(string(body), "") + "\n")
		}
		return b.String()
	}
	setPolicy := func(user string, stmts ...map[string]any) {
		t.Helper()
		doc, err := json.Marshal(map[string]any{"Version": "2012-10-17", "Statement": stmts})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(user), PolicyName: aws.String("route"), PolicyDocument: aws.String(string(doc))}); err != nil {
			t.Fatal(err)
		}
	}
	allow := func(actions ...string) map[string]any {
		return map[string]any{"Effect": "Allow", "Action": actions, "Resource": "*"}
	}
	deny := func(actions ...string) map[string]any {
		return map[string]any{"Effect": "Deny", "Action": actions, "Resource": "*"}
	}
	refused := func(op, who string, rq routeRequest) {
		t.Helper()
		before := state()
		resp, body := send(who, rq)
		switch {
		case strings.HasPrefix(op, "DeleteObjects") && resp.StatusCode == http.StatusOK:
			// Refused key by key, as S3 does: an Error entry per key.
			if !strings.Contains(string(body), "<Code>AccessDenied</Code>") || strings.Contains(string(body), "<Deleted>") {
				t.Errorf("%s by %s: 200 %s, want each key refused with AccessDenied", op, who, body)
			}
		case resp.StatusCode != http.StatusForbidden || (rq.method != "HEAD" && itest.BodyCode(body) != "AccessDenied"):
			t.Errorf("%s by %s: %s %s, want 403 AccessDenied", op, who, resp.Status, itest.BodyCode(body))
		}
		if after := state(); after != before {
			t.Errorf("%s by %s was refused but changed the state:\nbefore:\n%s\nafter:\n%s", op, who, before, after)
		}
	}

	for _, o := range s3api.Routed() {
		op := o.String()
		rq, ok := reqs[op]
		if !ok {
			t.Errorf("%s: routed, but this test has no request for it", op)
			continue
		}
		actions := o.Actions()
		if len(actions) == 0 {
			// A question about the caller's own permissions: anyone
			// authenticated may ask it, and is told no.
			refused(op, "anonymous", rq)
			for _, who := range []string{"nobody", "role-none", "role-narrow"} {
				if resp, body := send(who, rq); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "<Allowed>false</Allowed>") {
					t.Errorf("%s by %s: %s %s, want 200 and s3:GetObject not allowed", op, who, resp.Status, body)
				}
			}
			continue
		}
		for _, who := range []string{"anonymous", "nobody", "role-none", "role-narrow"} {
			refused(op, who, rq)
		}
		for _, a := range actions {
			setPolicy("denier", allow("s3:*"), deny(a))
			refused(op+" without "+a, "denier", rq)
		}
		needed := actions
		if src := o.SourceAction(); src != "" {
			setPolicy("denier", allow("s3:*"), deny(src))
			refused(op+" without the source's "+src, "denier", rq)
			needed = append(append([]string(nil), actions...), src)
		}
		setPolicy("grantee", allow(needed...))
		resp, body := send("grantee", rq)
		if resp.StatusCode == http.StatusForbidden {
			t.Errorf("%s by a user allowed %v: %s %s, want it past authorization", op, needed, resp.Status, itest.BodyCode(body))
		}
	}
}
