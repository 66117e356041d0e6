package console_test

import (
	"crypto/rand"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"github.com/jogstore/jog/internal/console"
	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/testutil"
)

// TestSignIn: the root's and an IAM user's keys sign in; a wrong secret
// or an unknown key is refused with S3's codes; the cookie is HttpOnly,
// SameSite=Strict, on /console, and lasts the session.
func TestSignIn(t *testing.T) {
	srv := startServer(t)
	root := signIn(t, srv, testutil.AccessKey, testutil.SecretKey)
	if root.info["principal"] != "root" || !strings.HasSuffix(root.info["arn"], ":root") || !strings.HasPrefix(root.info["accessKey"], "ASIA") {
		t.Errorf("root's session: %v", root.info)
	}
	c := root.cookie
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/console" || c.Secure {
		t.Errorf("cookie attributes: %+v", c)
	}
	if d := time.Duration(c.MaxAge) * time.Second; d < 11*time.Hour || d > 12*time.Hour {
		t.Errorf("cookie lasts %v, want the 12h session", d)
	}
	if strings.Contains(c.Value, testutil.SecretKey) || strings.Contains(c.Value, testutil.AccessKey) {
		t.Errorf("the cookie shows the keys: %s", c.Value)
	}

	reader := signIn(t, srv, readerKey, readerSecret)
	if reader.info["principal"] != "reader" || !strings.HasSuffix(reader.info["arn"], ":user/reader") {
		t.Errorf("reader's session: %v", reader.info)
	}
	// GET session answers the same, without a new cookie.
	resp, body := reader.do(reader.request(http.MethodGet, "/console/api/session", nil, false))
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"csrf":"`+reader.csrf+`"`) || len(resp.Cookies()) != 0 {
		t.Errorf("GET session: %s %s %v", resp.Status, body, resp.Cookies())
	}

	// A form (text/plain, as another site's page could send) is refused.
	form, err := srv.HTTPClient().Post(srv.Console+"/console/api/session", "text/plain",
		strings.NewReader(`{"accessKey":"`+testutil.AccessKey+`","secretKey":"`+testutil.SecretKey+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	form.Body.Close()
	if form.StatusCode != http.StatusUnsupportedMediaType || len(form.Cookies()) != 0 {
		t.Errorf("sign-in by a text/plain form: %s %v", form.Status, form.Cookies())
	}

	for _, tc := range []struct{ key, secret, code string }{
		{testutil.AccessKey, testutil.SecretKey + "x", "SignatureDoesNotMatch"},
		{readerKey, watcherSecret, "SignatureDoesNotMatch"},
		{"AKIANOSUCHKEY0000000", readerSecret, "InvalidAccessKeyId"},
		{"", "", "InvalidAccessKeyId"},
	} {
		resp, body := post(t, srv, tc.key, tc.secret)
		wantJSONError(t, resp, body, http.StatusUnauthorized, tc.code)
		if len(resp.Cookies()) != 0 {
			t.Errorf("a refused sign-in set a cookie: %v", resp.Cookies())
		}
	}
}

// TestSignInTLS: over TLS the cookie is Secure.
func TestSignInTLS(t *testing.T) {
	srv := startServer(t, testutil.WithTLS(t))
	if s := signIn(t, srv, testutil.AccessKey, testutil.SecretKey); !s.cookie.Secure {
		t.Errorf("cookie over TLS not Secure: %+v", s.cookie)
	}
}

// TestSignInThrottled: after the burst of failed sign-ins an address is
// refused, even with the right secret.
func TestSignInThrottled(t *testing.T) {
	srv := startServer(t)
	for i := range 10 {
		resp, body := post(t, srv, readerKey, "wrong")
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %s %s", i, resp.Status, body)
		}
	}
	resp, body := post(t, srv, readerKey, readerSecret)
	wantJSONError(t, resp, body, http.StatusTooManyRequests, "Throttling")
	if resp.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
}

// TestCSRF: every API request but the session's needs the CSRF header,
// and the cookie.
func TestCSRF(t *testing.T) {
	srv := startServer(t)
	s := signIn(t, srv, testutil.AccessKey, testutil.SecretKey)
	resp, body := s.do(s.request(http.MethodGet, "/console/api/s3/", nil, false))
	wantJSONError(t, resp, body, http.StatusForbidden, "InvalidCsrfToken")
	req := s.request(http.MethodGet, "/console/api/s3/", nil, false)
	wrong := "A"
	if strings.HasSuffix(s.csrf, wrong) {
		wrong = "B"
	}
	req.Header.Set(console.CSRFHeader, s.csrf[:len(s.csrf)-1]+wrong)
	resp, body = s.do(req)
	wantJSONError(t, resp, body, http.StatusForbidden, "InvalidCsrfToken")
	// Another session's value is no good either.
	other := signIn(t, srv, testutil.AccessKey, testutil.SecretKey)
	req = s.request(http.MethodGet, "/console/api/s3/", nil, false)
	req.Header.Set(console.CSRFHeader, other.csrf)
	resp, body = s.do(req)
	wantJSONError(t, resp, body, http.StatusForbidden, "InvalidCsrfToken")
	// A browser saying the request comes from another site.
	req = s.request(http.MethodGet, "/console/api/s3/", nil, true)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, body = s.do(req)
	wantJSONError(t, resp, body, http.StatusForbidden, "InvalidCsrfToken")
	// No cookie.
	anon := &session{t: t, base: srv.Console, hc: srv.HTTPClient(), csrf: s.csrf}
	resp, body = anon.call(http.MethodGet, "/console/api/s3/", nil)
	wantJSONError(t, resp, body, http.StatusUnauthorized, "NotSignedIn")
	// With both: ListBuckets.
	resp, body = s.call(http.MethodGet, "/console/api/s3/", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "<ListAllMyBucketsResult") {
		t.Fatalf("ListBuckets: %s %s", resp.Status, body)
	}
}

