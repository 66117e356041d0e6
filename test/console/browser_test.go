package console

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// wait bounds every wait for the page; a wait that runs out fails the test
// with a screenshot. It is a bound against a wedged page, not a timing the
// test asserts: the machine running the tests may be busy.
const wait = 45 * time.Second

// chromiumPath finds Debian's Chromium (or a Chrome); "" when none.
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser is one headless Chromium, one tab, against one server.
type browser struct {
	ctx  context.Context // the tab; actions derive bounded contexts from it
	base string          // the server's URL
	ui   string          // the console's HTML, scripts and styles, for hook checks
}

// startConsole starts `jog server` with args and a browser on its
// console (its own origin, or the S3 port's with --console-addr=same). Without Chromium the test skips (fails when CI is set), as it
// does under -short.
func startConsole(t *testing.T, args ...string) (*jogServer, *browser) {
	t.Helper()
	path := needChromium(t)
	srv := startJog(t, args...)
	return srv, newBrowser(t, path, srv.Console)
}

// needChromium returns Chromium's path, or skips the test: without
// Chromium (failing when CI is set) or under -short.
func needChromium(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: builds jog and drives a browser")
	}
	path := chromiumPath()
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI: no Chromium for the console's browser tests (apt-get install chromium)")
		}
		t.Skip("no Chromium: install it (Debian: apt-get install chromium) to run the console's browser tests")
	}
	return path
}

// newBrowser starts headless Chromium (path) with a 1280×800 window.
func newBrowser(t *testing.T, path, base string) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1280, 800))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	// The first action starts the browser: no timeout on it (a timeout
	// would end the browser with it).
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800), watchProblems); err != nil {
		t.Fatalf("start Chromium (%s): %v", path, err)
	}
	return &browser{ctx: ctx, base: base, ui: uiSource(t, base)}
}

// watchProblems has every page record, in window.__jogProblems, what
// should never happen: a Content-Security-Policy violation, an uncaught
// error, an unhandled promise rejection.
var watchProblems = chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
	_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `
		window.__jogProblems = [];
		document.addEventListener('securitypolicyviolation', e =>
			window.__jogProblems.push('CSP violation: ' + e.violatedDirective + ' ' + (e.blockedURI || '') + ' ' + (e.sourceFile || '') + ':' + e.lineNumber));
		window.addEventListener('error', e => window.__jogProblems.push('uncaught error: ' + e.message + ' ' + (e.filename || '') + ':' + e.lineno));
		window.addEventListener('unhandledrejection', e =>
			window.__jogProblems.push('unhandled rejection: ' + (e.reason && (e.reason.stack || e.reason.message) || e.reason)));`})
	return err
})

// checkProblems fails the test with what the page recorded (watchProblems)
// since it loaded or was last checked.
func (p *tab) checkProblems() {
	p.t.Helper()
	got := get(p, "read the page's problems", chromedp.Evaluate[[]string](
		`(() => { const p = window.__jogProblems || []; window.__jogProblems = []; return p; })()`))
	for _, m := range got {
		p.t.Errorf("the page recorded: %s", m)
	}
}

// assetRef finds the scripts, modules and styles a page or a script names.
var assetRef = regexp.MustCompile(`["'(]((?:/|\./|\.\./)?[\w@./-]+\.(?:m?js|css))["')]`)

// uiSource fetches the console's page and, transitively, the scripts and
// styles under /console/ that it names: the text the data-test hooks are
// looked up in, so that a hook the UI lacks skips its step.
func uiSource(t *testing.T, base string) string {
	t.Helper()
	var all strings.Builder
	seen := map[string]bool{}
	queue := []string{base + "/console/"}
	for len(queue) > 0 && len(seen) < 100 {
		u := queue[0]
		queue = queue[1:]
		if seen[u] {
			continue
		}
		seen[u] = true
		resp, err := http.Get(u)
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			if u == base+"/console/" {
				t.Fatalf("GET /console/: %d %s", resp.StatusCode, body)
			}
			continue
		}
		all.Write(body)
		all.WriteByte('\n')
		from, _ := url.Parse(u)
		for _, m := range assetRef.FindAllSubmatch(body, -1) {
			ref, err := from.Parse(string(m[1]))
			if err == nil && strings.HasPrefix(ref.Path, "/console/") && ref.Host == from.Host {
				ref.RawQuery, ref.Fragment = "", ""
				queue = append(queue, ref.String())
			}
		}
	}
	return all.String()
}

