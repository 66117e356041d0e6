package console

import (
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestConsoleOwnAddress: by default the console is served on a listener
// of its own, which the banner names and which serves nothing else (a
// presigned URL there is no object), and the S3 port has none; signed in
// there, a share link and the download link name the S3 port and serve
// the object (the download as an attachment), and an image's preview,
// loaded from the S3 port, is drawn. With --console-addr=same the
// console is on the S3 port and its share links name it.
func TestConsoleOwnAddress(t *testing.T) {
	path := needChromium(t)
	t.Run("default", func(t *testing.T) {
		srv := startJog(t)
		if srv.Console == srv.URL || !strings.HasPrefix(srv.Console, "http://127.0.0.1:") {
			t.Fatalf("the banner puts the console at %q, the S3 port at %q: want a port of its own", srv.Console, srv.URL)
		}
		b := newBrowser(t, path, srv.Console)
		if code, body := httpGet(t, srv.URL+"/console/"); code == http.StatusOK || strings.Contains(body, "<html") {
			t.Errorf("the S3 port serves the console: %d %.200s", code, body)
		}
		c := srv.s3(t)
		itest.CreateBucket(t, c, "own")
		itest.Put(t, c, "own", "hello.txt", []byte(readme))
		itest.Put(t, c, "own", "dot.png", picture(16, 16), contentType("image/png"))
		p := b.on(t)
		p.signIn(testutil.AccessKey, testutil.SecretKey)
		p.visible(hook("whoami"))
		openObject(p, "own", "", "hello.txt")
		link := shareLink(p)
		u, err := url.Parse(link)
		if err != nil || "http://"+u.Host != srv.URL {
			t.Fatalf("share URL %q: want it on the S3 port, %s", link, srv.URL)
		}
		wantURL(t, "the share URL", link, []byte(readme))
		u.Host = strings.TrimPrefix(srv.Console, "http://")
		if code, body := httpGet(t, u.String()); code != http.StatusNotFound || strings.Contains(body, readme) {
			t.Errorf("the share URL on the console's port: %d %.200s; want 404, not the object", code, body)
		}
		href := p.until("the download link", wait, `(() => {
			const a = document.querySelector('[data-test="download"]');
			return a && a.href && !a.href.endsWith('#') ? a.href : '';
		})()`)
		resp, err := http.Get(href)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if d := resp.Header.Get("Content-Disposition"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(href, srv.URL+"/") ||
			d != "attachment; filename*=UTF-8''hello.txt" {
			t.Errorf("the download link %s: %s, Content-Disposition %q; want it on the S3 port, an attachment named hello.txt", href, resp.Status, d)
		}
		openObject(p, "own", "", "dot.png")
		p.until("the image preview decoded", wait, `(() => {
			const i = document.querySelector('[data-test="preview"] img');
			return i && i.complete && i.naturalWidth === 16 && i.src.startsWith(`+strconv.Quote(srv.URL+"/")+`) ? 'yes' : '';
		})()`)
		p.checkProblems()
	})
	t.Run("same", func(t *testing.T) {
		srv := startJog(t, "--console-addr", "same")
		if srv.Console != srv.URL {
			t.Fatalf("with --console-addr=same the banner puts the console at %q: want the S3 port, %s", srv.Console, srv.URL)
		}
		c := srv.s3(t)
		itest.CreateBucket(t, c, "one")
		itest.Put(t, c, "one", "hello.txt", []byte(readme))
		p := newBrowser(t, path, srv.Console).on(t)
		p.signIn(testutil.AccessKey, testutil.SecretKey)
		p.visible(hook("whoami"))
		openObject(p, "one", "", "hello.txt")
		link := shareLink(p)
		if u, err := url.Parse(link); err != nil || "http://"+u.Host != srv.URL {
			t.Errorf("share URL %q: want it on %s", link, srv.URL)
		}
		wantURL(t, "the share URL", link, []byte(readme))
		p.checkProblems()
	})
}

// shareLink creates a share link of the object whose details are open.
func shareLink(p *tab) string {
	p.t.Helper()
	p.click(hook("share-open"))
	p.click(hook("share-create"))
	return p.until("the share URL", wait, `(document.querySelector('[data-test="share-url"]') || {}).value || ''`)
}

// httpGet GETs u with a plain client: the status and the body.
func httpGet(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, string(body)
}
