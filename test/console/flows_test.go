package console

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// uploadWait bounds an upload through the console (50 MiB on a busy
// machine); like wait, a bound, not an assertion.
const uploadWait = 5 * time.Minute

// flow runs the steps of one browser session as subtests, in order; a step
// whose prerequisite did not pass skips, naming it.
type flow struct {
	t      *testing.T
	b      *browser
	passed map[string]bool
}

func (f *flow) step(name string, needs []string, fn func(p *tab)) {
	f.t.Run(name, func(t *testing.T) {
		for _, n := range needs {
			if !f.passed[n] {
				t.Skipf("needs step %q, which did not pass", n)
			}
		}
		defer func() { f.passed[name] = !t.Failed() && !t.Skipped() }()
		p := f.b.on(t)
		fn(p)
		p.checkProblems()
	})
}

// Step names, for the prerequisites.
const (
	stepSignIn  = "sign in as root"
	stepBucket  = "create a bucket"
	stepFolder  = "upload a folder of 20 files"
	stepPreview = "preview an image"
)

// TestConsoleFlows drives the console as root through the core: sign in,
// buckets, a 50 MiB multipart upload with progress, a folder upload,
// browsing by prefix, previews, a share link, deletes, event notifications
// in a bucket's settings (a webhook target), sign-out. Every
// result the page shows is checked against the server with an S3 client.
func TestConsoleFlows(t *testing.T) {
	recv := startWebhook(t)
	srv, b := startConsole(t, "--notify-webhook", "console="+recv.URL)
	c := srv.s3(t)
	ctx := context.Background()
	dir := t.TempDir()
	const bucket = "e2e-photos"
	files := album()
	albumDir := writeFiles(t, dir, "album", files)
	bigPath, big := bigFile(t, dir, "big.bin", 50<<20)
	f := &flow{t: t, b: b, passed: map[string]bool{}}

	f.step(stepSignIn, nil, func(p *tab) {
		p.signIn(testutil.AccessKey, testutil.SecretKey)
		if who := p.text(hook("whoami")); !strings.Contains(who, "root") {
			p.t.Errorf("whoami shows %q, want root", who)
		}
		if p.cookie("jog_console") == "" {
			p.t.Error("signed in, but the browser holds no jog_console cookie")
		}
	})

	f.step(stepBucket, []string{stepSignIn}, func(p *tab) {
		createBucket(p, bucket, false)
		if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)}); err != nil {
			p.t.Fatalf("the console shows bucket %s, S3 does not: %v", bucket, err)
		}
	})

	f.step("create a versioned bucket", []string{stepSignIn}, func(p *tab) {
		p.need("bucket-create-versioning")
		createBucket(p, "e2e-versioned", true)
		v, err := c.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: aws.String("e2e-versioned")})
		if err != nil || v.Status != types.BucketVersioningStatusEnabled {
			p.t.Fatalf("bucket created with versioning ticked: versioning %q, %v", v.Status, err)
		}
	})

	f.step("upload 50 MiB with progress, multipart", []string{stepBucket}, func(p *tab) {
		before := srv.requests(p.t, "CreateMultipartUpload")
		p.open("/console/b/" + bucket + "/")
		p.present(hook("upload-input"))
		p.eval(progressRecorder("big.bin"))
		p.upload(hook("upload-input"), bigPath)
		if state := waitUploads(p, "big.bin"); state != "done" {
			p.t.Fatalf("upload of big.bin ended %s", state)
		}
		checkProgress(p, "big.bin")
		p.visible(hook("object-row", "data-key", "big.bin"))
		if n := srv.requests(p.t, "CreateMultipartUpload") - before; n < 1 {
			p.t.Errorf("the server saw %d CreateMultipartUpload for a 50 MiB upload, want multipart", n)
		}
		if n := srv.requests(p.t, "CompleteMultipartUpload"); n < 1 {
			p.t.Errorf("the server completed %d multipart uploads", n)
		}
		head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("big.bin")})
		if err != nil {
			p.t.Fatal(err)
		}
		if aws.ToInt64(head.ContentLength) != int64(len(big)) || !strings.Contains(aws.ToString(head.ETag), "-") {
			p.t.Errorf("big.bin on the server: %d bytes, ETag %s; want %d bytes and a multipart ETag",
				aws.ToInt64(head.ContentLength), aws.ToString(head.ETag), len(big))
		}
		if got := objectSHA256(p.t, c, bucket, "big.bin"); got != sha256.Sum256(big) {
			p.t.Error("big.bin on the server differs from the file uploaded")
		}
	})

	f.step("cancel an upload", []string{stepBucket}, func(p *tab) {
		cancelUpload(p, c, bucket, dir, big)
	})

	f.step(stepFolder, []string{stepBucket}, func(p *tab) {
		p.open("/console/b/" + bucket + "/")
		p.present(hook("upload-folder-input"))
		p.upload(hook("upload-folder-input"), albumDir)
		names := make([]string, 0, len(files))
		for n := range files {
			names = append(names, n)
		}
		if state := waitUploads(p, names...); state != "done" {
			p.t.Fatalf("folder upload ended %s", state)
		}
		l, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
		if err != nil {
			p.t.Fatal(err)
		}
		got := map[string]int64{}
		for _, o := range l.Contents {
			got[aws.ToString(o.Key)] = aws.ToInt64(o.Size)
		}
		var wrong []string
		for n, body := range files {
			if size, ok := got["album/"+n]; !ok || size != int64(len(body)) {
				wrong = append(wrong, n)
			}
		}
		if len(wrong) > 0 {
			sort.Strings(wrong)
			p.t.Errorf("after the folder upload, album/<name> is missing or of the wrong size for %v; the bucket holds %v", wrong, sortedKeys(got))
		}
	})

	f.step("upload by drag and drop", []string{stepBucket}, func(p *tab) {
		dropUpload(p, c, bucket, dir)
	})

	f.step("browse into the folder and back by the breadcrumb", []string{stepFolder}, func(p *tab) {
		p.open("/console/b/" + bucket + "/")
		p.follow(hook("prefix-row", "data-prefix", "album/"))
		p.visible(hook("object-row", "data-key", "album/readme.txt"))
		if loc := p.location(); !strings.Contains(loc, "/b/"+bucket+"/album/") {
			p.t.Errorf("in the folder, the address is %s, want /console/b/%s/album/", loc, bucket)
		}
		if n := p.eval(`String(document.querySelectorAll('[data-test="object-row"]').length)`); n != "20" {
			p.t.Errorf("the folder lists %s objects, want 20", n)
		}
		p.click(hook("breadcrumb").in(`[data-prefix=""]`))
		p.visible(hook("prefix-row", "data-prefix", "album/"))
		p.visible(hook("object-row", "data-key", "big.bin"))
		p.gone(hook("object-row", "data-key", "album/readme.txt"))
	})

	f.step(stepPreview, []string{stepFolder}, func(p *tab) {
		openObject(p, bucket, "album/", "album/cat.png")
		sum := md5.Sum(files["cat.png"])
		if etag := p.text(hook("detail-etag")); !strings.Contains(etag, hex.EncodeToString(sum[:])) {
			p.t.Errorf("detail-etag %q, want %x", etag, sum)
		}
		if ct := p.text(hook("detail-content-type")); !strings.Contains(ct, "image/png") {
			p.t.Errorf("detail-content-type %q, want image/png", ct)
		}
		if size := p.text(hook("detail-size")); size == "" {
			p.t.Error("detail-size is empty")
		}
		p.need("preview")
		got := p.until("the preview's image to load", wait, `(() => {
			const i = document.querySelector('[data-test="preview"] img');
			return i && i.complete && i.naturalWidth > 0 ? i.naturalWidth + 'x' + i.naturalHeight : '';
		})()`)
		if got != "64x48" {
			p.t.Errorf("the preview shows a %s image, want 64x48", got)
		}
	})

	f.step("preview a text file", []string{stepFolder}, func(p *tab) {
		openObject(p, bucket, "album/", "album/readme.txt")
		p.need("preview")
		first, _, _ := strings.Cut(readme, "\n")
		p.until("the preview to show the text", wait, fmt.Sprintf(`(() => {
			const p = document.querySelector('[data-test="preview"]');
			if (!p) return '';
			let s = p.innerText;
			for (const f of p.querySelectorAll('iframe, embed, object')) {
				try { s += f.contentDocument.body.innerText; } catch (e) {}
			}
			return s.includes(%q) ? 'shown' : '';
		})()`, first))
	})

	f.step("share a link and fetch it", []string{stepFolder}, func(p *tab) {
		openObject(p, bucket, "album/", "album/cat.png")
		p.click(hook("share-open"))
		p.visible(hook("share-expires"))
		expires := p.eval(`(() => {
			const s = document.querySelector('[data-test="share-expires"]');
			const o = [...s.options].find(o => o.value === '3600');
			if (o) { s.value = '3600'; s.dispatchEvent(new Event('input', {bubbles: true})); s.dispatchEvent(new Event('change', {bubbles: true})); }
			return s.value;
		})()`)
		p.click(hook("share-create"))
		link := p.until("the share URL", wait, `(document.querySelector('[data-test="share-url"]') || {}).value || ''`)
		u, err := url.Parse(link)
		if err != nil || u.Host != strings.TrimPrefix(srv.URL, "http://") {
			p.t.Fatalf("share URL %q: not on the S3 port's address %s (%v)", link, srv.URL, err)
		}
		if got := u.Query().Get("X-Amz-Expires"); got != expires {
			p.t.Errorf("share URL expires in %s s, the page chose %s", got, expires)
		}
		wantURL(p.t, "the share URL", link, files["cat.png"])
	})

	f.step("delete an object, confirmed", []string{stepFolder}, func(p *tab) {
		const key = "album/file-05.txt"
		openObject(p, bucket, "album/", key)
		p.click(hook("object-delete"))
		confirm(p, key)
		itest.WantNoObject(p.t, c, bucket, key)
		p.open("/console/b/" + bucket + "/album/")
		p.visible(hook("object-row", "data-key", "album/file-04.txt"))
		p.gone(hook("object-row", "data-key", key))
	})

	f.step("delete a bucket, confirmed", []string{stepSignIn}, func(p *tab) {
		p.need("bucket-delete", "confirm-input")
		itest.CreateBucket(p.t, c, "e2e-scratch")
		p.open("/console/b/e2e-scratch/")
		p.click(hook("bucket-delete"))
		confirm(p, "e2e-scratch")
		p.visible(hook("bucket-row", "data-bucket", bucket))
		p.gone(hook("bucket-row", "data-bucket", "e2e-scratch"))
		if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("e2e-scratch")}); err == nil {
			p.t.Error("the console removed bucket e2e-scratch from its list; S3 still has it")
		}
	})

	f.step("download an object", []string{stepFolder}, func(p *tab) {
		openObject(p, bucket, "album/", "album/cat.png")
		p.need("download")
		href := p.until("the download link", wait, `(() => {
			const a = document.querySelector('[data-test="download"]');
			return a && a.href && !a.href.endsWith('#') ? a.href : '';
		})()`)
		wantURL(p.t, "the download link", href, files["cat.png"])
	})

	f.step("create a folder", []string{stepBucket}, func(p *tab) {
		createFolder(p, c, bucket, "drafts")
	})

	f.step("page through a long listing and filter it", []string{stepSignIn}, func(p *tab) {
		pageAndFilter(p, c)
	})

	f.step("the buckets list counts objects and bytes", []string{stepFolder}, func(p *tab) {
		var objects, size int64
		pages := s3.NewListObjectVersionsPaginator(c, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket)})
		for pages.HasMorePages() {
			pg, err := pages.NextPage(ctx)
			if err != nil {
				p.t.Fatal(err)
			}
			for _, v := range pg.Versions {
				size += aws.ToInt64(v.Size)
				if aws.ToBool(v.IsLatest) {
					objects++
				}
			}
		}
		p.open("/console/")
		row := `[data-test="bucket-row"][data-bucket="` + bucket + `"] `
		got := p.until("the bucket's object count", wait, `(() => {
			const c = document.querySelector('`+row+`[data-test="bucket-objects"]');
			const s = document.querySelector('`+row+`[data-test="bucket-size"]');
			return c && s && c.textContent && s.textContent ? c.textContent + ' | ' + s.textContent : '';
		})()`)
		want := fmt.Sprintf("%d | %s", objects, bytesText(size))
		if got != want {
			p.t.Errorf("the buckets list shows %q for %s; S3 lists %d objects of %d bytes, want %q", got, bucket, objects, size, want)
		}
	})

	f.step("event notifications in a bucket's settings", []string{stepSignIn}, func(p *tab) {
		notifySettings(p, srv, c, recv)
	})

	f.step("fit a phone's width", []string{stepFolder}, func(p *tab) {
		fitsPhone(p, bucket)
	})

	f.step("sign out", []string{stepSignIn}, func(p *tab) {
		cookie := p.cookie("jog_console")
		p.open("/console/")
		p.click(hook("signout"))
		p.visible(hook("signin-access-key"))
		if st := sessionStatus(p.t, srv.Console, cookie); st != http.StatusUnauthorized {
			p.t.Errorf("GET /console/api/session with the signed-out session's cookie: %d, want 401", st)
		}
		p.open("/console/b/" + bucket + "/")
		p.visible(hook("signin-access-key"))
	})
}

