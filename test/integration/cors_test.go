package integration

// CORS: Put/Get/DeleteBucketCors through aws-sdk-go-v2 and raw signed
// requests, preflights and actual requests through raw HTTP. The browser
// itself is in cors_browser_test.go.

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"encoding/xml"
	"hash/crc32"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

const corsVary = "Origin, Access-Control-Request-Headers, Access-Control-Request-Method"

// corsWebRules: the app's origin may GET and PUT with x-amz-* headers and
// read ETag; any origin may GET.
func corsWebRules() []types.CORSRule {
	return []types.CORSRule{
		{ID: aws.String("app"), AllowedOrigins: []string{"https://app.example.com", "http://*.example.org"},
			AllowedMethods: []string{"GET", "PUT"}, AllowedHeaders: []string{"x-amz-*", "Content-Type"},
			ExposeHeaders: []string{"ETag", "x-amz-request-id"}, MaxAgeSeconds: aws.Int32(600)},
		{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"GET", "HEAD"}},
	}
}

func corsMustPut(t *testing.T, c *s3.Client, bucket string, rules []types.CORSRule) {
	t.Helper()
	_, err := c.PutBucketCors(context.Background(), &s3.PutBucketCorsInput{Bucket: aws.String(bucket),
		CORSConfiguration: &types.CORSConfiguration{CORSRules: rules}})
	if err != nil {
		t.Fatalf("PutBucketCors: %v", err)
	}
}

func TestCORSConfigRoundTrip(t *testing.T) {
	_, c := itest.StartBucket(t, "cors")
	ctx := context.Background()
	b := aws.String("cors")

	_, err := c.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: b})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchCORSConfiguration")

	corsMustPut(t, c, "cors", corsWebRules())
	out, err := c.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: b})
	if err != nil {
		t.Fatalf("GetBucketCors: %v", err)
	}
	if !reflect.DeepEqual(out.CORSRules, corsWebRules()) {
		t.Fatalf("GetBucketCors = %+v\nwant %+v", out.CORSRules, corsWebRules())
	}

	// A put replaces the whole configuration.
	one := []types.CORSRule{{AllowedOrigins: []string{"https://other.example"}, AllowedMethods: []string{"DELETE"}}}
	corsMustPut(t, c, "cors", one)
	out, err = c.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: b})
	if err != nil || !reflect.DeepEqual(out.CORSRules, one) {
		t.Fatalf("GetBucketCors after replace = %+v, %v", out.CORSRules, err)
	}

	for i := range 2 { // deleting nothing succeeds too
		if _, err := c.DeleteBucketCors(ctx, &s3.DeleteBucketCorsInput{Bucket: b}); err != nil {
			t.Fatalf("DeleteBucketCors #%d: %v", i, err)
		}
	}
	_, err = c.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: b})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchCORSConfiguration")

	// No bucket.
	nb := aws.String("cors-none")
	_, err = c.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: nb})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	_, err = c.PutBucketCors(ctx, &s3.PutBucketCorsInput{Bucket: nb, CORSConfiguration: &types.CORSConfiguration{CORSRules: one}})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	_, err = c.DeleteBucketCors(ctx, &s3.DeleteBucketCorsInput{Bucket: nb})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")

	// The configuration goes with its bucket.
	corsMustPut(t, c, "cors", one)
	if _, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: b}); err != nil {
		t.Fatalf("DeleteBucket: %v", err)
	}
	itest.CreateBucket(t, c, "cors")
	_, err = c.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: b})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchCORSConfiguration")
}

// corsPutRaw sends PutBucketCors with body as is, signed, with extra
// headers.
func corsPutRaw(t *testing.T, srv *testutil.Server, bucket, body string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req := itest.RawRequest(t, srv, http.MethodPut, "/"+bucket+"?cors", []byte(body))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	itest.Sign(t, req, []byte(body), itest.SignOpts{})
	return itest.Do(t, req)
}

