package integration

// A real browser against CORS: headless Chromium, driven with chromedp,
// loads a page from another origin (a second httptest server) and from it
// fetch()es presigned URLs of a JOG bucket, as a web app does.

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/chromedp/chromedp"

	"github.com/jogstore/jog/test/integration/itest"
)

// chromiumPath finds a Chromium or Chrome binary; "" when none.
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browserFetch is what the page's script reports.
type browserFetch struct {
	PutStatus int    `json:"putStatus"`
	GetStatus int    `json:"getStatus"`
	Body      string `json:"body"`
	ETag      string `json:"etag"`
	Error     string `json:"error"` // a rejected fetch: "TypeError: Failed to fetch"
}

// corsFetchScript PUTs body to putURL with an x-amz-meta-from header (a
// header a simple request may not carry: the browser sends a preflight
// first), then GETs getURL and reads its body and ETag header.
const corsFetchScript = `(async () => {
  try {
    const put = await fetch(%q, {method: "PUT", body: %q, headers: {"x-amz-meta-from": "browser"}, cache: "no-store"});
    const get = await fetch(%q, {cache: "no-store"});
    return {putStatus: put.status, getStatus: get.status, body: await get.text(), etag: get.headers.get("ETag") || ""};
  } catch (e) {
    return {error: e.name + ": " + e.message};
  }
})()`

func TestCORSBrowser(t *testing.T) {
	path := chromiumPath()
	if path == "" {
		t.Skip("no Chromium: install it (Debian: apt-get install chromium) to run the browser CORS test")
	}
	_, c := itest.StartBucket(t, "web")
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!doctype html><title>app</title><p>app</p>")
	}))
	defer page.Close()
	origin := page.URL // http://127.0.0.1:port, another port: another origin

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	// A bound, so a wedged browser fails the test instead of hanging it.
	ctx, cancel := context.WithTimeout(bctx, 2*time.Minute)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Navigate(origin)); err != nil {
		t.Fatalf("start Chromium (%s) and load the page: %v", path, err)
	}

	pc := s3.NewPresignClient(c)
	round := 0
	fetch := func() browserFetch {
		t.Helper()
		round++
		key := fmt.Sprintf("upload-%d.txt", round)
		pp, err := pc.PresignPutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("web"), Key: aws.String(key),
			Metadata: map[string]string{"from": "browser"}})
		if err != nil {
			t.Fatal(err)
		}
		pg, err := pc.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("web"), Key: aws.String(key)})
		if err != nil {
			t.Fatal(err)
		}
		body := fmt.Sprintf("written by the browser, round %d", round)
		res, err := chromedp.Run(ctx, chromedp.Evaluate[browserFetch](
			fmt.Sprintf(corsFetchScript, pp.URL, body, pg.URL), chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("run the page's script: %v", err)
		}
		if res.Error == "" && (res.Body != body || res.ETag != itest.ETag([]byte(body))) {
			t.Fatalf("round %d: the browser read %+v, want body %q ETag %s", round, res, body, itest.ETag([]byte(body)))
		}
		return res
	}
	wantBlocked := func(what string) {
		t.Helper()
		if res := fetch(); !strings.HasPrefix(res.Error, "TypeError") {
			t.Fatalf("%s: the browser was not blocked: %+v", what, res)
		}
	}

	wantBlocked("no CORS configuration")
	corsMustPut(t, c, "web", []types.CORSRule{{AllowedOrigins: []string{"https://elsewhere.example"},
		AllowedMethods: []string{"GET", "PUT"}, AllowedHeaders: []string{"*"}, ExposeHeaders: []string{"ETag"}}})
	wantBlocked("a rule for another origin")

	corsMustPut(t, c, "web", []types.CORSRule{{AllowedOrigins: []string{origin},
		AllowedMethods: []string{"GET", "PUT"}, AllowedHeaders: []string{"x-amz-meta-*"}, ExposeHeaders: []string{"ETag"}}})
	res := fetch()
	if res.Error != "" || res.PutStatus != http.StatusOK || res.GetStatus != http.StatusOK {
		t.Fatalf("a matching rule: %+v", res)
	}
	// The object is there, with the metadata the browser sent.
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("web"), Key: aws.String("upload-3.txt")})
	if err != nil || head.Metadata["from"] != "browser" {
		t.Fatalf("HeadObject of the browser's upload: %v %v", head, err)
	}

	if _, err := c.DeleteBucketCors(ctx, &s3.DeleteBucketCorsInput{Bucket: aws.String("web")}); err != nil {
		t.Fatal(err)
	}
	wantBlocked("after DeleteBucketCors")
}
