package integration

// Presigned URLs made by aws-sdk-go-v2 and minio-go, sent with plain
// net/http: methods, overrides, tampering and expiry.

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/minio/minio-go/v7"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// awsPresignedDo sends a presigned request with plain net/http.
func awsPresignedDo(t *testing.T, method, u string, hdr http.Header, body []byte) (*http.Response, []byte) {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	var req *http.Request
	var err error
	if rd != nil {
		req, err = http.NewRequest(method, u, rd)
	} else {
		req, err = http.NewRequest(method, u, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if k != "Host" {
			req.Header[k] = v
		}
	}
	return itest.Do(t, req)
}

func TestAWSPresignedURLs(t *testing.T) {
	srv, c := itest.StartBucket(t, "presign")
	ctx := context.Background()
	pc := s3.NewPresignClient(c)
	itest.Put(t, c, "presign", "dir/file name+ü.txt", []byte("presigned content"))

	// GET.
	pg, err := pc.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("presign"), Key: aws.String("dir/file name+ü.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if pg.Method != http.MethodGet || !strings.Contains(pg.URL, "X-Amz-Signature=") {
		t.Fatalf("presigned GET %s %s", pg.Method, pg.URL)
	}
	resp, body := awsPresignedDo(t, pg.Method, pg.URL, pg.SignedHeader, nil)
	if resp.StatusCode != http.StatusOK || string(body) != "presigned content" || resp.Header.Get("ETag") != itest.ETag([]byte("presigned content")) {
		t.Fatalf("presigned GET: %d %q ETag %s", resp.StatusCode, body, resp.Header.Get("ETag"))
	}
	itest.WantRequestIDs(t, resp)

	// GET with a signed response override.
	pg2, err := pc.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("presign"), Key: aws.String("dir/file name+ü.txt"),
		ResponseContentDisposition: aws.String(`attachment; filename="dl.txt"`)})
	if err != nil {
		t.Fatal(err)
	}
	resp, body = awsPresignedDo(t, pg2.Method, pg2.URL, pg2.SignedHeader, nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Disposition") != `attachment; filename="dl.txt"` || string(body) != "presigned content" {
		t.Fatalf("presigned GET with override: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Disposition"), body)
	}

	// HEAD.
	ph, err := pc.PresignHeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("presign"), Key: aws.String("dir/file name+ü.txt")})
	if err != nil {
		t.Fatal(err)
	}
	resp, _ = awsPresignedDo(t, ph.Method, ph.URL, ph.SignedHeader, nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Length") != strconv.Itoa(len("presigned content")) {
		t.Fatalf("presigned HEAD: %d length %s", resp.StatusCode, resp.Header.Get("Content-Length"))
	}

	// PUT, new key and overwrite.
	for i, payload := range []string{"uploaded via presigned PUT", "second presigned PUT"} {
		pp, err := pc.PresignPutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("presign"), Key: aws.String("up/loaded key")})
		if err != nil {
			t.Fatal(err)
		}
		if pp.Method != http.MethodPut {
			t.Fatalf("presigned PUT method %s", pp.Method)
		}
		resp, body = awsPresignedDo(t, pp.Method, pp.URL, pp.SignedHeader, []byte(payload))
		if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != itest.ETag([]byte(payload)) {
			t.Fatalf("presigned PUT #%d: %d %s ETag %s", i, resp.StatusCode, body, resp.Header.Get("ETag"))
		}
		itest.WantObject(t, c, "presign", "up/loaded key", []byte(payload))
	}

	// DELETE.
	pd, err := pc.PresignDeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("presign"), Key: aws.String("up/loaded key")})
	if err != nil {
		t.Fatal(err)
	}
	resp, body = awsPresignedDo(t, pd.Method, pd.URL, pd.SignedHeader, nil)
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("presigned DELETE: %d %s", resp.StatusCode, body)
	}
	itest.WantNoObject(t, c, "presign", "up/loaded key")

	// Presigned URLs for a missing key fail like signed requests do.
	pm, err := pc.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("presign"), Key: aws.String("missing")})
	if err != nil {
		t.Fatal(err)
	}
	resp, body = awsPresignedDo(t, pm.Method, pm.URL, pm.SignedHeader, nil)
	itest.WantRawErr(t, resp, body, http.StatusNotFound, "NoSuchKey")

	// A presigned URL signed with an unknown key or the wrong secret.
	for _, tc := range []struct {
		ak, sk, code string
	}{
		{"UNKNOWNACCESSKEY0000", testutil.SecretKey, "InvalidAccessKeyId"},
		{testutil.AccessKey, "wrong-secret", "SignatureDoesNotMatch"},
	} {
		bad := s3.NewPresignClient(itest.AWSClient(t, srv, func(o *s3.Options) {
			o.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: tc.ak, SecretAccessKey: tc.sk}, nil
			})
		}))
		pp, err := bad.PresignPutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("presign"), Key: aws.String("dir/file name+ü.txt")})
		if err != nil {
			t.Fatal(err)
		}
		resp, body = awsPresignedDo(t, pp.Method, pp.URL, pp.SignedHeader, []byte("forged"))
		itest.WantRawErr(t, resp, body, http.StatusForbidden, tc.code)
		itest.WantObject(t, c, "presign", "dir/file name+ü.txt", []byte("presigned content"))
	}
}