func TestCORSConfigValidation(t *testing.T) {
	srv, c := itest.StartBucket(t, "corsv")
	rule := func(inner string) string { return "<CORSRule>" + inner + "</CORSRule>" }
	doc := func(rules ...string) string {
		return `<CORSConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` + strings.Join(rules, "") + `</CORSConfiguration>`
	}
	ok := `<AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod>`
	var hundredOne []string
	for range 101 {
		hundredOne = append(hundredOne, rule(ok))
	}
	md5of := func(s string) string { sum := md5.Sum([]byte(s)); return base64.StdEncoding.EncodeToString(sum[:]) }
	crcOf := func(s string) string {
		return base64.StdEncoding.EncodeToString(binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE([]byte(s))))
	}
	good := doc(rule(ok))
	cases := []struct {
		name, body string
		hdr        map[string]string
		status     int
		code, msg  string
	}{
		{"not XML", "<CORSConfiguration><CORSRule>", nil, 400, "MalformedXML", ""},
		{"no rules", doc(), nil, 400, "MalformedXML", ""},
		{"no method", doc(rule(`<AllowedOrigin>*</AllowedOrigin>`)), nil, 400, "MalformedXML", ""},
		{"101 rules", doc(hundredOne...), nil, 400, "MalformedXML", ""},
		{"negative max age", doc(rule(ok + "<MaxAgeSeconds>-5</MaxAgeSeconds>")), nil, 400, "MalformedXML", ""},
		{"method PATCH", doc(rule(`<AllowedOrigin>*</AllowedOrigin><AllowedMethod>PATCH</AllowedMethod>`)), nil, 400, "InvalidRequest",
			"Found unsupported HTTP method in CORS config. Unsupported method is PATCH"},
		{"two wildcards", doc(rule(`<AllowedOrigin>http://*.*.com</AllowedOrigin><AllowedMethod>GET</AllowedMethod>`)), nil, 400, "InvalidRequest",
			`AllowedOrigin "http://*.*.com" can not have more than one wildcard.`},
		{"two header wildcards", doc(rule(ok + `<AllowedHeader>*-*</AllowedHeader>`)), nil, 400, "InvalidRequest",
			`AllowedHeader "*-*" can not have more than one wildcard.`},
		{"long ID", doc(rule(ok + "<ID>" + strings.Repeat("x", 256) + "</ID>")), nil, 400, "InvalidRequest", ""},
		{"wrong Content-MD5", good, map[string]string{"Content-MD5": md5of("other")}, 400, "BadDigest", ""},
		{"bad Content-MD5", good, map[string]string{"Content-MD5": "nope"}, 400, "InvalidDigest", ""},
		{"wrong CRC32", good, map[string]string{"X-Amz-Checksum-Crc32": crcOf("other")}, 400, "BadDigest", ""},
		{"over 64 KiB", doc(rule(ok + "<ID>" + strings.Repeat("x", 64<<10) + "</ID>")), nil, 400, "MaxMessageLengthExceeded", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := corsPutRaw(t, srv, "corsv", tc.body, tc.hdr)
			itest.WantRawErr(t, resp, body, tc.status, tc.code)
			var e itest.XMLError
			_ = xml.Unmarshal(body, &e)
			if tc.msg != "" && e.Message != tc.msg {
				t.Errorf("message %q, want %q", e.Message, tc.msg)
			}
		})
	}
	_, err := c.GetBucketCors(context.Background(), &s3.GetBucketCorsInput{Bucket: aws.String("corsv")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchCORSConfiguration")

	// Matching digests are accepted.
	resp, body := corsPutRaw(t, srv, "corsv", good, map[string]string{"Content-MD5": md5of(good), "X-Amz-Checksum-Crc32": crcOf(good)})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PutBucketCors with matching digests: %d %s", resp.StatusCode, body)
	}
}