// createBucket creates a bucket with the buckets page's form, waits for
// the form to close (its requests done), and for the bucket's row in the
// list.
func createBucket(p *tab, name string, versioned bool) {
	p.t.Helper()
	p.open("/console/")
	p.click(hook("bucket-create-open"))
	p.enter(hook("bucket-create-name"), name)
	if versioned {
		p.click(hook("bucket-create-versioning"))
	}
	p.click(hook("bucket-create-submit"))
	p.gone(hook("bucket-create-name"))
	p.open("/console/")
	p.visible(hook("bucket-row", "data-bucket", name))
}

// openObject opens key's details from its folder's page.
func openObject(p *tab, bucket, prefix, key string) {
	p.t.Helper()
	p.open("/console/b/" + bucket + "/" + prefix)
	p.follow(hook("object-row", "data-key", key))
	p.visible(hook("object-details"))
}

// confirm answers a confirmation: types name where the dialog asks for it,
// and confirms.
func confirm(p *tab, name string) {
	p.t.Helper()
	p.visible(hook("confirm-submit"))
	if p.eval(`document.querySelector('[data-test="confirm-input"]') ? 'ask' : ''`) == "ask" {
		p.enter(hook("confirm-input"), name)
	}
	p.click(hook("confirm-submit"))
	p.gone(hook("confirm-submit")) // the dialog closes when its request is done
}

