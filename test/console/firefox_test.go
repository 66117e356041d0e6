package console

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// firefoxDir holds the Firefox test's node script and its package.json
// (puppeteer-core and pngjs, installed with `npm ci`).
const firefoxDir = "firefox"

// firefoxPath finds Firefox: $JOG_FIREFOX, else Debian's firefox-esr, else
// a firefox on the PATH; "" when none.
func firefoxPath() string {
	if p := os.Getenv("JOG_FIREFOX"); p != "" {
		return p
	}
	for _, name := range []string{"firefox-esr", "firefox"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// needFirefox returns the paths of Firefox and node, or skips the test
// saying what is missing (failing when CI is set), as it does under -short.
func needFirefox(t *testing.T) (firefox, node string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: builds jog and drives a browser")
	}
	missing := func(what string) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf("CI: %s for the console's Firefox test", what)
		}
		t.Skipf("%s: the console's Firefox test is skipped", what)
	}
	firefox = firefoxPath()
	if firefox == "" {
		missing("no Firefox (Debian: apt-get install firefox-esr)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("no node")
	}
	if _, err := os.Stat(filepath.Join(firefoxDir, "node_modules", "puppeteer-core")); err != nil {
		missing("no test/console/firefox/node_modules (cd test/console/firefox && npm ci)")
	}
	return firefox, node
}

// TestFirefox runs the console's flows in headless Firefox (Debian's
// firefox-esr over WebDriver BiDi, driven by puppeteer-core from the node
// script firefox/flows.mjs) against a real `jog server`: sign-in by
// keyboard and a wrong secret refused, a versioned bucket, uploads (small,
// a PDF, 20 MiB multipart with progress, a folder), the breadcrumb, text,
// image and PDF previews, a share link fetched, versions, a delete, the
// dashboard, a phone's width, sign-out, and a user's denial shown. The
// script fails on any step, JavaScript error or CSP violation; this test
// streams its output and then checks on the server what it did.
func TestFirefox(t *testing.T) {
	firefox, node := needFirefox(t)
	srv := startJog(t)
	c := srv.s3(t)
	ctx := context.Background()
	itest.CreateBucket(t, c, "shared")
	itest.Put(t, c, "shared", "hello.txt", []byte("hello, viewer\n"))
	pdf := solidPDF(400, 300)
	itest.Put(t, c, "shared", "attachment.pdf", pdf, contentType("application/pdf"), func(in *s3.PutObjectInput) {
		in.ContentDisposition = aws.String(`attachment; filename="attachment.pdf"`)
	})
	viewerKey, viewerSecret := srv.newUser(t, "viewer", viewerPolicy)

	dir := t.TempDir()
	files := album()
	writeFiles(t, dir, "album", files)
	notes := []byte("notes, first version\n")
	writeFiles(t, dir, "trip", map[string][]byte{"day-1.txt": []byte("day one\n"), "day-2.txt": []byte("day two\n")})
	writeFiles(t, dir, "v2", map[string][]byte{"notes.txt": []byte("notes, second version\n")})
	for name, body := range map[string][]byte{"notes.txt": notes, "poster.pdf": pdf, "denied.txt": []byte("the viewer may not write this\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, big := bigFile(t, dir, "big.bin", 20<<20)
	albumNames := make([]string, 0, len(files))
	for n := range files {
		albumNames = append(albumNames, n)
	}
	sort.Strings(albumNames)
	albumJSON, _ := json.Marshal(albumNames)
	multipartBefore := srv.requests(t, "CompleteMultipartUpload")

	runNode(t, node, "flows.mjs",
		"JOG_URL="+srv.Console, "JOG_S3_URL="+srv.URL, "JOG_FIREFOX="+firefox, "JOG_FILES="+dir, "JOG_ALBUM="+string(albumJSON),
		`JOG_TRIP=["day-1.txt","day-2.txt"]`,
		"JOG_ACCESS_KEY="+testutil.AccessKey, "JOG_SECRET_KEY="+testutil.SecretKey,
		"JOG_VIEWER_KEY="+viewerKey, "JOG_VIEWER_SECRET="+viewerSecret,
		fmt.Sprintf("JOG_PDF_RGB=%d,%d,%d", pdfColor.R, pdfColor.G, pdfColor.B),
		fmt.Sprintf("JOG_PDF_MIN_SHARE=%g", pdfMinShare),
		"JOG_ARTIFACTS="+t.ArtifactDir())

	// What the script did, seen by S3.
	const bucket = "ff-versioned"
	if v, err := c.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: aws.String(bucket)}); err != nil || v.Status != types.BucketVersioningStatusEnabled {
		t.Fatalf("bucket %s: versioning %v, %v; want Enabled", bucket, v, err)
	}
	if got := objectSHA256(t, c, bucket, "big.bin"); got != sha256.Sum256(big) {
		t.Error("big.bin on the server differs from the file uploaded")
	}
	if n := srv.requests(t, "CompleteMultipartUpload") - multipartBefore; n < 1 {
		t.Errorf("the server completed %d multipart uploads, want big.bin's", n)
	}
	itest.WantObject(t, c, bucket, "poster.pdf", pdf)
	itest.WantObject(t, c, bucket, "notes.txt", []byte("notes, second version\n"))
	versions, err := c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), Prefix: aws.String("notes.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if len(versions.Versions) != 2 {
		t.Errorf("notes.txt has %d versions, want the two uploaded", len(versions.Versions))
	}
	for _, n := range albumNames {
		if n != "file-05.txt" {
			itest.WantObject(t, c, bucket, "album/"+n, files[n])
		}
	}
	itest.WantNoObject(t, c, bucket, "album/file-05.txt")
	itest.WantNoObject(t, c, "shared", "denied.txt")
}

// runNode runs a node script of firefoxDir with env added, streaming its
// output into the test's log line by line; the test fails when the script
// exits non-zero. The script's process group is killed if it outlives a
// bound (a wedged browser), and when the test ends.
func runNode(t *testing.T, node, script string, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Dir = firefoxDir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	out, w := io.Pipe()
	cmd.Stdout, cmd.Stderr = w, w
	logged := make(chan struct{})
	go func() {
		defer close(logged)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			t.Log(sc.Text())
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	err := cmd.Run()
	w.Close()
	<-logged
	if err != nil {
		t.Fatalf("node %s: %v (its output is above; failure screenshots in %s, kept with go test -artifacts)",
			script, err, t.ArtifactDir())
	}
}