// corsPreflight sends an unsigned OPTIONS with the given headers.
func corsPreflight(t *testing.T, srv *testutil.Server, path string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req := itest.RawRequest(t, srv, http.MethodOptions, path, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return itest.Do(t, req)
}

// corsWantHeaders asserts the Access-Control-* and Vary headers of resp
// are exactly want.
func corsWantHeaders(t *testing.T, what string, resp *http.Response, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for k := range resp.Header {
		if strings.HasPrefix(k, "Access-Control-") || k == "Vary" {
			got[k] = strings.Join(resp.Header.Values(k), "|")
		}
	}
	if want == nil {
		want = map[string]string{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: CORS headers\n %v\nwant %v", what, got, want)
	}
}

// corsPreflightError is a refused preflight's body.
type corsPreflightError struct {
	Code, Message, Method, ResourceType string
}

func TestCORSPreflight(t *testing.T) {
	srv, c := itest.StartBucket(t, "pre")
	app := "https://app.example.com"
	refuse := func(name, path string, hdr map[string]string, status int, code, msg, method, resource string) {
		t.Helper()
		resp, body := corsPreflight(t, srv, path, hdr)
		itest.WantRawErr(t, resp, body, status, code)
		var e corsPreflightError
		if err := xml.Unmarshal(body, &e); err != nil {
			t.Fatal(err)
		}
		if e.Message != msg || e.Method != method || e.ResourceType != resource {
			t.Errorf("%s: %+v, want message %q method %q resource type %q", name, e, msg, method, resource)
		}
		corsWantHeaders(t, name, resp, nil)
	}
	const (
		noOrigin   = "Insufficient information. Origin request header needed."
		noBucket   = "CORSResponse: Bucket not found"
		notEnabled = "CORSResponse: CORS is not enabled for this bucket."
		notAllowed = "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec."
	)
	put := map[string]string{"Origin": app, "Access-Control-Request-Method": "PUT"}

	refuse("no headers", "/pre/k", nil, 400, "BadRequest", noOrigin, "", "")
	refuse("method alone", "/pre/k", map[string]string{"Access-Control-Request-Method": "GET"}, 400, "BadRequest", noOrigin, "", "")
	refuse("no bucket", "/pre-none/k", put, 403, "AccessForbidden", noBucket, "PUT", "BUCKET")
	refuse("no configuration", "/pre/k", put, 403, "AccessForbidden", notEnabled, "PUT", "BUCKET")
	refuse("no configuration, origin alone", "/pre/k", map[string]string{"Origin": app}, 403, "AccessForbidden", notEnabled, "OPTIONS", "BUCKET")

	corsMustPut(t, c, "pre", corsWebRules())
	refuse("origin alone", "/pre/k", map[string]string{"Origin": app}, 400, "BadRequest", "Invalid Access-Control-Request-Method: null", "", "")
	refuse("method PATCH", "/pre/k", map[string]string{"Origin": app, "Access-Control-Request-Method": "PATCH"},
		400, "BadRequest", "Invalid Access-Control-Request-Method: PATCH", "", "")
	refuse("other origin may not PUT", "/pre/k", map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "PUT"},
		403, "AccessForbidden", notAllowed, "PUT", "OBJECT")
	refuse("http is not https", "/pre", map[string]string{"Origin": "http://app.example.com", "Access-Control-Request-Method": "PUT"},
		403, "AccessForbidden", notAllowed, "PUT", "BUCKET")
	refuse("a header no rule allows", "/pre/k", map[string]string{"Origin": app, "Access-Control-Request-Method": "PUT",
		"Access-Control-Request-Headers": "x-amz-meta-a,authorization"}, 403, "AccessForbidden", notAllowed, "PUT", "OBJECT")

	// Allowed: the matched rule's answer, requested headers lowercase.
	resp, body := corsPreflight(t, srv, "/pre/photos/cat.jpg?uploadId=x", map[string]string{"Origin": app,
		"Access-Control-Request-Method": "PUT", "Access-Control-Request-Headers": "X-Amz-Meta-Color,content-type"})
	if resp.StatusCode != http.StatusOK || len(body) != 0 {
		t.Fatalf("allowed preflight: %d %q", resp.StatusCode, body)
	}
	itest.WantRequestIDs(t, resp)
	corsWantHeaders(t, "allowed preflight", resp, map[string]string{
		"Access-Control-Allow-Origin":      app,
		"Access-Control-Allow-Credentials": "true",
		"Access-Control-Allow-Methods":     "GET, PUT",
		"Access-Control-Allow-Headers":     "x-amz-meta-color, content-type",
		"Access-Control-Expose-Headers":    "ETag, x-amz-request-id",
		"Access-Control-Max-Age":           "600",
		"Vary":                             corsVary,
	})
	// A wildcard origin pattern echoes the origin.
	resp, _ = corsPreflight(t, srv, "/pre", map[string]string{"Origin": "http://shop.example.org", "Access-Control-Request-Method": "GET"})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != "http://shop.example.org" {
		t.Errorf("wildcard origin: %d %v", resp.StatusCode, resp.Header)
	}
	// The "*" rule answers "*", without credentials.
	resp, _ = corsPreflight(t, srv, "/pre/k", map[string]string{"Origin": "https://anyone.test", "Access-Control-Request-Method": "HEAD"})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("* rule: %d", resp.StatusCode)
	}
	corsWantHeaders(t, "* rule", resp, map[string]string{
		"Access-Control-Allow-Origin":  "*",
		"Access-Control-Allow-Methods": "GET, HEAD",
		"Vary":                         corsVary,
	})

	// A preflight needs no credentials, and bad ones do not matter.
	req := itest.RawRequest(t, srv, http.MethodOptions, "/pre/k", nil)
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=nobody/20200101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00")
	req.Header.Set("Origin", app)
	req.Header.Set("Access-Control-Request-Method", "GET")
	if resp, body := itest.Do(t, req); resp.StatusCode != http.StatusOK {
		t.Errorf("preflight with a bad Authorization: %d %s", resp.StatusCode, body)
	}

	// Deleted: refused again at once.
	if _, err := c.DeleteBucketCors(context.Background(), &s3.DeleteBucketCorsInput{Bucket: aws.String("pre")}); err != nil {
		t.Fatal(err)
	}
	refuse("after DeleteBucketCors", "/pre/k", put, 403, "AccessForbidden", notEnabled, "PUT", "BUCKET")
}