// sel is an element by its data-test hook (attribute values given), and
// optionally a descendant of it.
type sel struct {
	hook string
	css  string
}

// hook selects [data-test=name], with attributes name=value (pairs).
func hook(name string, attrs ...string) sel {
	css := `[data-test="` + name + `"]`
	for i := 0; i+1 < len(attrs); i += 2 {
		css += fmt.Sprintf(`[%s="%s"]`, attrs[i], cssEscape(attrs[i+1]))
	}
	return sel{hook: name, css: css}
}

// in selects the first descendant of s matching css.
func (s sel) in(css string) sel { return sel{hook: s.hook, css: s.css + " " + css} }

func (s sel) String() string { return s.css }

func cssEscape(v string) string { return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) }

// tab is the browser seen from one (sub)test: its failures and skips are
// that test's.
type tab struct {
	t *testing.T
	b *browser
}

func (b *browser) on(t *testing.T) *tab { return &tab{t: t, b: b} }

// need skips the test when the console's UI has none of the hooks.
func (p *tab) need(hooks ...string) {
	p.t.Helper()
	for _, h := range hooks {
		if !strings.Contains(p.b.ui, h) {
			p.t.Skipf("the console UI has no data-test hook %q (docs/CONSOLE.md): step skipped", h)
		}
	}
}

// do runs actions within d; when they fail or run out of time, the test
// fails with a screenshot.
func (p *tab) do(what string, d time.Duration, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.b.ctx, d)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.fail(what, err)
	}
}

// fail ends the test with what went wrong, the page's address and hooks,
// and a screenshot in the test's artifact directory (kept with
// `go test -artifacts`).
func (p *tab) fail(what string, err error) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.b.ctx, 15*time.Second)
	defer cancel()
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	hooks, _ := chromedp.Run(ctx, chromedp.Evaluate[string](
		`[...new Set([...document.querySelectorAll('[data-test]')].map(e => e.dataset.test))].join(' ')`))
	shot := "(none)"
	if png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err == nil {
		name := filepath.Join(p.t.ArtifactDir(), "failure.png")
		if os.WriteFile(name, png, 0o644) == nil {
			shot = name
		}
	}
	p.t.Fatalf("%s: %v\n  page: %s\n  hooks on the page: %s\n  screenshot: %s (kept with go test -artifacts)",
		what, err, loc, hooks, shot)
}

// open loads a console address (a path under the server), after checking
// the page it leaves recorded no problem.
func (p *tab) open(path string) {
	p.t.Helper()
	p.checkProblems()
	p.do("open "+path, wait, chromedp.Navigate(p.b.base+path))
}

// act runs a on the element s within wait; the test skips when the UI
// lacks s's hook.
func (p *tab) act(s sel, what string, a chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	p.need(s.hook)
	p.do(what+" "+s.css, wait, a)
}

func (p *tab) visible(s sel) {
	p.t.Helper()
	p.act(s, "wait to show:", chromedp.WaitVisible(chromedp.CSS(s.css)))
}

// present waits for s in the page, shown or not (a file input).
func (p *tab) present(s sel) {
	p.t.Helper()
	p.act(s, "wait for", chromedp.WaitReady(chromedp.CSS(s.css)))
}

func (p *tab) gone(s sel) {
	p.t.Helper()
	p.act(s, "wait to go:", chromedp.WaitNotPresent(chromedp.CSS(s.css)))
}

