package console

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/jogstore/jog/test/integration/itest"
)

// cancelUpload starts uploading a 50 MiB file with the browser's uploads
// throttled (so that it is still going when cancelled, whatever the
// machine's speed), cancels it once it has made progress, and checks that
// nothing is left on the server: no object, no multipart upload (the
// console sent AbortMultipartUpload).
func cancelUpload(p *tab, c *s3.Client, bucket, dir string, body []byte) {
	p.t.Helper()
	p.need("upload-cancel")
	path := filepath.Join(dir, "cancel.bin")
	if err := os.WriteFile(path, body, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.open("/console/b/" + bucket + "/")
	p.present(hook("upload-input"))
	throttleUploads(p, 2<<20)
	defer throttleUploads(p, -1)
	p.upload(hook("upload-input"), path)
	p.until("cancel.bin's upload to make progress", uploadWait, `(() => {
		const r = document.querySelector('[data-test="upload-row"][data-name="cancel.bin"]');
		const e = r && r.querySelector('progress');
		return r && r.dataset.state === 'uploading' && e && e.value > 0 ? 'moving' : '';
	})()`)
	p.click(hook("upload-row", "data-name", "cancel.bin").in(`[data-test="upload-cancel"]`))
	if state := waitUploads(p, "cancel.bin"); !strings.HasPrefix(state, "cancelled") {
		p.t.Fatalf("the cancelled upload ended %s", state)
	}
	itest.WantNoObject(p.t, c, bucket, "cancel.bin")
	deadline := time.Now().Add(wait)
	for {
		l, err := c.ListMultipartUploads(context.Background(), &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket)})
		if err != nil {
			p.t.Fatal(err)
		}
		if len(l.Uploads) == 0 {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("after the cancel, %d multipart uploads are left (first: %s)", len(l.Uploads), aws.ToString(l.Uploads[0].Key))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// throttleUploads limits what the page sends to bytesPerSecond (-1: no
// limit), with DevTools' network emulation.
func throttleUploads(p *tab, bytesPerSecond float64) {
	p.t.Helper()
	p.do("throttle uploads", wait, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
			MatchedNetworkConditions: []*network.Conditions{{UploadThroughput: bytesPerSecond, DownloadThroughput: -1}}})
		return err
	}))
}

// createFolder creates folder name at the bucket's root with the page's
// form and checks the page lists it and S3 holds its "name/" key.
func createFolder(p *tab, c *s3.Client, bucket, name string) {
	p.t.Helper()
	p.open("/console/b/" + bucket + "/")
	p.click(hook("folder-create-open"))
	p.enter(hook("folder-create-name"), name)
	p.click(hook("folder-create-submit"))
	p.gone(hook("folder-create-name"))
	p.visible(hook("prefix-row", "data-prefix", name+"/"))
	if _, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(name + "/")}); err != nil {
		p.t.Errorf("the console shows folder %s/, S3 has no key %s/: %v", name, name, err)
	}
}

// pageAndFilter fills a bucket with 230 keys under a prefix, pages through
// them with next-page — every key once, in order, over more than one page
// — and filters them by a prefix.
func pageAndFilter(p *tab, c *s3.Client) {
	p.t.Helper()
	p.need("next-page", "filter-input")
	const bucket = "e2e-pages"
	itest.CreateBucket(p.t, c, bucket)
	keys := make([]string, 230)
	for i := range keys {
		keys[i] = fmt.Sprintf("page/key-%03d", i)
	}
	itest.PutMany(p.t, c, bucket, keys, 8, true)
	p.open("/console/b/" + bucket + "/page/")
	p.visible(hook("object-row", "data-key", keys[0]))
	const rows = `[...document.querySelectorAll('[data-test="object-row"]')].map(r => r.dataset.key).join('\n')`
	var seen []string
	pages := 1
	for ; ; pages++ {
		page := strings.Split(p.eval(rows), "\n")
		seen = append(seen, page...)
		if p.eval(`document.querySelector('[data-test="next-page"]').disabled ? 'last' : ''`) == "last" || pages > 10 {
			break
		}
		p.click(hook("next-page"))
		p.gone(hook("object-row", "data-key", page[len(page)-1]))
		p.visible(hook("object-row"))
	}
	if pages < 2 || !slices.Equal(seen, keys) {
		p.t.Errorf("paging through 230 keys: %d pages, %d keys seen (first %q, last %q), want every key once, in order, over pages",
			pages, len(seen), seen[0], seen[len(seen)-1])
	}
	p.enter(hook("filter-input"), "key-15")
	p.until("the filter to leave key-150 to key-159", wait, `(() => {
		const k = [...document.querySelectorAll('[data-test="object-row"]')].map(r => r.dataset.key);
		return k.length === 10 && k.every(x => x.startsWith('page/key-15')) ? 'filtered' : '';
	})()`)
}

