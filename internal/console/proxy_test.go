package console_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/testutil"
)

// pattern is n deterministic pseudo-random bytes, written by a goroutine
// into a pipe: the test holds no copy of the body.
func pattern(n int64, seed uint64) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		r := rand.New(rand.NewPCG(seed, seed))
		buf := make([]byte, 64<<10)
		for left := n; left > 0; {
			k := min(left, int64(len(buf)))
			for i := range buf[:k] {
				buf[i] = byte(r.Uint32())
			}
			if _, err := pw.Write(buf[:k]); err != nil {
				return
			}
			left -= k
		}
		pw.Close()
	}()
	return pr
}

func digest(r io.Reader) ([32]byte, int64) {
	h := sha256.New()
	n, _ := io.Copy(h, r)
	return [32]byte(h.Sum(nil)), n
}

// TestProxyStreams: the root creates a bucket, PUTs a 20 MiB object (its
// body from a pipe), GETs it back and lists it, all through the console;
// the object is an ordinary one the S3 API then serves.
func TestProxyStreams(t *testing.T) {
	srv := startServer(t)
	s := signIn(t, srv, testutil.AccessKey, testutil.SecretKey)
	if resp, body := s.call(http.MethodPut, "/console/api/s3/big", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("CreateBucket: %s %s", resp.Status, body)
	}
	const size = 20 << 20
	req := s.request(http.MethodPut, "/console/api/s3/big/dir/a%20b+c.bin", pattern(size, 1), true)
	req.ContentLength = size
	req.Header.Set("Content-Type", "application/x-test")
	req.Header.Set("X-Amz-Meta-Origin", "console")
	resp, body := s.do(req)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") == "" {
		t.Fatalf("PutObject: %s %s", resp.Status, body)
	}
	want, _ := digest(pattern(size, 1))

	resp, err := s.hc.Do(s.request(http.MethodGet, "/console/api/s3/big/dir/a%20b+c.bin", nil, true))
	if err != nil {
		t.Fatal(err)
	}
	got, n := digest(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || n != size || got != want {
		t.Fatalf("GetObject: %s, %d bytes, digest equal %v", resp.Status, n, got == want)
	}
	if resp.Header.Get("Content-Type") != "application/x-test" || resp.Header.Get("X-Amz-Meta-Origin") != "console" {
		t.Errorf("GetObject headers: %v", resp.Header)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "sandbox") {
		t.Errorf("a proxied object is not sandboxed: %q", csp)
	}
	// A range, passed on.
	req = s.request(http.MethodGet, "/console/api/s3/big/dir/a%20b+c.bin", nil, true)
	req.Header.Set("Range", "bytes=0-9")
	if resp, body := s.do(req); resp.StatusCode != http.StatusPartialContent || len(body) != 10 {
		t.Errorf("ranged GET: %s, %d bytes", resp.Status, len(body))
	}

	resp, body = s.call(http.MethodGet, "/console/api/s3/big?list-type=2&prefix=dir/", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "<Key>dir/a b+c.bin</Key>") ||
		!strings.Contains(string(body), "<Size>"+strconv.Itoa(size)+"</Size>") {
		t.Fatalf("ListObjectsV2: %s %s", resp.Status, body)
	}

	// The S3 API, signed by an SDK, sees the same object.
	head, err := srv.AWSClient(t).HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String("big"), Key: aws.String("dir/a b+c.bin")})
	if err != nil || aws.ToInt64(head.ContentLength) != size {
		t.Fatalf("HeadObject through S3: %v %v", err, head)
	}
}