func (p *tab) click(s sel) {
	p.t.Helper()
	p.act(s, "click", chromedp.Click(chromedp.CSS(s.css)))
}

// enter types text into the input s (empty before: each form is opened
// afresh).
func (p *tab) enter(s sel, text string) {
	p.t.Helper()
	p.act(s, "type into", chromedp.SendKeys(chromedp.CSS(s.css), text))
}

// follow opens what row s leads to: it clicks the row's link or button
// (its name) when it has one, else the row.
func (p *tab) follow(s sel) {
	p.t.Helper()
	p.visible(s)
	if p.eval(fmt.Sprintf(`document.querySelector(%q).querySelector('a[href], button') ? 'link' : ''`, s.css)) == "link" {
		s = s.in(":is(a[href], button)")
	}
	p.click(s)
}

// upload sets the files (or, for a directory input, one directory) of the
// file input s.
func (p *tab) upload(s sel, files ...string) {
	p.t.Helper()
	p.present(s)
	p.act(s, "set the files of", chromedp.SetUploadFiles(chromedp.CSS(s.css), files))
}

func (p *tab) text(s sel) string {
	p.t.Helper()
	p.visible(s)
	return get(p, "read the text of "+s.css, chromedp.Text(chromedp.CSS(s.css)))
}

// eval evaluates a JavaScript expression giving a string (DevTools'
// evaluation, which the page's Content-Security-Policy does not restrict).
func (p *tab) eval(expr string) string {
	p.t.Helper()
	return get(p, "evaluate "+expr, chromedp.Evaluate[string](expr))
}

// get runs an action giving a value, within wait; on failure the test
// fails with a screenshot.
func get[T any](p *tab, what string, a chromedp.Action[T]) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.b.ctx, wait)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		p.fail(what, err)
	}
	return v
}

// until evaluates expr (a string expression) every 50 ms until it gives a
// non-empty string, returned; d bounds the wait.
func (p *tab) until(what string, d time.Duration, expr string) string {
	p.t.Helper()
	deadline := time.Now().Add(d)
	for {
		if v := get(p, what, chromedp.Evaluate[string](expr)); v != "" {
			return v
		}
		if time.Now().After(deadline) {
			p.fail(what, fmt.Errorf("not after %s", d))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// location is the page's path and query, unescaped.
func (p *tab) location() string {
	p.t.Helper()
	u, err := url.Parse(get(p, "read the location", chromedp.Location()))
	if err != nil {
		p.t.Fatal(err)
	}
	return u.Path + "?" + u.RawQuery
}

// cookie is the browser's cookie name for the server ("" when none).
func (p *tab) cookie(name string) string {
	p.t.Helper()
	var v string
	p.do("read the cookies", wait, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		res, err := cdp.Call(ctx, t, network.GetCookies, network.GetCookiesParams{URLs: []string{p.b.base + "/console/"}})
		for _, c := range res.Cookies {
			if c.Name == name {
				v = c.Value
			}
		}
		return err
	}))
	return v
}

// signIn signs in on the sign-in page with an access key and secret,
// signing out first when a session is open.
func (p *tab) signIn(access, secret string) {
	p.t.Helper()
	p.signInPage()
	p.enter(hook("signin-access-key"), access)
	p.enter(hook("signin-secret-key"), secret)
	p.click(hook("signin-submit"))
}

// signInPage opens the sign-in page, signing out first when a session is
// open.
func (p *tab) signInPage() {
	p.t.Helper()
	p.open("/console/")
	p.need("signin-access-key", "signout")
	shown := p.until("the sign-in page or a session", wait, `document.querySelector('[data-test="signin-access-key"]') ? 'signin' :
		document.querySelector('[data-test="signout"]') ? 'session' : ''`)
	if shown == "session" {
		p.click(hook("signout"))
		p.visible(hook("signin-access-key"))
	}
}
