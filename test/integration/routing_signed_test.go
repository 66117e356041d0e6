package integration

// A signature must cover every query parameter that chooses the
// operation: otherwise whoever holds a signed request (a presigned URL, a
// captured request inside its window) appends one and runs another
// operation as the signer, with a body of their choice (issue 37: a
// presigned upload plus &retention locked the object; a DeleteBucket plus
// &publicAccessBlock removed the bucket's public access block).

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/minio/minio-go/v7"
	miniocreds "github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/signer"

	"github.com/jogstore/jog/internal/s3api"
	"github.com/jogstore/jog/internal/sigv2"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// authForm is one of the four ways a request is signed. sign signs req as
// it is and returns the request to send, with signers JOG did not write:
// minio-go's for SigV2, aws-sdk-go-v2's for SigV4. SigV4 signs the whole
// query; a SigV2 signer signs the sub-resources it knows, or, when routing
// is set, JOG's own signer signs AWS's and those.
type authForm struct {
	name string
	v2   bool
	sign func(t *testing.T, req *http.Request, body []byte, routing []string) *http.Request
}

var (
	sigV2Header = authForm{"SigV2 header", true, func(t *testing.T, req *http.Request, _ []byte, routing []string) *http.Request {
		if routing != nil {
			sigv2.Sign(req, testutil.AccessKey, testutil.SecretKey, routing...)
			return req
		}
		return signer.SignV2(*req, testutil.AccessKey, testutil.SecretKey, false)
	}}
	sigV2Presigned = authForm{"SigV2 presigned", true, func(t *testing.T, req *http.Request, _ []byte, routing []string) *http.Request {
		if routing != nil {
			sigv2.Presign(req, testutil.AccessKey, testutil.SecretKey, time.Now().Add(10*time.Minute), routing...)
			return req
		}
		return signer.PreSignV2(*req, testutil.AccessKey, testutil.SecretKey, 600, false)
	}}
	sigV4Header = authForm{"SigV4 header", false, func(t *testing.T, req *http.Request, body []byte, _ []string) *http.Request {
		itest.Sign(t, req, body, itest.SignOpts{})
		return req
	}}
	sigV4Presigned = authForm{"SigV4 presigned", false, func(t *testing.T, req *http.Request, body []byte, _ []string) *http.Request {
		q := req.URL.Query()
		q.Set("X-Amz-Expires", "600")
		req.URL.RawQuery = q.Encode()
		creds := aws.Credentials{AccessKeyID: testutil.AccessKey, SecretAccessKey: testutil.SecretKey}
		u, signed, err := v4.NewSigner().PresignHTTP(context.Background(), creds, req, "UNSIGNED-PAYLOAD", "s3", testutil.Region, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		out := itest.URLRequest(t, req.Method, u, body)
		for k, v := range signed { // x-amz-* headers may have moved into the query
			if !strings.EqualFold(k, "Host") {
				out.Header[k] = v
			}
		}
		return out
	}}
	authForms = []authForm{sigV2Header, sigV2Presigned, sigV4Header, sigV4Presigned}
)

// routeSwitch is a request of one operation (from) that a routing
// parameter, appended, turns into another (to).
type routeSwitch struct {
	method, path, param, value string
	from, to                   s3api.Route
}

// query is the parameter as appended: "name" or "name=value".
func (s routeSwitch) query() string {
	if s.value == "" {
		return s.param
	}
	return s.param + "=" + s.value
}

func (s routeSwitch) String() string {
	return fmt.Sprintf("%s %s (%v) + %s → %v", s.method, s.path, s.from.Op, s.param, s.to.Op)
}

// routeSwitches derives, from the router itself, every request on bucket
// rtb or its object obj that appending one routing parameter (with the
// value values names, if any) turns into another operation JOG serves, or
// into the same one naming a version.
func routeSwitches(values map[string]string) []routeSwitch {
	served := s3api.Routed()
	var out []routeSwitch
	for _, p := range s3api.RoutingParams() {
		for _, m := range []string{"GET", "HEAD", "PUT", "POST", "DELETE"} {
			for _, path := range []string{"/rtb", "/rtb/obj"} {
				s := routeSwitch{method: m, path: path, param: p, value: values[p]}
				s.from = s3api.ParseRoute(httptest.NewRequest(m, path, nil), "")
				s.to = s3api.ParseRoute(httptest.NewRequest(m, path+"?"+s.query(), nil), "")
				if s.from != s.to && slices.Contains(served, s.to.Op) {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// TestRoutingParamsSigned walks every request the router turns into
// another operation by one appended query parameter. For each of the four
// ways to sign, it signs the first operation's request — with the second
// one's headers and body, so only the query differs — appends the
// parameter and expects 403 SignatureDoesNotMatch with nothing changed
// (every configuration, tag, lock, upload, reservation and object, as the
// root reads them). The one exception is a parameter SigV2 leaves unsigned
// (s3api's unsignedRouting: list-type here; id switches an operation only
// beside another parameter, as s3api's TestUnsignedRoutingSameAuthorization
// walks), accepted only where both operations need the same IAM actions:
// ListObjects and ListObjectsV2 both need s3:ListBucket on the bucket and
// show the same keys, so a signature without it grants nothing more with
// it (and botocore and minio-go, which do not sign it, keep working).
// Then, as a control, each switched request signed with its parameter is
// accepted.
func TestRoutingParamsSigned(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithoutFsync(), testutil.WithQoSCapacity(1e9, 1e9))
	ctx := context.Background()
	root := srv.AWSClient(t)
	if _, err := root.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("rtb"), ObjectLockEnabledForBucket: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	objVersion := aws.ToString(itest.Put(t, root, "rtb", "obj", []byte("bytes of obj")).VersionId)
	itest.Put(t, root, "rtb", "gone", []byte("bytes of gone"))
	upload := func(key string) string {
		out, err := root.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("rtb"), Key: aws.String(key)})
		if err != nil {
			t.Fatal(err)
		}
		return aws.ToString(out.UploadId)
	}
	up := upload("mp")
	reqs := routeRequests(up, upload("mp2"))

	// send signs a request of rq's headers and body to path, then appends
	// extra to its query.
	send := func(form authForm, method, path string, rq routeRequest, routing []string, extra string) (*http.Response, []byte) {
		t.Helper()
		var body []byte
		if rq.body != "" {
			body = []byte(rq.body)
		}
		req := itest.RawRequest(t, srv, method, path, body)
		for k, v := range rq.hdr {
			req.Header.Set(k, v)
		}
		if body != nil {
			sum := md5.Sum(body)
			req.Header.Set("Content-MD5", base64.StdEncoding.EncodeToString(sum[:]))
		}
		req = form.sign(t, req, body, routing)
		if extra != "" {
			if req.URL.RawQuery != "" {
				req.URL.RawQuery += "&"
			}
			req.URL.RawQuery += extra
		}
		return itest.Do(t, req)
	}
	asRoot := func(method, path string, rq routeRequest) (*http.Response, []byte) {
		t.Helper()
		return send(sigV4Header, method, path, rq, nil, "")
	}
	// Something for every write a switched request could make to undo or
	// change.
	for _, set := range []routeRequest{
		{method: "PUT", path: "/rtb?publicAccessBlock", body: `<PublicAccessBlockConfiguration><BlockPublicPolicy>true</BlockPublicPolicy></PublicAccessBlockConfiguration>`},
		{method: "PUT", path: "/rtb?ownershipControls", body: `<OwnershipControls><Rule><ObjectOwnership>BucketOwnerPreferred</ObjectOwnership></Rule></OwnershipControls>`},
		{method: "PUT", path: "/rtb?quota", body: `<BucketQuota><QuotaBytes>5000000000</QuotaBytes></BucketQuota>`},
		{method: "PUT", path: "/rtb?tagging", body: `<Tagging><TagSet><Tag><Key>k</Key><Value>before</Value></Tag></TagSet></Tagging>`},
		{method: "PUT", path: "/rtb/obj?tagging", body: `<Tagging><TagSet><Tag><Key>k</Key><Value>before</Value></Tag></TagSet></Tagging>`},
		reqs["PutBucketCors"], reqs["PutBucketLifecycleConfiguration"], reqs["PutBucketPolicy"],
	} {
		if resp, body := asRoot(set.method, set.path, set); resp.StatusCode/100 != 2 {
			t.Fatalf("%s %s: %s %s", set.method, set.path, resp.Status, body)
		}
	}
	resp, body := asRoot("POST", "/rtb?reservations", reqs["CreateReservation"])
	rsv := regexp.MustCompile(`<Id>([^<]+)</Id>`).FindSubmatch(body)
	if resp.StatusCode != http.StatusOK || rsv == nil {
		t.Fatalf("create reservation: %s %s", resp.Status, body)
	}

	// state is everything the root can read back: the answer to every
	// GET operation of routeRequests.
	ids := regexp.MustCompile(`<(RequestId|HostId)>[^<]*</(RequestId|HostId)>`)
	state := func() string {
		t.Helper()
		var b strings.Builder
		for _, o := range s3api.Routed() {
			if rq, ok := reqs[o.String()]; ok && rq.method == "GET" {
				resp, body := asRoot("GET", rq.path, rq)
				b.WriteString(rq.path + " " + resp.Status + " " + ids.ReplaceAllString(string(body), "") + "\n")
			}
		}
		return b.String()
	}

	switches := routeSwitches(map[string]string{"list-type": "2", "id": "a", "reservation": string(rsv[1]), "uploadId": up, "versionId": objVersion})
	signed := s3api.SignedRoutingParams()
	walked := map[string]bool{}
	for _, s := range switches {
		walked[s.param] = true
		rq := reqs[s.to.Op.String()]
		before := state()
		for _, form := range authForms {
			if form.v2 && !slices.Contains(signed, s.param) {
				if !slices.Equal(s.from.Actions(), s.to.Actions()) {
					t.Errorf("%s: SigV2 leaves %s unsigned, but it changes the actions from %v to %v", s, s.param, s.from.Actions(), s.to.Actions())
				}
				continue
			}
			resp, got := send(form, s.method, s.path, rq, nil, s.query())
			if resp.StatusCode != http.StatusForbidden || (s.method != "HEAD" && itest.BodyCode(got) != "SignatureDoesNotMatch") {
				t.Errorf("%s, %s: %s %s, want 403 SignatureDoesNotMatch", s, form.name, resp.Status, itest.BodyCode(got))
			}
		}
		if after := state(); after != before {
			t.Errorf("%s was refused but changed the state:\nbefore:\n%s\nafter:\n%s", s, before, after)
		}
	}
	t.Logf("%d requests switched by %d routing parameters, each signed four ways", len(switches), len(walked))
	// The parameters of issue 37, which SigV2 once left unsigned, and two
	// it always signed.
	for _, p := range []string{"retention", "legal-hold", "publicAccessBlock", "ownershipControls", "quota", "reservation", "reservations", "policyStatus", "attributes", "versionId", "uploadId"} {
		if !walked[p] {
			t.Errorf("no request switched by %q was walked", p)
		}
	}

	// The control: signed with its parameter, each switched request is
	// authenticated (whatever its operation then answers).
	for _, s := range switches {
		for _, form := range authForms {
			resp, got := send(form, s.method, s.path+"?"+s.query(), reqs[s.to.Op.String()], signed, "")
			if code := itest.BodyCode(got); code == "SignatureDoesNotMatch" || (s.method == "HEAD" && resp.StatusCode == http.StatusForbidden) {
				t.Errorf("%s signed with its parameter, %s: %s %s", s, form.name, resp.Status, code)
			}
		}
	}
}

// TestMinioSigV2RoutingParams: minio-go with SigV2 credentials signs
// retention, legal-hold and encryption (its resourceList), which JOG now
// signs too, so its object-lock calls and GetBucketEncryption verify;
// ListObjects (V2: list-type, signed by neither) works as before. It does
// not sign attributes, which JOG does (GetObject and GetObjectAttributes
// need different actions): GetObjectAttributes is refused, never run
// unsigned.
func TestMinioSigV2RoutingParams(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithoutFsync())
	u, _ := url.Parse(srv.URL)
	c, err := minio.New(u.Host, &minio.Options{Creds: miniocreds.NewStaticV2(testutil.AccessKey, testutil.SecretKey, ""),
		Region: testutil.Region, BucketLookup: minio.BucketLookupPath})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.MakeBucket(ctx, "v2lock", minio.MakeBucketOptions{ObjectLocking: true}); err != nil {
		t.Fatal(err)
	}
	itest.MinioPut(t, c, "v2lock", "k", []byte("locked bytes"), minio.PutObjectOptions{})

	mode, until := minio.Governance, time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	if err := c.PutObjectRetention(ctx, "v2lock", "k", minio.PutObjectRetentionOptions{Mode: &mode, RetainUntilDate: &until}); err != nil {
		t.Fatalf("PutObjectRetention: %v", err)
	}
	if m, d, err := c.GetObjectRetention(ctx, "v2lock", "k", ""); err != nil || *m != mode || !d.Equal(until) {
		t.Fatalf("GetObjectRetention: %v %v %v, want %v %v", m, d, err, mode, until)
	}
	on := minio.LegalHoldEnabled
	if err := c.PutObjectLegalHold(ctx, "v2lock", "k", minio.PutObjectLegalHoldOptions{Status: &on}); err != nil {
		t.Fatalf("PutObjectLegalHold: %v", err)
	}
	if s, err := c.GetObjectLegalHold(ctx, "v2lock", "k", minio.GetObjectLegalHoldOptions{}); err != nil || *s != on {
		t.Fatalf("GetObjectLegalHold: %v %v", s, err)
	}
	if _, err := c.GetBucketEncryption(ctx, "v2lock"); itest.Code(err) != "ServerSideEncryptionConfigurationNotFoundError" {
		t.Fatalf("GetBucketEncryption: %v, want ServerSideEncryptionConfigurationNotFoundError", err)
	}
	var keys []string
	for o := range c.ListObjects(ctx, "v2lock", minio.ListObjectsOptions{}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		keys = append(keys, o.Key)
	}
	if !slices.Equal(keys, []string{"k"}) {
		t.Fatalf("ListObjects: %v", keys)
	}
	_, err = c.GetObjectAttributes(ctx, "v2lock", "k", minio.ObjectAttributesOptions{})
	itest.WantErr(t, err, http.StatusForbidden, "SignatureDoesNotMatch")
}