// TestProxyDenied: a user without s3:PutObject gets S3's AccessDenied
// through the console, and what its policy allows works.
func TestProxyDenied(t *testing.T) {
	srv := startServer(t)
	ctx := t.Context()
	c := srv.AWSClient(t)
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("shared")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("shared"), Key: aws.String("hello.txt"), Body: strings.NewReader("hello")}); err != nil {
		t.Fatal(err)
	}
	reader := signIn(t, srv, readerKey, readerSecret)
	resp, body := reader.call(http.MethodPut, "/console/api/s3/shared/new.txt", strings.NewReader("nope"))
	wantS3Error(t, resp, body, http.StatusForbidden, "AccessDenied")
	resp, body = reader.call(http.MethodPut, "/console/api/s3/readers-bucket", nil)
	wantS3Error(t, resp, body, http.StatusForbidden, "AccessDenied")
	resp, body = reader.call(http.MethodGet, "/console/api/s3/shared/hello.txt", nil)
	if resp.StatusCode != http.StatusOK || string(body) != "hello" {
		t.Fatalf("reader GetObject: %s %s", resp.Status, body)
	}
	// The same PUT as the root works: the denial was the user's.
	root := signIn(t, srv, testutil.AccessKey, testutil.SecretKey)
	if resp, body := root.call(http.MethodPut, "/console/api/s3/shared/new.txt", strings.NewReader("yes")); resp.StatusCode != http.StatusOK {
		t.Fatalf("root PutObject: %s %s", resp.Status, body)
	}

	// IAM as a user: reader's policy does not allow iam:ListUsers,
	// watcher's does; the root may.
	watcher := signIn(t, srv, watcherKey, watcherSecret)
	for _, tc := range []struct {
		s      *session
		status int
		want   string
	}{
		{reader, http.StatusForbidden, "<Code>AccessDenied</Code>"},
		{watcher, http.StatusOK, "<UserName>reader</UserName>"},
		{root, http.StatusOK, "<UserName>reader</UserName>"},
	} {
		form := strings.NewReader(url.Values{"Action": {"ListUsers"}, "Version": {"2010-05-08"}}.Encode())
		req := tc.s.request(http.MethodPost, "/console/api/iam", form, true)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, body := tc.s.do(req)
		if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.want) {
			t.Fatalf("%s ListUsers: %s %s", tc.s.info["principal"], resp.Status, body)
		}
	}
}

// TestProxySourceIP: a proxied request keeps the browser's address:
// aws:SourceIp conditions decide it as they would the browser's own.
func TestProxySourceIP(t *testing.T) {
	srv := startServer(t)
	c := srv.AWSClient(t)
	if _, err := c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("here")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String("here"), Key: aws.String("k"), Body: strings.NewReader("v")}); err != nil {
		t.Fatal(err)
	}
	s := signIn(t, srv, localKey, localSecret)
	if resp, body := s.call(http.MethodGet, "/console/api/s3/here/k", nil); resp.StatusCode != http.StatusOK || string(body) != "v" {
		t.Fatalf("GET from 127.0.0.1: %s %s", resp.Status, body)
	}
	resp, body := s.call(http.MethodPut, "/console/api/s3/here/k2", strings.NewReader("w"))
	wantS3Error(t, resp, body, http.StatusForbidden, "AccessDenied")
}

// TestProxyMultipart: a multipart upload as the UI makes it (POST
// ?uploads, PUT parts, POST the XML list) through the console.
func TestProxyMultipart(t *testing.T) {
	srv := startServer(t)
	s := signIn(t, srv, testutil.AccessKey, testutil.SecretKey)
	if resp, body := s.call(http.MethodPut, "/console/api/s3/mpu", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("CreateBucket: %s %s", resp.Status, body)
	}
	resp, body := s.call(http.MethodPost, "/console/api/s3/mpu/big.bin?uploads", nil)
	var init struct{ UploadId string }
	if resp.StatusCode != http.StatusOK || xml.Unmarshal(body, &init) != nil || init.UploadId == "" {
		t.Fatalf("CreateMultipartUpload: %s %s", resp.Status, body)
	}
	parts := [][]byte{bytes.Repeat([]byte("a"), 5<<20), []byte("tail")}
	var list strings.Builder
	list.WriteString("<CompleteMultipartUpload>")
	for i, p := range parts {
		resp, body := s.call(http.MethodPut, fmt.Sprintf("/console/api/s3/mpu/big.bin?partNumber=%d&uploadId=%s", i+1, url.QueryEscape(init.UploadId)), bytes.NewReader(p))
		if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") == "" {
			t.Fatalf("UploadPart %d: %s %s", i+1, resp.Status, body)
		}
		fmt.Fprintf(&list, "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>", i+1, resp.Header.Get("ETag"))
	}
	list.WriteString("</CompleteMultipartUpload>")
	resp, body = s.call(http.MethodPost, "/console/api/s3/mpu/big.bin?uploadId="+url.QueryEscape(init.UploadId), strings.NewReader(list.String()))
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "<CompleteMultipartUploadResult") {
		t.Fatalf("CompleteMultipartUpload: %s %s", resp.Status, body)
	}
	head, err := srv.AWSClient(t).HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String("mpu"), Key: aws.String("big.bin")})
	if err != nil || aws.ToInt64(head.ContentLength) != 5<<20+4 {
		t.Fatalf("HeadObject: %v %v", err, head)
	}
}

