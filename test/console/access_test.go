package console

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// viewerPolicy lets a user list bucket shared and read its objects, and
// nothing else.
const viewerPolicy = `{"Version":"2012-10-17","Statement":[
 {"Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::shared"},
 {"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/*"}]}`

// TestConsoleAccess: a wrong secret or an unknown key is refused on the
// sign-in page; an IAM user allowed only to list and read signs in, sees
// the bucket's objects, and is denied an upload, shown plainly as S3's
// AccessDenied — the console acting as the user, not with a privilege of
// its own (the server's access log shows the user's denied request).
func TestConsoleAccess(t *testing.T) {
	accessLog := filepath.Join(t.TempDir(), "access.log")
	srv, b := startConsole(t, "--access-log", accessLog, "--access-log-format", "json")
	c := srv.s3(t)
	itest.CreateBucket(t, c, "shared")
	itest.Put(t, c, "shared", "hello.txt", []byte("hello, viewer\n"))
	viewerKey, viewerSecret := srv.newUser(t, "viewer", viewerPolicy)
	f := &flow{t: t, b: b, passed: map[string]bool{}}

	for _, tc := range []struct{ name, access, secret string }{
		{"a wrong secret is refused", testutil.AccessKey, "not-the-secret-0000000000000000000000000"},
		{"an unknown access key is refused", "JOGNOSUCHKEY00000000", testutil.SecretKey},
	} {
		f.step(tc.name, nil, func(p *tab) {
			p.signIn(tc.access, tc.secret)
			if msg := p.text(hook("signin-error")); strings.TrimSpace(msg) == "" {
				p.t.Error("signin-error shows no message")
			}
			if p.eval(`document.querySelector('[data-test="whoami"]') ? 'in' : ''`) != "" {
				p.t.Error("refused, yet the page shows whoami")
			}
			if p.cookie("jog_console") != "" {
				p.t.Error("refused, yet the browser holds a jog_console cookie")
			}
		})
	}

	f.step("sign in with the keyboard alone", nil, func(p *tab) {
		p.signInPage()
		// The access key field has the focus; Tab goes to the secret, Enter
		// submits.
		p.do("type the keys", wait, chromedp.KeyEvent(viewerKey), chromedp.KeyEvent(kb.Tab),
			chromedp.KeyEvent(viewerSecret), chromedp.KeyEvent(kb.Enter))
		if who := p.text(hook("whoami")); !strings.Contains(who, "viewer") {
			p.t.Errorf("signed in with the keyboard, whoami shows %q, want viewer", who)
		}
	})

	f.step("a user not allowed to list buckets sees AccessDenied", nil, func(p *tab) {
		p.signIn(viewerKey, viewerSecret)
		p.visible(hook("whoami"))
		p.open("/console/")
		p.until("error-banner to show AccessDenied", wait,
			`(() => { const e = document.querySelector('[data-test="error-banner"]'); return e && e.innerText.includes('AccessDenied') ? 'shown' : ''; })()`)
		p.visible(hook("error-banner"))
	})

	f.step("a user without permission sees the denial", nil, func(p *tab) {
		p.signIn(viewerKey, viewerSecret)
		if who := p.text(hook("whoami")); !strings.Contains(who, "viewer") {
			p.t.Errorf("whoami shows %q, want the user viewer", who)
		}
		p.open("/console/b/shared/")
		p.visible(hook("object-row", "data-key", "hello.txt"))
		upload := writeFiles(t, t.TempDir(), "up", map[string][]byte{"denied.txt": []byte("the viewer may not write this")})
		p.upload(hook("upload-input"), filepath.Join(upload, "denied.txt"))
		if state := waitUploads(p, "denied.txt"); !strings.HasPrefix(state, "failed") {
			p.t.Errorf("the denied upload ended %s, want failed", state)
		}
		// The denial shows plainly: S3's code in the error banner, as any
		// refused action, and in the failed upload's row.
		p.until("AccessDenied in the error banner and the upload's row", wait, `(() => {
			const b = document.querySelector('[data-test="error-banner"]');
			const r = document.querySelector('[data-test="upload-row"][data-state="failed"]');
			return b && b.offsetParent !== null && b.innerText.includes('AccessDenied') &&
				r && r.innerText.includes('AccessDenied') ? 'both' : '';
		})()`)
		itest.WantNoObject(p.t, c, "shared", "denied.txt")
		wantLogged(p.t, accessLog, func(m map[string]any) bool {
			return m["key"] == "denied.txt" && m["code"] == "AccessDenied" && strings.Contains(anyString(m["principal"]), "viewer")
		}, "viewer's denied upload of denied.txt, as an S3 request by viewer")
	})
}

// wantLogged waits (10 s at most) for an access log line matching match.
func wantLogged(t *testing.T, path string, match func(map[string]any) bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		for _, line := range strings.Split(string(b), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil && match(m) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the access log has no line of %s:\n%s", what, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func anyString(v any) string {
	s, _ := v.(string)
	return s
}
