package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// slowAnswer is how the server answered a slow request: its status and
// error code (S3's XML, or the console's JSON), and after how long.
type slowAnswer struct {
	kind   string
	status int
	code   string
	after  time.Duration
}

// slowRequest sends req's head (its Host, Content-Length and headers,
// signed or not) on a connection of its own to req's host (the S3 port, or
// the console's: the anonymous share spans both), then first, then one more
// byte of the body every gap until the server answers, and reports the
// answer (status 0 and the error when there is none within a minute).
func slowRequest(t *testing.T, srv *testutil.Server, kind string, req *http.Request, first string, gap time.Duration) <-chan slowAnswer {
	t.Helper()
	conn, err := net.Dial("tcp", req.URL.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	start := time.Now()
	_ = conn.SetDeadline(start.Add(time.Minute))
	var head bytes.Buffer
	fmt.Fprintf(&head, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", req.Method, req.URL.RequestURI(), req.URL.Host, req.ContentLength)
	_ = req.Header.Write(&head)
	head.WriteString("\r\n" + first)
	if _, err := conn.Write(head.Bytes()); err != nil {
		t.Fatal(err)
	}
	out := make(chan slowAnswer, 1)
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		a := slowAnswer{kind: kind}
		resp, err := http.ReadResponse(bufio.NewReader(conn), req)
		if err != nil {
			a.code = err.Error()
		} else {
			body, _ := io.ReadAll(resp.Body)
			a.status = resp.StatusCode
			var js struct{ Code string }
			if _, rest, ok := bytes.Cut(body, []byte("<Code>")); ok { // S3's, IAM's
				a.code, _, _ = strings.Cut(string(rest), "</Code>")
			} else if json.Unmarshal(body, &js) == nil { // the console's
				a.code = js.Code
			}
		}
		a.after = time.Since(start)
		out <- a
	}()
	go func() {
		for {
			select {
			case <-answered:
				return
			case <-time.After(gap):
				if _, err := conn.Write([]byte("x")); err != nil {
					return // the server closed the connection after its answer
				}
			}
		}
	}()
	return out
}

// slowForm is an anonymous browser upload (PostObject) to a bucket that
// does not exist, its key field trickling.
func slowForm(t *testing.T, srv *testutil.Server, gap time.Duration) <-chan slowAnswer {
	req := itest.RawRequest(t, srv, http.MethodPost, "/no-such-bucket", nil)
	req.ContentLength = 1 << 20
	req.Header.Set("Content-Type", "multipart/form-data; boundary=xyz")
	return slowRequest(t, srv, "form", req, "--xyz\r\nContent-Disposition: form-data; name=\"key\"\r\n\r\nk", gap)
}

// slowSignIn is a console sign-in whose JSON trickles.
func slowSignIn(t *testing.T, srv *testutil.Server, gap time.Duration) <-chan slowAnswer {
	req, err := http.NewRequest(http.MethodPost, srv.Console+"/console/api/session", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = 500
	req.Header.Set("Content-Type", "application/json")
	return slowRequest(t, srv, "sign-in", req, `{"accessKey": "`, gap)
}

// slowPut is a signed PutObject of 1 MiB whose body trickles.
func slowPut(t *testing.T, srv *testutil.Server, key string, gap time.Duration) <-chan slowAnswer {
	req := itest.RawRequest(t, srv, http.MethodPut, "/slow/"+key, nil)
	req.ContentLength = 1 << 20
	itest.Sign(t, req, nil, itest.SignOpts{PayloadHash: "UNSIGNED-PAYLOAD"})
	return slowRequest(t, srv, "put", req, "abc", gap)
}

// slowSignedForm is a browser upload to bucket signed by the root: its
// fields arrive at once, its file trickles.
func slowSignedForm(t *testing.T, srv *testutil.Server, bucket, key string, gap time.Duration) <-chan slowAnswer {
	fields := append([]itest.FormField{{Name: "key", Value: key}}, itest.SignedForm(t, time.Now().Add(time.Hour),
		map[string]string{"bucket": bucket}, map[string]string{"key": key})...)
	var head strings.Builder
	for _, f := range fields {
		fmt.Fprintf(&head, "--xyz\r\nContent-Disposition: form-data; name=%q\r\n\r\n%s\r\n", f.Name, f.Value)
	}
	head.WriteString("--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f\"\r\n\r\nabc")
	req := itest.RawRequest(t, srv, http.MethodPost, "/"+bucket, nil)
	req.ContentLength = 1 << 20
	req.Header.Set("Content-Type", "multipart/form-data; boundary=xyz")
	return slowRequest(t, srv, "signed form", req, head.String(), gap)
}

// slowIAM is an IAM call (a form POST whose credential scope names iam,
// its signature checked once the body is read) whose form trickles.
func slowIAM(t *testing.T, srv *testutil.Server, gap time.Duration) <-chan slowAnswer {
	return slowQuery(t, srv, "iam", "Action=ListUsers&Version=2010-05-08&x=", gap)
}

// slowSTS is the same for STS.
func slowSTS(t *testing.T, srv *testutil.Server, gap time.Duration) <-chan slowAnswer {
	return slowQuery(t, srv, "sts", "Action=GetCallerIdentity&Version=2011-06-15&x=", gap)
}

// slowQuery is a call of a query API (IAM's, STS's: service names the
// credential scope) whose form trickles.
func slowQuery(t *testing.T, srv *testutil.Server, service, first string, gap time.Duration) <-chan slowAnswer {
	req := itest.RawRequest(t, srv, http.MethodPost, "/", nil)
	req.ContentLength = 500
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+testutil.AccessKey+"/20260101/"+testutil.Region+
		"/"+service+"/aws4_request, SignedHeaders=host, Signature=0000")
	return slowRequest(t, srv, service, req, first, gap)
}

// TestSlowBodies (issue 37): clients that send their bodies one byte at a
// time hold no slot for ever, and requests not authenticated hold a
// quarter of --max-requests at most. A server with --max-requests 8 (2
// for requests not authenticated) and a 5 s body idle timeout gets 13
// slow requests not authenticated (form uploads to a bucket that does not
// exist, console sign-ins, IAM and STS calls, whose signatures are checked
// once their forms are read) and 3 slow signed PUTs at once, bytes coming every
// second (so only the minimum rate cuts them, not the idle timeout):
// while they are held, an aws-sdk-go-v2 client's signed requests are all
// served; the anonymous ones beyond the share are refused with 503
// SlowDown, the others and the PUTs answered 400 RequestTimeout within a
// minute, and nothing of the PUTs is stored. Then a signed form whose
// file trickles (out of the share once verified), a slow form, a sign-in
// and a PUT that stop sending at all, a slow IAM call and a slow part are
// cut the same way, with nothing stored.
func TestSlowBodies(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithMaxRequests(8), testutil.WithBodyLimits(5*time.Second, 1024),
		testutil.WithFilesOnly(), testutil.WithoutFsync())
	c := srv.AWSClient(t, func(o *s3.Options) { o.RetryMaxAttempts = 1 })
	ctx := context.Background()
	itest.CreateBucket(t, c, "slow")

	var answers []<-chan slowAnswer
	for i := range 3 {
		answers = append(answers, slowPut(t, srv, fmt.Sprintf("held-%d", i), time.Second))
	}
	for i := range 6 {
		answers = append(answers, slowForm(t, srv, time.Second))
		if i%2 == 0 {
			answers = append(answers, slowSignIn(t, srv, time.Second))
		}
		if i%3 == 0 {
			answers = append(answers, slowIAM(t, srv, time.Second), slowSTS(t, srv, time.Second))
		}
	}
	// Held: the PUTs write their temp blobs, and the anonymous share is
	// full (a complete anonymous form is refused with 503 at once).
	waitTempFiles(t, srv, 3, "the slow PUTs never reached the blob writer")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, _ := itest.PostForm(t, srv.URL+"/no-such-bucket", []itest.FormField{{Name: "key", Value: "k"}}, "f", []byte("x"))
		if resp.StatusCode == http.StatusServiceUnavailable {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the anonymous share never filled: a form gets %s", resp.Status)
		}
	}
	for i := range 5 {
		key := fmt.Sprintf("fast-%d", i)
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("slow"), Key: aws.String(key), Body: strings.NewReader(key)}); err != nil {
			t.Fatalf("a signed PUT while slow bodies hold the server: %v", err)
		}
		itest.WantObject(t, c, "slow", key, []byte(key))
	}
	if entries, _ := os.ReadDir(filepath.Join(srv.DataDir, "tmp")); len(entries) != 3 {
		t.Logf("the slow PUTs were answered before the signed requests were done (%d left): a slow machine", len(entries))
	}

	got := map[string]int{}
	for _, ch := range answers {
		a := <-ch
		got[a.kind+" "+a.code]++
		switch {
		case a.status == http.StatusBadRequest && a.code == "RequestTimeout":
		case a.status == http.StatusServiceUnavailable && a.code == "SlowDown" && a.kind != "put":
		default:
			t.Errorf("slow %s: answered %d %q after %v, want 400 RequestTimeout (or 503 SlowDown beyond the anonymous share)", a.kind, a.status, a.code, a.after)
		}
	}
	if n := got["form RequestTimeout"] + got["sign-in RequestTimeout"] + got["iam RequestTimeout"] + got["sts RequestTimeout"]; n < 1 || n > 2 {
		t.Errorf("answers %v: %d anonymous requests were served, want 1 or 2 (the share)", got, n)
	}
	out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("slow"), Prefix: aws.String("held-")})
	if err != nil || len(out.Contents) != 0 {
		t.Errorf("the slow PUTs stored %d objects (%v), want none", len(out.Contents), err)
	}
	waitTempFiles(t, srv, 0, "the slow PUTs left temp files")

	// A signed form whose file trickles leaves the anonymous share once
	// its signature is verified (its file is then written); within the
	// share, a trickling form, and a sign-in and a PUT that stop sending
	// (the idle timeout), are cut; so are the signed form and a part,
	// storing nothing.
	posted := slowSignedForm(t, srv, "slow", "posted", time.Second)
	waitTempFiles(t, srv, 1, "the signed form's file is never written")
	mp, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("slow"), Key: aws.String("mp")})
	if err != nil {
		t.Fatal(err)
	}
	part := slowPut(t, srv, "mp?partNumber=1&uploadId="+url.QueryEscape(aws.ToString(mp.UploadId)), time.Second)
	for _, ch := range []<-chan slowAnswer{posted, slowForm(t, srv, time.Second), slowSignIn(t, srv, time.Hour),
		slowPut(t, srv, "stalled", time.Hour), part} {
		if a := <-ch; a.status != http.StatusBadRequest || a.code != "RequestTimeout" {
			t.Errorf("a slow %s: answered %d %q after %v, want 400 RequestTimeout", a.kind, a.status, a.code, a.after)
		}
	}
	// The share free again: an IAM and an STS call whose forms trickle
	// are cut too.
	for _, ch := range []<-chan slowAnswer{slowIAM(t, srv, time.Second), slowSTS(t, srv, time.Second)} {
		if a := <-ch; a.status != http.StatusBadRequest || a.code != "RequestTimeout" {
			t.Errorf("a slow %s: answered %d %q after %v, want 400 RequestTimeout", a.kind, a.status, a.code, a.after)
		}
	}
	itest.WantNoObject(t, c, "slow", "stalled")
	itest.WantNoObject(t, c, "slow", "posted")
	parts, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String("slow"), Key: aws.String("mp"), UploadId: mp.UploadId})
	if err != nil || len(parts.Parts) != 0 {
		t.Errorf("the slow part: %d parts stored (%v), want none", len(parts.Parts), err)
	}
	waitTempFiles(t, srv, 0, "the slow uploads left temp files")
}