// presign asks the console for a presigned URL.
func (s *session) presign(bucket, key string, expires int) (*http.Response, map[string]string) {
	s.t.Helper()
	b, _ := json.Marshal(map[string]any{"bucket": bucket, "key": key, "expires": expires})
	resp, body := s.call(http.MethodPost, "/console/api/presign", bytes.NewReader(b))
	out := map[string]string{}
	_ = json.Unmarshal(body, &out)
	return resp, out
}

// TestPresign: a presigned URL works with a plain HTTP client, lasts at
// most until the session's end, and expires.
func TestPresign(t *testing.T) {
	srv := startServer(t)
	s := signIn(t, srv, readerKey, readerSecret)
	c := srv.AWSClient(t)
	if _, err := c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("pics")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String("pics"), Key: aws.String("a cat.txt"), Body: strings.NewReader("meow")}); err != nil {
		t.Fatal(err)
	}
	resp, out := s.presign("pics", "a cat.txt", 30*24*3600)
	if resp.StatusCode != http.StatusOK || out["url"] == "" {
		t.Fatalf("presign: %s %v", resp.Status, out)
	}
	u, err := url.Parse(out["url"])
	if err != nil {
		t.Fatal(err)
	}
	// Asked for 30 days: capped at 7, and at the session's 12 hours.
	if e, _ := strconv.Atoi(u.Query().Get("X-Amz-Expires")); e <= 0 || e > 12*3600 {
		t.Errorf("X-Amz-Expires %d, want at most the session's 12h", e)
	}
	get, body := fetch(t, out["url"]) // no cookie, no console
	if get.StatusCode != http.StatusOK || string(body) != "meow" {
		t.Fatalf("GET presigned: %s %s", get.Status, body)
	}

	_, short := s.presign("pics", "a cat.txt", 1)
	deadline := time.Now().Add(30 * time.Second)
	for {
		get, body := fetch(t, short["url"])
		if get.StatusCode == http.StatusForbidden && strings.Contains(string(body), "<Code>AccessDenied</Code>") {
			break // expired
		}
		if get.StatusCode != http.StatusOK || time.Now().After(deadline) {
			t.Fatalf("a 1-second presigned URL: %s %s", get.Status, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestMetrics: the root and a user allowed jog:GetMetrics read the
// metrics; a user without it is refused.
func TestMetrics(t *testing.T) {
	srv := startServer(t)
	for _, tc := range []struct {
		key, secret string
		status      int
	}{
		{testutil.AccessKey, testutil.SecretKey, http.StatusOK},
		{watcherKey, watcherSecret, http.StatusOK},
		{readerKey, readerSecret, http.StatusForbidden},
	} {
		s := signIn(t, srv, tc.key, tc.secret)
		resp, body := s.call(http.MethodGet, "/console/api/metrics", nil)
		if resp.StatusCode != tc.status {
			t.Errorf("%s: %s %.200s", tc.key, resp.Status, body)
		}
		if tc.status == http.StatusOK && !strings.Contains(string(body), "jog_s3_requests") {
			t.Errorf("%s: no jog_s3_requests in %.200s", tc.key, body)
		}
	}
}

// TestBucketNamedConsole: with the console on the S3 port
// (--console-addr=same), signed path-style requests to a bucket named
// "console" reach S3, while an unsigned /console/ is the console.
func TestBucketNamedConsole(t *testing.T) {
	srv := startServer(t, func(c *config.Config) { c.ConsoleAddr = config.ConsoleSame })
	ctx := t.Context()
	c := srv.AWSClient(t)
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("console")}); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"index.html", "api/session", "api/s3/x"} {
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("console"), Key: aws.String(key), Body: strings.NewReader("object " + key)}); err != nil {
			t.Fatalf("PutObject console/%s: %v", key, err)
		}
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("console"), Key: aws.String(key)})
		if err != nil {
			t.Fatalf("GetObject console/%s: %v", key, err)
		}
		b, _ := io.ReadAll(out.Body)
		out.Body.Close()
		if string(b) != "object "+key {
			t.Errorf("console/%s: %q", key, b)
		}
	}
	list, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("console")})
	if err != nil || len(list.Contents) != 3 {
		t.Fatalf("ListObjectsV2 console: %v %v", err, list)
	}
	// A presigned URL of the bucket is S3's too.
	pre, err := s3.NewPresignClient(c).PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("console"), Key: aws.String("index.html")})
	if err != nil {
		t.Fatal(err)
	}
	resp, b := fetch(t, pre.URL)
	if string(b) != "object index.html" {
		t.Errorf("presigned console/index.html: %s %q", resp.Status, b)
	}
	// Unsigned: the console's page.
	resp, b = fetch(t, srv.URL+"/console/")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || strings.Contains(string(b), "object ") {
		t.Errorf("GET /console/: %s %v %.100s", resp.Status, resp.Header, b)
	}
}