func TestAWSPresignedTampered(t *testing.T) {
	srv, c := itest.StartBucket(t, "tamper")
	ctx := context.Background()
	pc := s3.NewPresignClient(c)
	itest.Put(t, c, "tamper", "secret", []byte("secret content"))
	itest.Put(t, c, "tamper", "other", []byte("other content"))

	pg, err := pc.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("tamper"), Key: aws.String("secret")}, s3.WithPresignExpires(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	mutate := func(fn func(u *url.URL, q url.Values)) string {
		v := *u
		q := v.Query()
		fn(&v, q)
		v.RawQuery = q.Encode()
		return v.String()
	}
	// The untampered URL works (control).
	if resp, body := awsPresignedDo(t, http.MethodGet, pg.URL, pg.SignedHeader, nil); resp.StatusCode != http.StatusOK || string(body) != "secret content" {
		t.Fatalf("control: %d %q", resp.StatusCode, body)
	}
	for name, tampered := range map[string]string{
		"other key":       mutate(func(u *url.URL, q url.Values) { u.Path = "/tamper/other"; u.RawPath = "" }),
		"longer expiry":   mutate(func(u *url.URL, q url.Values) { q.Set("X-Amz-Expires", "7200") }),
		"added parameter": mutate(func(u *url.URL, q url.Values) { q.Set("response-content-type", "text/html") }),
		"changed date": mutate(func(u *url.URL, q url.Values) {
			q.Set("X-Amz-Date", time.Now().UTC().Add(time.Minute).Format("20060102T150405Z"))
		}),
		"other signature":  mutate(func(u *url.URL, q url.Values) { q.Set("X-Amz-Signature", strings.Repeat("0", 64)) }),
		"flipped sig char": mutate(func(u *url.URL, q url.Values) { s := q.Get("X-Amz-Signature"); q.Set("X-Amz-Signature", flipHex(s)) }),
	} {
		resp, body := awsPresignedDo(t, http.MethodGet, tampered, pg.SignedHeader, nil)
		if resp.StatusCode != http.StatusForbidden || bytes.Contains(body, []byte("content")) {
			t.Errorf("%s: %d %q", name, resp.StatusCode, body)
			continue
		}
		itest.WantRawErr(t, resp, body, http.StatusForbidden, "SignatureDoesNotMatch")
	}

	// A presigned PUT redirected to another key, or used with another
	// method, writes nothing.
	pp, err := pc.PresignPutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("tamper"), Key: aws.String("secret")})
	if err != nil {
		t.Fatal(err)
	}
	pu, _ := url.Parse(pp.URL)
	pu.Path, pu.RawPath = "/tamper/other", ""
	resp, body := awsPresignedDo(t, http.MethodPut, pu.String(), pp.SignedHeader, []byte("overwritten"))
	itest.WantRawErr(t, resp, body, http.StatusForbidden, "SignatureDoesNotMatch")
	itest.WantObject(t, c, "tamper", "other", []byte("other content"))
	resp, body = awsPresignedDo(t, http.MethodDelete, pp.URL, pp.SignedHeader, nil)
	itest.WantRawErr(t, resp, body, http.StatusForbidden, "SignatureDoesNotMatch")
	itest.WantObject(t, c, "tamper", "secret", []byte("secret content"))
	// x-amz-* headers the URL did not sign are refused: the holder of a
	// presigned PUT cannot make the object public, nor turn the PUT into a
	// copy of another object the signer can read.
	for name, value := range map[string]string{"X-Amz-Acl": "public-read", "X-Amz-Copy-Source": "/tamper/other", "X-Amz-Meta-Evil": "1"} {
		hdr := pp.SignedHeader.Clone()
		hdr.Set(name, value)
		resp, body = awsPresignedDo(t, http.MethodPut, pp.URL, hdr, []byte("overwritten"))
		itest.WantRawErr(t, resp, body, http.StatusForbidden, "AccessDenied")
		itest.WantObject(t, c, "tamper", "secret", []byte("secret content"))
	}
	// A presigned GET used to PUT.
	resp, body = awsPresignedDo(t, http.MethodPut, pg.URL, pg.SignedHeader, []byte("overwritten"))
	itest.WantRawErr(t, resp, body, http.StatusForbidden, "SignatureDoesNotMatch")
	itest.WantObject(t, c, "tamper", "secret", []byte("secret content"))

	// A presigned PUT that signed its Content-Type must be sent with it.
	pct, err := pc.PresignPutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("tamper"), Key: aws.String("typed"), ContentType: aws.String("image/png")})
	if err != nil {
		t.Fatal(err)
	}
	hdr := pct.SignedHeader.Clone()
	hdr.Set("Content-Type", "text/html")
	resp, body = awsPresignedDo(t, pct.Method, pct.URL, hdr, []byte("<script>"))
	itest.WantRawErr(t, resp, body, http.StatusForbidden, "SignatureDoesNotMatch")
	itest.WantNoObject(t, c, "tamper", "typed")
	resp, body = awsPresignedDo(t, pct.Method, pct.URL, pct.SignedHeader, []byte("png bytes"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("presigned PUT with its signed Content-Type: %d %s", resp.StatusCode, body)
	}
	if _, g := itest.Get(t, c, "tamper", "typed"); aws.ToString(g.ContentType) != "image/png" {
		t.Errorf("Content-Type %q", aws.ToString(g.ContentType))
	}

	// Presigned query parameters together with an Authorization header.
	req := itest.RawRequest(t, srv, http.MethodGet, strings.TrimPrefix(pg.URL, srv.URL), nil)
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=x/20250101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00")
	resp, body = itest.Do(t, req)
	itest.WantRawErr(t, resp, body, http.StatusBadRequest, "InvalidArgument")
}