// TestExpiredSession: a cookie past its session's end is refused with
// ExpiredToken, and one sealed under another key opens nothing.
func TestExpiredSession(t *testing.T) {
	srv := startServer(t)
	s := signIn(t, srv, testutil.AccessKey, testutil.SecretKey)
	keys, err := keyring.Load(srv.DataDir, "")
	if err != nil {
		t.Fatal(err)
	}
	sess, err := console.Open(keys, s.cookie.Value)
	if err != nil {
		t.Fatal(err)
	}
	sess.Expires = time.Now().Add(-time.Minute)
	s.cookie.Value = console.Seal(keys, sess)
	resp, body := s.call(http.MethodGet, "/console/api/s3/", nil)
	wantJSONError(t, resp, body, http.StatusUnauthorized, "ExpiredToken")
	resp, body = s.do(s.request(http.MethodGet, "/console/api/session", nil, false))
	wantJSONError(t, resp, body, http.StatusUnauthorized, "ExpiredToken")

	other := make([]byte, keyring.KeySize)
	rand.Read(other)
	forger, _ := keyring.New(other)
	sess.Expires = time.Now().Add(time.Hour)
	s.cookie.Value = console.Seal(forger, sess)
	resp, body = s.call(http.MethodGet, "/console/api/s3/", nil)
	wantJSONError(t, resp, body, http.StatusUnauthorized, "NotSignedIn")
}

// TestSignOut: signing out clears the cookie, and the old cookie is
// refused after.
func TestSignOut(t *testing.T) {
	srv := startServer(t)
	s := signIn(t, srv, readerKey, readerSecret)
	// Signing out needs the CSRF value.
	resp, body := s.do(s.request(http.MethodDelete, "/console/api/session", nil, false))
	wantJSONError(t, resp, body, http.StatusForbidden, "InvalidCsrfToken")
	resp, _ = s.call(http.MethodDelete, "/console/api/session", nil)
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("sign-out: %s", resp.Status)
	}
	cleared := false
	for _, c := range resp.Cookies() {
		cleared = cleared || c.Name == console.CookieName && c.MaxAge < 0 && c.Value == ""
	}
	if !cleared {
		t.Errorf("sign-out did not clear the cookie: %v", resp.Header["Set-Cookie"])
	}
	resp, body = s.call(http.MethodGet, "/console/api/s3/", nil)
	wantJSONError(t, resp, body, http.StatusUnauthorized, "NotSignedIn")
	resp, body = s.do(s.request(http.MethodGet, "/console/api/session", nil, false))
	wantJSONError(t, resp, body, http.StatusUnauthorized, "NotSignedIn")
}

// TestUserDeleted: deleting the user ends its console sessions: the
// session's GET answers NotSignedIn and S3 refuses the proxied requests.
func TestUserDeleted(t *testing.T) {
	srv := startServer(t)
	s := signIn(t, srv, readerKey, readerSecret)
	ctx := t.Context()
	cfg, err := awsconfig.LoadDefaultConfig(ctx, awsconfig.WithRegion(srv.Config.Region),
		awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(testutil.AccessKey, testutil.SecretKey, "")))
	if err != nil {
		t.Fatal(err)
	}
	c := iam.NewFromConfig(cfg, func(o *iam.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	if _, err := c.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{UserName: aws.String("reader"), AccessKeyId: aws.String(readerKey)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteUserPolicy(ctx, &iam.DeleteUserPolicyInput{UserName: aws.String("reader"), PolicyName: aws.String("read")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteUser(ctx, &iam.DeleteUserInput{UserName: aws.String("reader")}); err != nil {
		t.Fatal(err)
	}
	resp, body := s.do(s.request(http.MethodGet, "/console/api/session", nil, false))
	wantJSONError(t, resp, body, http.StatusUnauthorized, "NotSignedIn")
	if resp, body := s.call(http.MethodGet, "/console/api/s3/", nil); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("S3 as a deleted user's session: %s %s", resp.Status, body)
	}
}