// progressRecorder is a script that logs, in window.__jogProgress, every
// state the upload row of file name shows: "state:fraction" on each DOM
// change (a MutationObserver: every change, none sampled away).
func progressRecorder(name string) string {
	return fmt.Sprintf(`(() => {
		window.__jogProgress = [];
		const read = () => {
			const row = [...document.querySelectorAll('[data-test="upload-row"]')]
				.find(r => r.dataset.name === %[1]q || (r.dataset.name || '').endsWith('/' + %[1]q));
			if (!row) return;
			const e = row.querySelector('progress, [data-test="progress"], [role="progressbar"]');
			let v = 'none';
			if (e && e.tagName === 'PROGRESS') v = e.hasAttribute('value') ? String(e.value / e.max) : 'none';
			else if (e && e.hasAttribute('aria-valuenow')) v = String(e.getAttribute('aria-valuenow') / (e.getAttribute('aria-valuemax') || 100));
			else if (e && e.hasAttribute('value')) v = String(e.getAttribute('value') / (e.getAttribute('max') || 1));
			const s = row.dataset.state + ':' + v, log = window.__jogProgress;
			if (log[log.length - 1] !== s) log.push(s);
		};
		new MutationObserver(read).observe(document.documentElement, {subtree: true, childList: true, attributes: true, characterData: true});
		return 'ok';
	})()`, name)
}