// flipHex changes the first hex digit of s.
func flipHex(s string) string {
	if s == "" {
		return "0"
	}
	b := []byte(s)
	if b[0] == '0' {
		b[0] = '1'
	} else {
		b[0] = '0'
	}
	return string(b)
}

// awsPresignRaw presigns a request with the v4 signer directly, with any
// X-Amz-Expires (the SDK's presign client may refuse some).
func awsPresignRaw(t *testing.T, srv *testutil.Server, method, path string, expires string, at time.Time) string {
	t.Helper()
	req := itest.RawRequest(t, srv, method, path, nil)
	q := req.URL.Query()
	q.Set("X-Amz-Expires", expires)
	req.URL.RawQuery = q.Encode()
	creds := aws.Credentials{AccessKeyID: testutil.AccessKey, SecretAccessKey: testutil.SecretKey}
	u, _, err := v4.NewSigner().PresignHTTP(context.Background(), creds, req, "UNSIGNED-PAYLOAD", "s3", testutil.Region, at)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestAWSPresignedExpiry(t *testing.T) {
	srv, c := itest.StartBucket(t, "expiry")
	ctx := context.Background()
	pc := s3.NewPresignClient(c)
	itest.Put(t, c, "expiry", "k", []byte("still here"))

	// Exactly seven days is the longest accepted expiry ...
	u := awsPresignRaw(t, srv, http.MethodGet, "/expiry/k", "604800", time.Now())
	if resp, body := awsPresignedDo(t, http.MethodGet, u, nil, nil); resp.StatusCode != http.StatusOK || string(body) != "still here" {
		t.Fatalf("7-day presigned GET: %d %q", resp.StatusCode, body)
	}
	// ... one second more is malformed.
	for _, exp := range []string{"604801", strconv.Itoa(8 * 24 * 3600)} {
		u = awsPresignRaw(t, srv, http.MethodGet, "/expiry/k", exp, time.Now())
		resp, body := awsPresignedDo(t, http.MethodGet, u, nil, nil)
		itest.WantRawErr(t, resp, body, http.StatusBadRequest, "AuthorizationQueryParametersError")
	}
	// The SDK's presigner with an 8-day expiry: refused either by the SDK
	// or by the server.
	if p8, err := pc.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("expiry"), Key: aws.String("k")}, s3.WithPresignExpires(8*24*time.Hour)); err == nil {
		resp, body := awsPresignedDo(t, p8.Method, p8.URL, p8.SignedHeader, nil)
		itest.WantRawErr(t, resp, body, http.StatusBadRequest, "AuthorizationQueryParametersError")
	}
	// Signed long ago: expired even though the expiry itself is valid.
	u = awsPresignRaw(t, srv, http.MethodGet, "/expiry/k", "3600", time.Now().Add(-2*time.Hour))
	resp, body := awsPresignedDo(t, http.MethodGet, u, nil, nil)
	itest.WantRawErr(t, resp, body, http.StatusForbidden, "AccessDenied")

	// Short expiry: valid now, expired two seconds later.
	pg, err := pc.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("expiry"), Key: aws.String("k")}, s3.WithPresignExpires(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	pp, err := pc.PresignPutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("expiry"), Key: aws.String("k")}, s3.WithPresignExpires(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pg.URL, "X-Amz-Expires=1&") && !strings.HasSuffix(pg.URL, "X-Amz-Expires=1") {
		t.Fatalf("presigned URL without X-Amz-Expires=1: %s", pg.URL)
	}
	time.Sleep(2 * time.Second) // the one sleep: let the 1-second URLs expire
	resp, body = awsPresignedDo(t, pg.Method, pg.URL, pg.SignedHeader, nil)
	itest.WantRawErr(t, resp, body, http.StatusForbidden, "AccessDenied")
	if bytes.Contains(body, []byte("still here")) {
		t.Fatal("expired URL served the object")
	}
	resp, body = awsPresignedDo(t, pp.Method, pp.URL, pp.SignedHeader, []byte("too late"))
	itest.WantRawErr(t, resp, body, http.StatusForbidden, "AccessDenied")
	itest.WantObject(t, c, "expiry", "k", []byte("still here"))
}

