package console

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestConsoleOwnAddress: with --console-addr the console is served on a
// listener of its own and not on the S3 port; signed in there, a share
// link names that listener's address and serves the object.
func TestConsoleOwnAddress(t *testing.T) {
	path := needChromium(t)
	srv := startJog(t, "--console-addr", "127.0.0.1:0", "--log-level", "info")
	addr := srv.logged(t, `msg="serving the console" addr=`)
	b := newBrowser(t, path, "http://"+addr)

	resp, err := http.Get(srv.URL + "/console/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK || strings.Contains(string(body), "<html") {
		t.Errorf("with --console-addr, the S3 port still serves the console: %d %.200s", resp.StatusCode, body)
	}

	c := srv.s3(t)
	itest.CreateBucket(t, c, "own")
	itest.Put(t, c, "own", "hello.txt", []byte(readme))
	p := b.on(t)
	p.signIn(testutil.AccessKey, testutil.SecretKey)
	p.visible(hook("whoami"))
	openObject(p, "own", "", "hello.txt")
	p.click(hook("share-open"))
	p.click(hook("share-create"))
	link := p.until("the share URL", wait, `(document.querySelector('[data-test="share-url"]') || {}).value || ''`)
	if u, err := url.Parse(link); err != nil || u.Host != addr {
		t.Errorf("share URL %q: want it on the console's address %s", link, addr)
	}
	wantURL(t, "the share URL", link, []byte(readme))
	p.checkProblems()
}