// wantURL fetches u with net/http and wants the bytes want.
func wantURL(t *testing.T, what, u string, want []byte) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", what, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, want) {
		t.Fatalf("GET %s: %d, %d bytes (%s), want %d bytes", what, resp.StatusCode, len(body), itest.Short(body), len(want))
	}
}

// drop drags files (paths; a directory drops as a folder) from outside
// the page onto the middle of element s, as a user dropping them from a
// file manager, with DevTools' drag events.
func drop(p *tab, s sel, files ...string) {
	p.t.Helper()
	p.visible(s)
	var at struct{ X, Y float64 }
	if err := json.Unmarshal([]byte(p.eval(fmt.Sprintf(`(() => {
		const r = document.querySelector(%q).getBoundingClientRect();
		return JSON.stringify({X: r.left + r.width / 2, Y: r.top + r.height / 2});
	})()`, s.css))), &at); err != nil {
		p.t.Fatal(err)
	}
	data := &input.DragData{Items: []*input.DragDataItem{}, Files: files, DragOperationsMask: 1}
	p.act(s, "drop files on", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, typ := range []input.DispatchDragEventType{input.DispatchDragEventTypeDragEnter,
			input.DispatchDragEventTypeDragOver, input.DispatchDragEventTypeDrop} {
			if _, err := cdp.Call(ctx, t, input.DispatchDragEvent, input.DispatchDragEventParams{Type: typ, X: at.X, Y: at.Y, Data: data}); err != nil {
				return err
			}
		}
		return nil
	}))
}

// dropUpload drops a folder of three files and one file on the object
// list and checks the keys S3 then holds.
func dropUpload(p *tab, c *s3.Client, bucket, dir string) {
	p.t.Helper()
	files := map[string][]byte{"a.txt": []byte("dropped a\n"), "b.txt": []byte("dropped b\n"), "c.txt": []byte("dropped c\n")}
	folder := writeFiles(p.t, dir, "dropped", files)
	single := filepath.Join(dir, "single.txt")
	if err := os.WriteFile(single, []byte("dropped alone\n"), 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.open("/console/b/" + bucket + "/")
	drop(p, hook("object-list"), folder, single)
	if state := waitUploads(p, "a.txt", "b.txt", "c.txt", "single.txt"); state != "done" {
		p.t.Fatalf("the dropped files' uploads ended %s", state)
	}
	for n, body := range files {
		itest.WantObject(p.t, c, bucket, "dropped/"+n, body)
	}
	itest.WantObject(p.t, c, bucket, "single.txt", []byte("dropped alone\n"))
}

// fitsPhone opens the console's pages at a phone's 375×800 and checks
// that none is wider than the screen (no sideways scrolling). The users,
// settings and dashboard pages are checked when the UI has the hooks they
// are waited on by.
func fitsPhone(p *tab, bucket string) {
	p.t.Helper()
	p.do("phone viewport", wait, chromedp.EmulateViewport(375, 800, chromedp.EmulateMobile))
	defer p.do("desktop viewport", wait, chromedp.EmulateViewport(1280, 800))
	pages := []struct {
		path  string
		shows sel
	}{
		{"/console/", hook("bucket-row", "data-bucket", bucket)},
		{"/console/b/" + bucket + "/album/", hook("object-row", "data-key", "album/cat.png")},
		{"/console/b/" + bucket + "/album/cat.png?details", hook("object-details")},
		{"/console/settings/" + bucket, hook("policy-editor")},
		{"/console/users", hook("user-list")},
		{"/console/dashboard", hook("chart-requests")},
	}
	for _, pg := range pages {
		if !strings.Contains(p.b.ui, pg.shows.hook) {
			p.t.Logf("%s: not checked, the UI has no hook %q", pg.path, pg.shows.hook)
			continue
		}
		p.open(pg.path)
		p.visible(pg.shows)
		if w := p.eval(`document.documentElement.scrollWidth > 375 ? document.documentElement.scrollWidth + " px" : ""`); w != "" {
			p.t.Errorf("%s is %s wide on a 375 px screen: it scrolls sideways", pg.path, w)
		}
	}
}
