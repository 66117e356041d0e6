package console

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/chromedp/chromedp"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

var update = flag.Bool("update", false, "TestScreenshots: rewrite docs/console/*.png")

// shotsDir is where -update writes the screenshots, from this package's
// directory.
const shotsDir = "../../docs/console"

// TestScreenshots takes a screenshot of each page of the console at
// 1280×800, and of the objects page at a phone's 375×800, over a server
// filled with a few buckets and objects. With -update the PNGs replace
// docs/console/*.png (scripts/console-screenshots.sh); without, they go to
// the test's artifact directory and are only checked to be PNGs of the
// size asked. A page whose hook the UI lacks is skipped, named.
func TestScreenshots(t *testing.T) {
	srv, b := startConsole(t)
	c := srv.s3(t)
	for _, name := range []string{"photos", "backups", "website"} {
		itest.CreateBucket(t, c, name)
	}
	asPNG, asText := contentType("image/png"), contentType("text/plain")
	itest.Put(t, c, "photos", "sunset.png", picture(640, 400), asPNG)
	itest.Put(t, c, "photos", "notes.txt", []byte(readme), asText)
	for i := 1; i <= 6; i++ {
		itest.Put(t, c, "photos", fmt.Sprintf("2026/summer/beach-%02d.png", i), picture(32+8*i, 24+6*i), asPNG)
		itest.Put(t, c, "photos", fmt.Sprintf("raw/IMG_%04d.dng", 4000+i), itest.RandBytes(uint64(i), 20000*i))
	}
	itest.Put(t, c, "backups", "db/2026-11-24.sql.gz", itest.RandBytes(7, 300000))
	itest.Put(t, c, "website", "index.html", []byte("<!doctype html><title>site</title>"), contentType("text/html"))
	viewerKey, viewerSecret := srv.newUser(t, "viewer", `{"Version":"2012-10-17","Statement":[
 {"Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::photos"},
 {"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::photos/*"}]}`)
	uploads := writeFiles(t, t.TempDir(), "up", map[string][]byte{
		"holiday-01.png": picture(320, 200), "holiday-02.png": picture(300, 220), "itinerary.txt": []byte(readme)})

	shoot := func(name string, w, h int64, prepare func(p *tab)) {
		t.Run(name, func(t *testing.T) {
			p := b.on(t)
			if w != 1280 {
				p.do("phone viewport", wait, chromedp.EmulateViewport(w, h, chromedp.EmulateMobile))
				defer p.do("desktop viewport", wait, chromedp.EmulateViewport(1280, 800))
			}
			prepare(p)
			p.settle()
			saveShot(p, name, w, h)
			p.checkProblems()
		})
	}

	shoot("signin", 1280, 800, func(p *tab) {
		p.open("/console/")
		p.visible(hook("signin-submit"))
	})
	shoot("buckets", 1280, 800, func(p *tab) {
		p.signIn(testutil.AccessKey, testutil.SecretKey)
		p.visible(hook("whoami"))
		p.open("/console/")
		p.visible(hook("bucket-row", "data-bucket", "website"))
	})
	shoot("bucket-create", 1280, 800, func(p *tab) {
		p.open("/console/")
		p.click(hook("bucket-create-open"))
		p.enter(hook("bucket-create-name"), "invoices")
	})
	shoot("objects", 1280, 800, func(p *tab) {
		p.open("/console/b/photos/")
		p.visible(hook("object-row", "data-key", "sunset.png"))
		p.visible(hook("prefix-row", "data-prefix", "raw/"))
	})
	shoot("settings", 1280, 800, func(p *tab) {
		p.open("/console/b/photos/")
		p.click(hook("bucket-settings"))
		p.visible(hook("policy-editor"))
	})
	shoot("policy-public", 1280, 800, func(p *tab) {
		p.open("/console/settings/website")
		p.enter(hook("policy-public-prefix"), "assets/")
		p.click(hook("policy-public-add"))
		p.visible(hook("confirm-shown"))
	})
	shoot("upload", 1280, 800, func(p *tab) {
		p.open("/console/b/photos/2026/summer/")
		p.visible(hook("object-row", "data-key", "2026/summer/beach-01.png"))
		files := []string{}
		for _, n := range []string{"holiday-01.png", "holiday-02.png", "itinerary.txt"} {
			files = append(files, filepath.Join(uploads, n))
		}
		p.upload(hook("upload-input"), files...)
		if state := waitUploads(p, "holiday-01.png", "holiday-02.png", "itinerary.txt"); state != "done" {
			p.t.Fatalf("uploads ended %s", state)
		}
	})
	shoot("details", 1280, 800, func(p *tab) {
		openObject(p, "photos", "", "sunset.png")
		p.need("preview")
		p.until("the preview's image to load", wait,
			`(() => { const i = document.querySelector('[data-test="preview"] img'); return i && i.complete && i.naturalWidth > 0 ? 'ok' : ''; })()`)
	})
	shoot("share", 1280, 800, func(p *tab) {
		openObject(p, "photos", "", "notes.txt")
		p.click(hook("share-open"))
		p.click(hook("share-create"))
		p.until("the share URL", wait, `(document.querySelector('[data-test="share-url"]') || {}).value || ''`)
	})
	// The users and dashboard pages, beyond the core the other tests
	// check: their hooks are console-ui's own (user-list, chart-requests),
	// and a page that shows an error instead is skipped, the error named.
	for _, nav := range []struct{ name, shows string }{{"users", "user-list"}, {"dashboard", "chart-requests"}} {
		shoot(nav.name, 1280, 800, func(p *tab) {
			if nav.name == "dashboard" {
				stop := traffic(t, c)
				defer stop()
			}
			p.open("/console/")
			p.click(hook("nav-" + nav.name))
			p.need(nav.shows)
			shown := p.until(nav.shows+" or an error", wait, fmt.Sprintf(`(() => {
				const e = document.querySelector('[data-test="error-banner"]');
				if (e && !e.hidden && e.innerText) return 'error: ' + e.innerText;
				return document.querySelector('[data-test=%q]') ? 'shown' : '';
			})()`, nav.shows))
			if shown != "shown" {
				p.t.Skipf("the %s page shows an error, not %s: %s", nav.name, nav.shows, shown)
			}
			p.visible(hook(nav.shows))
			if nav.name == "dashboard" {
				// A few polls of the metrics, for lines to show.
				p.until("the charts to draw", 2*time.Minute,
					`((document.querySelector('[data-test="chart-requests"] polyline') || {}).getAttribute?.('points') || '').split(' ').length >= 6 ? 'drawn' : ''`)
			}
		})
	}
	shoot("phone-objects", 375, 800, func(p *tab) {
		p.open("/console/b/photos/")
		p.visible(hook("object-row", "data-key", "sunset.png"))
	})
	shoot("denied", 1280, 800, func(p *tab) {
		p.signIn(viewerKey, viewerSecret)
		p.visible(hook("whoami"))
		p.open("/console/b/photos/")
		p.visible(hook("object-row", "data-key", "sunset.png"))
		p.upload(hook("upload-input"), filepath.Join(uploads, "itinerary.txt"))
		if state := waitUploads(p, "itinerary.txt"); !strings.HasPrefix(state, "failed") {
			p.t.Fatalf("the viewer's upload ended %s, want failed", state)
		}
	})
	// The viewer's settings and dashboard: what it may not do, and why.
	shoot("readonly-settings", 1280, 800, func(p *tab) {
		p.need("not-allowed")
		p.open("/console/settings/photos")
		p.visible(hook("settings-versioning").in(`[data-test="not-allowed"]`))
		p.visible(hook("settings-notify").in(`[data-test="not-allowed"]`))
	})
	shoot("readonly-dashboard", 1280, 800, func(p *tab) {
		p.need("dashboard-denied")
		p.open("/console/dashboard")
		p.visible(hook("dashboard-denied"))
	})
}

