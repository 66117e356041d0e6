package console

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserOpensS3Root: Chromium opening the S3 port's root, as a
// person typing http://host:9000/ does, lands on the console's sign-in
// page on its own listener — with --console-addr=same at /console/ on the
// S3 port — instead of S3's XML AccessDenied.
func TestBrowserOpensS3Root(t *testing.T) {
	path := needChromium(t)
	for _, c := range []struct {
		name string
		args []string
	}{{"own listener", nil}, {"same", []string{"--console-addr", "same"}}} {
		t.Run(c.name, func(t *testing.T) {
			srv := startJog(t, c.args...)
			p := newBrowser(t, path, srv.Console).on(t)
			p.do("open the S3 port's root", wait, chromedp.Navigate(srv.URL+"/"))
			p.visible(hook("signin-access-key"))
			if loc := get(p, "read the location", chromedp.Location()); !strings.HasPrefix(loc, srv.Console+"/console/") {
				t.Errorf("the browser is at %s, want the console, %s/console/", loc, srv.Console)
			}
			p.checkProblems()
		})
	}
}