func TestMinioPresigned(t *testing.T) {
	_, c, bucket := itest.StartMinio(t)
	ctx := context.Background()
	data := itest.RandBytes(5, 70_000)
	const key = "pre/signed key ü+&.bin"

	// Presigned PUT with plain net/http.
	pu, err := c.PresignedPutObject(ctx, bucket, key, 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPut, pu.String(), bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-presigned")
	resp, body := itest.Do(t, req)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != `"`+itest.MD5Hex(data)+`"` {
		t.Fatalf("presigned PUT: %s ETag %s: %s", resp.Status, resp.Header.Get("ETag"), body)
	}
	st, err := c.StatObject(ctx, bucket, key, minio.StatObjectOptions{})
	if err != nil || st.Size != int64(len(data)) || st.ContentType != "application/x-presigned" {
		t.Fatalf("after presigned PUT: size %d type %q, %v", st.Size, st.ContentType, err)
	}

	// Presigned GET, with a response-* override and a Range header.
	params := url.Values{"response-content-disposition": {`attachment; filename="x.bin"`}}
	gu, err := c.PresignedGetObject(ctx, bucket, key, 5*time.Minute, params)
	if err != nil {
		t.Fatal(err)
	}
	resp, body = itest.Do(t, itest.URLRequest(t, http.MethodGet, gu.String(), nil))
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, data) {
		t.Fatalf("presigned GET: %s, %d bytes (equal %v)", resp.Status, len(body), bytes.Equal(body, data))
	}
	if cd := resp.Header.Get("Content-Disposition"); cd != `attachment; filename="x.bin"` {
		t.Errorf("response-content-disposition override: got %q", cd)
	}
	req = itest.URLRequest(t, http.MethodGet, gu.String(), nil)
	req.Header.Set("Range", "bytes=100-199")
	resp, body = itest.Do(t, req)
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, data[100:200]) {
		t.Fatalf("presigned ranged GET: %s, %d bytes", resp.Status, len(body))
	}

	// Presigned HEAD.
	hu, err := c.PresignedHeadObject(ctx, bucket, key, time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, _ = itest.Do(t, itest.URLRequest(t, http.MethodHead, hu.String(), nil))
	if resp.StatusCode != http.StatusOK || resp.ContentLength != int64(len(data)) {
		t.Fatalf("presigned HEAD: %s length %d", resp.Status, resp.ContentLength)
	}

	// A URL signed for GET does not authorize a PUT, nor does a tampered
	// one anything.
	req, _ = http.NewRequest(http.MethodPut, gu.String(), bytes.NewReader([]byte("evil")))
	if resp, body = itest.Do(t, req); resp.StatusCode != http.StatusForbidden || itest.BodyCode(body) != "SignatureDoesNotMatch" {
		t.Errorf("PUT with a GET URL: %s %s, want 403 SignatureDoesNotMatch", resp.Status, itest.BodyCode(body))
	}
	tampered := *gu
	q := tampered.Query()
	q.Set("response-content-type", "text/html")
	tampered.RawQuery = q.Encode()
	if resp, _ = itest.Do(t, itest.URLRequest(t, http.MethodGet, tampered.String(), nil)); resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET with an added query parameter: %s, want 403", resp.Status)
	}

	// Expired URL: one second of validity, then wait it out (expiry is the
	// behaviour under test, not readiness).
	eu, err := c.PresignedGetObject(ctx, bucket, key, time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2100 * time.Millisecond)
	if resp, body = itest.Do(t, itest.URLRequest(t, http.MethodGet, eu.String(), nil)); resp.StatusCode != http.StatusForbidden || itest.BodyCode(body) != "AccessDenied" {
		t.Errorf("expired presigned GET: %s %s, want 403 AccessDenied", resp.Status, itest.BodyCode(body))
	}

	// Presigned GET of a missing key.
	mu, err := c.PresignedGetObject(ctx, bucket, "missing", time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp, body = itest.Do(t, itest.URLRequest(t, http.MethodGet, mu.String(), nil)); resp.StatusCode != http.StatusNotFound || itest.BodyCode(body) != "NoSuchKey" {
		t.Errorf("presigned GET of a missing key: %s %s, want 404 NoSuchKey", resp.Status, itest.BodyCode(body))
	}
}