// traffic sends the server a few requests a second until stopped, for
// the dashboard's charts.
func traffic(t *testing.T, c *s3.Client) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ctx.Err() == nil; i++ {
			key := fmt.Sprintf("traffic/%d", i%20)
			_, _ = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("backups"), Key: aws.String(key), Body: bytes.NewReader(itest.RandBytes(uint64(i), 4096*(1+i%16)))})
			_, _ = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("backups"), Key: aws.String("missing")})
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() { cancel(); <-done }
}

func contentType(t string) func(*s3.PutObjectInput) {
	return func(in *s3.PutObjectInput) { in.ContentType = aws.String(t) }
}

// settle waits until the page has nothing loading (no aria-busy element,
// no "Loading…") and has painted twice since.
func (p *tab) settle() {
	p.t.Helper()
	p.until("the page to settle", wait,
		`document.querySelector('[aria-busy="true"]') || document.body.innerText.includes('Loading…') ? '' : 'idle'`)
	get(p, "wait for two frames", chromedp.Evaluate[bool](
		`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, chromedp.EvalAwaitPromise))
}

// saveShot captures the viewport, checks its size, makes it small, and
// writes it to docs/console (with -update) or the artifact directory.
func saveShot(p *tab, name string, w, h int64) {
	p.t.Helper()
	shot := get(p, "screenshot", chromedp.CaptureScreenshot())
	cfg, err := png.DecodeConfig(bytes.NewReader(shot))
	if err != nil || int64(cfg.Width) != w || int64(cfg.Height) != h {
		p.t.Fatalf("screenshot of %s: %dx%d (%v), want %dx%d", name, cfg.Width, cfg.Height, err, w, h)
	}
	small, err := smallPNG(shot)
	if err != nil {
		p.t.Fatal(err)
	}
	dir := p.t.ArtifactDir()
	if *update {
		dir = shotsDir
		if err := os.MkdirAll(dir, 0o755); err != nil {
			p.t.Fatal(err)
		}
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, small, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.t.Logf("%s: %d KiB (%d KiB as captured)", path, len(small)>>10, len(shot)>>10)
}