func TestCORSActualRequests(t *testing.T) {
	srv, c := itest.StartBucket(t, "act")
	app := "https://app.example.com"
	itest.Put(t, c, "act", "k", []byte("hello"))
	signed := func(method, path, origin string, extra map[string]string) *http.Response {
		t.Helper()
		req := itest.RawRequest(t, srv, method, path, nil)
		itest.Sign(t, req, nil, itest.SignOpts{})
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		for k, v := range extra {
			req.Header.Set(k, v)
		}
		resp, _ := itest.Do(t, req)
		return resp
	}
	appHeaders := map[string]string{
		"Access-Control-Allow-Origin":      app,
		"Access-Control-Allow-Credentials": "true",
		"Access-Control-Allow-Methods":     "GET, PUT",
		"Access-Control-Expose-Headers":    "ETag, x-amz-request-id",
		"Access-Control-Max-Age":           "600",
		"Vary":                             corsVary,
	}

	// No configuration: nothing, Origin or not.
	corsWantHeaders(t, "GET without configuration", signed("GET", "/act/k", app, nil), nil)

	corsMustPut(t, c, "act", corsWebRules())
	resp := signed("GET", "/act/k", app, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
	corsWantHeaders(t, "GET from the app", resp, appHeaders)
	corsWantHeaders(t, "GET without Origin", signed("GET", "/act/k", "", nil), nil)
	corsWantHeaders(t, "HEAD from another origin", signed("HEAD", "/act/k", "https://anyone.test", nil), map[string]string{
		"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET, HEAD", "Vary": corsVary})
	corsWantHeaders(t, "DELETE from the app (no rule)", signed("DELETE", "/act/other", app, nil), nil)
	// Access-Control-Request-Method decides over the method; the
	// request's headers are not checked.
	corsWantHeaders(t, "GET naming DELETE", signed("GET", "/act/k", app, map[string]string{"Access-Control-Request-Method": "DELETE"}), nil)
	corsWantHeaders(t, "GET with a header no rule allows", signed("GET", "/act/k", app, map[string]string{"X-Custom": "1"}), appHeaders)

	// Errors carry them too: a missing key, a bad signature.
	resp = signed("GET", "/act/missing", app, nil)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET missing: %d", resp.StatusCode)
	}
	corsWantHeaders(t, "404", resp, appHeaders)
	req := itest.RawRequest(t, srv, http.MethodGet, "/act/k", nil)
	itest.Sign(t, req, nil, itest.SignOpts{SecretKey: "wrong-secret-key-0000000000000000000000"})
	req.Header.Set("Origin", app)
	resp, body := itest.Do(t, req)
	itest.WantRawErr(t, resp, body, http.StatusForbidden, "SignatureDoesNotMatch")
	corsWantHeaders(t, "403", resp, appHeaders)
	// A bucket that does not exist has no rules.
	corsWantHeaders(t, "no bucket", signed("GET", "/act-none/k", app, nil), nil)

	// A presigned PUT from the app.
	pp, err := s3.NewPresignClient(c).PresignPutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String("act"), Key: aws.String("up")})
	if err != nil {
		t.Fatal(err)
	}
	hdr := pp.SignedHeader.Clone()
	hdr.Set("Origin", app)
	resp, body = awsPresignedDo(t, pp.Method, pp.URL, hdr, []byte("from the browser"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("presigned PUT: %d %s", resp.StatusCode, body)
	}
	corsWantHeaders(t, "presigned PUT", resp, appHeaders)

	// Changes apply to the next request, through the service's cache.
	corsMustPut(t, c, "act", []types.CORSRule{{AllowedOrigins: []string{app}, AllowedMethods: []string{"GET"}}})
	corsWantHeaders(t, "GET after replace", signed("GET", "/act/k", app, nil), map[string]string{
		"Access-Control-Allow-Origin": app, "Access-Control-Allow-Credentials": "true",
		"Access-Control-Allow-Methods": "GET", "Vary": corsVary})
	if _, err := c.DeleteBucketCors(context.Background(), &s3.DeleteBucketCorsInput{Bucket: aws.String("act")}); err != nil {
		t.Fatal(err)
	}
	corsWantHeaders(t, "GET after DeleteBucketCors", signed("GET", "/act/k", app, nil), nil)
}
