package console_test

import (
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/console"
	"github.com/jogstore/jog/internal/testutil"
)

// IAM users of the tests (--iam-bootstrap): reader may read and list but
// not write, nor see metrics; local may read from 127.0.0.1 and write
// from 10/8 only; watcher may see metrics and list IAM users.
const (
	readerKey     = "AKIACONSOLEREADER001"
	readerSecret  = "reader-secret-0000000000000000000000000"
	localKey      = "AKIACONSOLELOCAL0001"
	localSecret   = "local-secret-00000000000000000000000000"
	watcherKey    = "AKIACONSOLEWATCHER01"
	watcherSecret = "watcher-secret-000000000000000000000000"
)

const bootstrap = `{"users": [
 {"name": "reader", "accessKeys": [{"accessKeyId": "` + readerKey + `", "secretAccessKey": "` + readerSecret + `"}],
  "policies": {"read": {"Version": "2012-10-17", "Statement": [
   {"Effect": "Allow", "Action": ["s3:GetObject", "s3:ListBucket", "s3:ListAllMyBuckets"], "Resource": "*"}]}}},
 {"name": "local", "accessKeys": [{"accessKeyId": "` + localKey + `", "secretAccessKey": "` + localSecret + `"}],
  "policies": {"here": {"Version": "2012-10-17", "Statement": [
   {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "Condition": {"IpAddress": {"aws:SourceIp": "127.0.0.1/32"}}},
   {"Effect": "Allow", "Action": "s3:PutObject", "Resource": "*", "Condition": {"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}}]}}},
 {"name": "watcher", "accessKeys": [{"accessKeyId": "` + watcherKey + `", "secretAccessKey": "` + watcherSecret + `"}],
  "policies": {"metrics": {"Version": "2012-10-17", "Statement": [
   {"Effect": "Allow", "Action": ["jog:GetMetrics", "iam:ListUsers"], "Resource": "*"}]}}}
]}`

// startServer starts a real server (SQLite, port 0) with the console and
// the test users.
func startServer(t *testing.T, opts ...testutil.Option) *testutil.Server {
	t.Helper()
	file := filepath.Join(t.TempDir(), "iam.json")
	if err := os.WriteFile(file, []byte(bootstrap), 0o600); err != nil {
		t.Fatal(err)
	}
	return testutil.StartServer(t, append([]testutil.Option{testutil.WithoutFsync(), testutil.WithIAMBootstrap(file),
		func(c *config.Config) { c.LifecycleInterval = 0 }}, opts...)...)
}

// session is a browser signed in to the console: its cookie and CSRF value.
type session struct {
	t      *testing.T
	base   string
	hc     *http.Client
	cookie *http.Cookie
	csrf   string
	info   map[string]string
}

// signIn signs in with key and secret and fails the test unless it works.
func signIn(t *testing.T, srv *testutil.Server, key, secret string) *session {
	t.Helper()
	resp, body := post(t, srv, key, secret)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("sign-in as %s: %s %s", key, resp.Status, body)
	}
	s := &session{t: t, base: srv.Console, hc: srv.HTTPClient(), info: map[string]string{}}
	if err := json.Unmarshal(body, &s.info); err != nil {
		t.Fatal(err)
	}
	s.csrf = s.info["csrf"]
	for _, c := range resp.Cookies() {
		if c.Name == console.CookieName {
			s.cookie = c
		}
	}
	if s.cookie == nil || s.csrf == "" {
		t.Fatalf("sign-in gave no cookie or csrf: %v %s", resp.Header, body)
	}
	return s
}

// post is POST /console/api/session.
func post(t *testing.T, srv *testutil.Server, key, secret string) (*http.Response, []byte) {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"accessKey": key, "secretKey": secret})
	resp, err := srv.HTTPClient().Post(srv.Console+"/console/api/session", "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

// request makes a console API request with the session's cookie and,
// when csrf, its CSRF header.
func (s *session) request(method, path string, body io.Reader, csrf bool) *http.Request {
	s.t.Helper()
	req, err := http.NewRequest(method, s.base+path, body)
	if err != nil {
		s.t.Fatal(err)
	}
	if s.cookie != nil {
		req.AddCookie(s.cookie)
	}
	if csrf {
		req.Header.Set(console.CSRFHeader, s.csrf)
	}
	return req
}

// do sends req and returns the response with its body read.
func (s *session) do(req *http.Request) (*http.Response, []byte) {
	s.t.Helper()
	resp, err := s.hc.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return resp, body
}

// call is do(request(…, csrf)).
func (s *session) call(method, path string, body io.Reader) (*http.Response, []byte) {
	s.t.Helper()
	return s.do(s.request(method, path, body, true))
}

// wantJSONError checks a console error answer.
func wantJSONError(t *testing.T, resp *http.Response, body []byte, status int, code string) {
	t.Helper()
	var e struct{ Code, Message string }
	if resp.StatusCode != status || json.Unmarshal(body, &e) != nil || e.Code != code {
		t.Fatalf("want %d %s, got %s %s", status, code, resp.Status, body)
	}
}

// wantS3Error checks an S3 XML error answer.
func wantS3Error(t *testing.T, resp *http.Response, body []byte, status int, code string) {
	t.Helper()
	var e struct{ Code, Message string }
	if resp.StatusCode != status || xml.Unmarshal(body, &e) != nil || e.Code != code {
		t.Fatalf("want %d %s, got %s %s", status, code, resp.Status, body)
	}
}

// fetch GETs url with a plain client (no cookie) and reads the answer.
func fetch(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}