// checkProgress reads what progressRecorder saw: the fraction must have
// gone up through values between 0 and 1, never down, and ended done.
func checkProgress(p *tab, name string) {
	p.t.Helper()
	var log []string
	if err := json.Unmarshal([]byte(p.eval(`JSON.stringify(window.__jogProgress || [])`)), &log); err != nil {
		p.t.Fatal(err)
	}
	between, last := 0, -1.0
	for _, e := range log {
		_, v, _ := strings.Cut(e, ":")
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			continue
		}
		if x < last {
			p.t.Errorf("the progress of %s went down: %v", name, log)
		}
		if x > 0 && x < 1 {
			between++
		}
		last = x
	}
	if between == 0 || len(log) == 0 || !strings.HasPrefix(log[len(log)-1], "done") {
		p.t.Errorf("the progress of %s: states %v; want values between 0 and 1, then done", name, log)
	}
	p.t.Logf("%s: %d progress states shown, %d between 0 and 1", name, len(log), between)
}

// waitUploads waits until the upload rows of the files (by base name) have
// all ended: "done" when all are done, else the first other end.
func waitUploads(p *tab, names ...string) string {
	p.t.Helper()
	list, _ := json.Marshal(names)
	return p.until("the uploads to end", uploadWait, fmt.Sprintf(`(() => {
		const rows = [...document.querySelectorAll('[data-test="upload-row"]')];
		let done = 0;
		for (const n of %s) {
			const r = rows.find(r => r.dataset.name === n || (r.dataset.name || '').endsWith('/' + n));
			if (!r) return '';
			if (r.dataset.state === 'failed' || r.dataset.state === 'cancelled') return r.dataset.state + ' (' + r.dataset.name + ': ' + r.innerText + ')';
			if (r.dataset.state === 'done') done++;
		}
		return done === %d ? 'done' : '';
	})()`, list, len(names)))
}

// objectSHA256 streams an object from the server and hashes it.
func objectSHA256(t *testing.T, c *s3.Client, bucket, key string) [32]byte {
	t.Helper()
	out, err := c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Body.Close()
	h := sha256.New()
	if _, err := io.Copy(h, out.Body); err != nil {
		t.Fatal(err)
	}
	return [32]byte(h.Sum(nil))
}

// sessionStatus is the status of GET /console/api/session with the
// session cookie value given.
func sessionStatus(t *testing.T, base, cookie string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/console/api/session", nil)
	req.AddCookie(&http.Cookie{Name: "jog_console", Value: cookie})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// bytesText is the console's bytes() (format.js): how the page writes n
// bytes.
func bytesText(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	v, i := float64(n), 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	switch {
	case i == 0:
		return fmt.Sprintf("%d B", n)
	case v < 10:
		return fmt.Sprintf("%.1f %s", v, units[i])
	default:
		return fmt.Sprintf("%d %s", int64(math.Round(v)), units[i])
	}
}