// TestConsoleAddr: by default the console is served on a listener of
// its own and nothing else is: not S3 (a presigned URL of an HTML object
// there would run on the console's origin), and the S3 port has no
// console; the console's presigned links name the S3 port, with the
// console's host name. With --console-s3-url they name that endpoint.
func TestConsoleAddr(t *testing.T) {
	srv := startServer(t)
	if srv.Console == "" || srv.Console == srv.URL {
		t.Fatalf("the console is at %q, the S3 port at %q: want a listener of its own", srv.Console, srv.URL)
	}
	resp, b := fetch(t, srv.URL+"/console/")
	if resp.StatusCode == http.StatusOK || !strings.Contains(string(b), "<Error>") {
		t.Errorf("the S3 port serves the console: %s %.100s", resp.Status, b)
	}
	resp, b = fetch(t, srv.Console+"/")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "<html") {
		t.Errorf("GET / on the console's listener: %s %.100s; want the console's page", resp.Status, b)
	}
	c := srv.AWSClient(t)
	if _, err := c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("pages")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String("pages"), Key: aws.String("a.html"),
		Body: strings.NewReader("<script>alert(1)</script>"), ContentType: aws.String("text/html")}); err != nil {
		t.Fatal(err)
	}
	s := signIn(t, srv, testutil.AccessKey, testutil.SecretKey)
	resp, out := s.presign("pages", "a.html", 60)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("presign: %s %v", resp.Status, out)
	}
	u, err := url.Parse(out["url"])
	if err != nil || "http://"+u.Host != srv.URL {
		t.Fatalf("presigned URL %q: want it on the S3 port, %s", out["url"], srv.URL)
	}
	if get, body := fetch(t, out["url"]); get.StatusCode != http.StatusOK || string(body) != "<script>alert(1)</script>" ||
		get.Header.Get("Content-Security-Policy") != "sandbox" {
		t.Errorf("GET the presigned URL: %s, CSP %q, %q", get.Status, get.Header.Get("Content-Security-Policy"), body)
	}
	u.Host = strings.TrimPrefix(srv.Console, "http://")
	if get, body := fetch(t, u.String()); get.StatusCode != http.StatusNotFound || strings.Contains(string(body), "alert") {
		t.Errorf("the presigned URL on the console's listener: %s %q; want 404, no object", get.Status, body)
	}
	// The page may show previews from the S3 origin.
	page, _ := fetch(t, srv.Console+"/console/")
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "img-src 'self' blob: data: "+srv.URL+";") ||
		!strings.Contains(csp, "frame-src 'self' blob: "+srv.URL+";") {
		t.Errorf("the page's CSP %q: want img-src and frame-src to allow %s", csp, srv.URL)
	}

	proxied := startServer(t, func(c *config.Config) { c.ConsoleS3URL = "https://s3.example.com" })
	s = signIn(t, proxied, testutil.AccessKey, testutil.SecretKey)
	if _, out := s.presign("pages", "a.html", 60); !strings.HasPrefix(out["url"], "https://s3.example.com/pages/a.html?") {
		t.Errorf("with --console-s3-url: presigned URL %q", out["url"])
	}
}

// TestConsoleSame: with --console-addr=same the console is on the S3
// port, and its presigned links name the address it was reached at.
func TestConsoleSame(t *testing.T) {
	srv := startServer(t, func(c *config.Config) { c.ConsoleAddr = config.ConsoleSame })
	if srv.Console != srv.URL {
		t.Fatalf("the console is at %q: want the S3 port, %s", srv.Console, srv.URL)
	}
	s := signIn(t, srv, testutil.AccessKey, testutil.SecretKey)
	if resp, body := s.call(http.MethodPut, "/console/api/s3/via-console", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("CreateBucket via the console: %s %s", resp.Status, body)
	}
	if _, err := srv.AWSClient(t).PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String("via-console"), Key: aws.String("k"),
		Body: strings.NewReader("v")}); err != nil {
		t.Fatal(err)
	}
	if _, out := s.presign("via-console", "k", 60); !strings.HasPrefix(out["url"], srv.URL+"/via-console/k?") {
		t.Errorf("presigned URL %q: want it on %s", out["url"], srv.URL)
	}
}
