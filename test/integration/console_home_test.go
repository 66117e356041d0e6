package integration

import (
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// Browsers' Accept on navigation (Chromium's, Firefox's) and curl's.
const (
	chromiumAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
	firefoxAccept  = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	curlAccept     = "*/*"
)

// noFollow is an HTTP client that shows redirects instead of following them.
var noFollow = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// getRoot sends GET url with Accept accept (none when ""), signed as the
// root when signed, and returns the answer, not following a redirect.
func getRoot(t *testing.T, url, accept string, signed bool) (*http.Response, []byte) {
	t.Helper()
	req := itest.URLRequest(t, http.MethodGet, url, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if signed {
		itest.Sign(t, req, nil, itest.SignOpts{})
	}
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// wantS3Answer checks that "/" answered as S3 does without a browser:
// ListBuckets' 403 AccessDenied document for an unsigned request, the
// bucket list for a signed one.
func wantS3Answer(t *testing.T, name string, resp *http.Response, body []byte, signed bool) {
	t.Helper()
	if signed {
		var out struct {
			XMLName xml.Name `xml:"ListAllMyBucketsResult"`
		}
		if resp.StatusCode != http.StatusOK || xml.Unmarshal(body, &out) != nil {
			t.Errorf("%s: %d %s, want 200 ListAllMyBucketsResult", name, resp.StatusCode, body)
		}
		return
	}
	var e itest.XMLError
	if resp.StatusCode != http.StatusForbidden || xml.Unmarshal(body, &e) != nil || e.Code != "AccessDenied" {
		t.Errorf("%s: %d %s, want 403 AccessDenied", name, resp.StatusCode, body)
	}
	if loc := resp.Header.Get("Location"); loc != "" {
		t.Errorf("%s: Location %q", name, loc)
	}
}

// TestBrowserHomeRedirect: a browser opening the S3 endpoint's root is
// sent to the console's own listener (302), where the page answers; S3
// clients at "/" (curl's Accept, no Accept, a signed request with a
// browser's Accept) and a browser anywhere else answer as before.
func TestBrowserHomeRedirect(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithoutFsync())
	if srv.Console == "" || srv.Console == srv.URL {
		t.Fatalf("console origin %q: want a listener of its own", srv.Console)
	}
	itest.CreateBucket(t, srv.AWSClient(t), "pics")
	for _, accept := range []string{chromiumAccept, firefoxAccept} {
		resp, _ := getRoot(t, srv.URL+"/", accept, false)
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != srv.Console+"/console/" {
			t.Fatalf("browser GET /: %d Location %q, want 302 to %s/console/", resp.StatusCode, resp.Header.Get("Location"), srv.Console)
		}
		if !strings.Contains(resp.Header.Get("Vary"), "Accept") {
			t.Errorf("redirect without Vary: Accept (%q)", resp.Header.Get("Vary"))
		}
		page, body := getRoot(t, resp.Header.Get("Location"), accept, false)
		if page.StatusCode != http.StatusOK || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(body), "<html") {
			t.Errorf("the redirect's target: %d %q", page.StatusCode, page.Header.Get("Content-Type"))
		}
	}
	for _, c := range []struct {
		name, path, accept string
		signed             bool
	}{
		{"curl", "/", curlAccept, false},
		{"no Accept", "/", "", false},
		{"XML", "/", "application/xml", false},
		{"HTML last", "/", "application/xml, text/html;q=0.5", false},
		{"signed ListBuckets, a browser's Accept", "/", chromiumAccept, true},
		{"signed ListBuckets, curl's Accept", "/", curlAccept, true},
	} {
		resp, body := getRoot(t, srv.URL+c.path, c.accept, c.signed)
		wantS3Answer(t, c.name, resp, body, c.signed)
	}
	// A browser at a bucket, or at "/" with a query, is S3's.
	for _, path := range []string{"/pics", "/pics/", "/?x-id=ListBuckets"} {
		resp, body := getRoot(t, srv.URL+path, chromiumAccept, false)
		if resp.StatusCode == http.StatusFound || resp.Header.Get("Location") != "" {
			t.Errorf("browser GET %s redirected to %q", path, resp.Header.Get("Location"))
		}
		var e itest.XMLError
		if xml.Unmarshal(body, &e) != nil || e.Code == "" {
			t.Errorf("browser GET %s: %d %s, want an S3 error document", path, resp.StatusCode, body)
		}
	}
	// The SDK's ListBuckets is untouched.
	if _, err := srv.AWSClient(t).ListBuckets(context.Background(), &s3.ListBucketsInput{}); err != nil {
		t.Errorf("ListBuckets: %v", err)
	}
}

// TestBrowserHomeConsoleSame: with --console-addr=same the console is
// /console/ on the S3 port, and "/" sends a browser there.
func TestBrowserHomeConsoleSame(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithoutFsync(), func(c *config.Config) { c.ConsoleAddr = config.ConsoleSame })
	resp, _ := getRoot(t, srv.URL+"/", firefoxAccept, false)
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/console/" {
		t.Fatalf("browser GET /: %d Location %q, want 302 to /console/", resp.StatusCode, resp.Header.Get("Location"))
	}
	page, _ := getRoot(t, srv.URL+"/console/", firefoxAccept, false)
	if page.StatusCode != http.StatusOK || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") {
		t.Errorf("/console/: %d %q", page.StatusCode, page.Header.Get("Content-Type"))
	}
	resp, body := getRoot(t, srv.URL+"/", curlAccept, false)
	wantS3Answer(t, "curl", resp, body, false)
}

// TestBrowserHomeNoConsole: with --console=false a browser at "/" gets
// S3's AccessDenied, as any anonymous ListBuckets.
func TestBrowserHomeNoConsole(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithoutFsync(), func(c *config.Config) { c.Console = false })
	for _, accept := range []string{chromiumAccept, curlAccept} {
		resp, body := getRoot(t, srv.URL+"/", accept, false)
		wantS3Answer(t, accept, resp, body, false)
	}
}

// TestBrowserHomeVirtualHost: with --domain, "/" of <bucket>.<domain> is
// the bucket's listing, never the console.
func TestBrowserHomeVirtualHost(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithoutFsync(), testutil.WithDomain("s3.test"))
	itest.CreateBucket(t, srv.AWSClient(t), "pics")
	req := itest.URLRequest(t, http.MethodGet, srv.URL+"/", nil)
	req.Host = "pics.s3.test"
	req.Header.Set("Accept", chromiumAccept)
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var e itest.XMLError
	if resp.StatusCode != http.StatusForbidden || xml.Unmarshal(body, &e) != nil || e.Code != "AccessDenied" {
		t.Errorf("browser GET / of a virtual-hosted bucket: %d %s, want S3's 403 AccessDenied", resp.StatusCode, body)
	}
}
