package itest

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/jogstore/jog/internal/testutil"
)

// RawRequest builds a raw request against srv. path must already be escaped
// as it should go on the wire.
func RawRequest(t testing.TB, srv *testutil.Server, method, path string, body []byte) *http.Request {
	t.Helper()
	return URLRequest(t, method, srv.URL+path, body)
}

// URLRequest builds a raw request for the absolute URL u (a presigned URL,
// say); a non-nil body sets Content-Length.
func URLRequest(t testing.TB, method, u string, body []byte) *http.Request {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.ContentLength = int64(len(body))
	}
	return req
}

// SignOpts tweak a raw SigV4 signature; the zero value signs for the test
// credentials and region, now, over the SHA-256 of the body.
type SignOpts struct {
	AccessKey, SecretKey, Region string
	SessionToken                 string // temporary credentials' token, sent as x-amz-security-token
	PayloadHash                  string // "" means the SHA-256 of body
	At                           time.Time
}

// Sign signs req with SigV4 in the Authorization header (aws-sdk-go-v2's
// signer), setting x-amz-content-sha256 first (S3 requires it and it is
// signed).
func Sign(t testing.TB, req *http.Request, body []byte, o SignOpts) {
	t.Helper()
	if o.AccessKey == "" {
		o.AccessKey = testutil.AccessKey
	}
	if o.SecretKey == "" {
		o.SecretKey = testutil.SecretKey
	}
	if o.Region == "" {
		o.Region = testutil.Region
	}
	if o.PayloadHash == "" {
		o.PayloadHash = SHA256Hex(body)
	}
	if o.At.IsZero() {
		o.At = time.Now()
	}
	req.Header.Set("X-Amz-Content-Sha256", o.PayloadHash)
	creds := aws.Credentials{AccessKeyID: o.AccessKey, SecretAccessKey: o.SecretKey, SessionToken: o.SessionToken}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, o.PayloadHash, "s3", o.Region, o.At); err != nil {
		t.Fatal(err)
	}
}

// Do sends req with a plain net/http client and returns the response with
// its body read.
func Do(t testing.TB, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", req.Method, req.URL, err)
	}
	return resp, b
}

// XMLError is an S3 error document.
type XMLError struct {
	XMLName   xml.Name `xml:"Error"`
	Code      string   `xml:"Code"`
	Message   string   `xml:"Message"`
	RequestID string   `xml:"RequestId"`
	HostID    string   `xml:"HostId"`
}

// BodyCode is the Code of an S3 error document ("" for any other body).
func BodyCode(body []byte) string {
	var e XMLError
	_ = xml.Unmarshal(body, &e)
	return e.Code
}

// WantRawErr asserts a raw response is an S3 error with status and code,
// carrying the request-ID headers.
func WantRawErr(t testing.TB, resp *http.Response, body []byte, status int, code string) {
	t.Helper()
	var e XMLError
	if err := xml.Unmarshal(body, &e); err != nil {
		t.Fatalf("status %d, body %q is not an S3 error document: %v", resp.StatusCode, body, err)
	}
	if resp.StatusCode != status || e.Code != code {
		t.Fatalf("got %d %s (%s), want %d %s", resp.StatusCode, e.Code, e.Message, status, code)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/xml" {
		t.Errorf("error Content-Type %q, want application/xml", ct)
	}
	WantRequestIDs(t, resp)
	if e.RequestID != resp.Header.Get("X-Amz-Request-Id") {
		t.Errorf("error RequestId %q != x-amz-request-id header %q", e.RequestID, resp.Header.Get("X-Amz-Request-Id"))
	}
}

// WantRequestIDs asserts that the response names its request.
func WantRequestIDs(t testing.TB, resp *http.Response) {
	t.Helper()
	if v := resp.Header.Get("X-Amz-Request-Id"); strings.TrimSpace(v) == "" {
		t.Errorf("%s %s: no x-amz-request-id header", resp.Request.Method, resp.Request.URL.Path)
	}
	if v := resp.Header.Get("X-Amz-Id-2"); strings.TrimSpace(v) == "" {
		t.Errorf("%s %s: no x-amz-id-2 header", resp.Request.Method, resp.Request.URL.Path)
	}
}
