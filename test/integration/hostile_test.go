package integration

// Hostile and broken input, sent as raw HTTP where a client library would
// refuse to produce it. Every test asserts the exact refusal and that the
// data already stored is untouched afterwards.
//
// Covered elsewhere, so not repeated here: malformed CreateBucket and
// DeleteObjects XML and a DeleteObjects Content-MD5 mismatch
// (TestAWSMalformedWrites), DeleteObjects with 1001 keys
// (TestAWSDeleteObjects), keys over 1024 bytes (TestAWSKeyLength), a body
// altered after signing (TestAWSAuthFailures, TestAWSAuthPayloadMismatchLarge),
// tampered presigned URLs (TestAWSPresignedTampered), signed headers, path
// or query changed after signing (TestAWSAuthFailures).

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// hostileReq builds a request for srv. target is the path and query exactly
// as they go on the wire.
func hostileReq(t *testing.T, srv *testutil.Server, method, target string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+target, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// hostileSign signs req for the test credentials with the given payload
// hash (sigv4.UnsignedPayload, or the hex SHA-256 of the body).
func hostileSign(req *http.Request, payloadHash string) {
	sigv4.SignRequest(req, testutil.AccessKey, testutil.SecretKey, testutil.Region, time.Now(), payloadHash)
}

// rawHead renders req's request line and headers as they go on the wire,
// then extra header lines verbatim (duplicates, bad values), without the
// blank line that ends the head.
func rawHead(req *http.Request, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\n", req.Method, req.URL.RequestURI(), req.Host)
	keys := make([]string, 0, len(req.Header))
	for k := range req.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range req.Header[k] {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	for _, l := range extra {
		b.WriteString(l + "\r\n")
	}
	return b.String()
}

// rawExchange sends head and body over a new TCP connection, writing the
// body while it reads the response, so a server that answers before
// reading the whole body is seen doing so. It returns the response (nil if
// the connection ended without one), its body, and how many body bytes the
// server let the client write.
func rawExchange(t *testing.T, srv *testutil.Server, req *http.Request, head string, body io.Reader) (*http.Response, []byte, int64) {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, head+"\r\n"); err != nil {
		t.Fatal(err)
	}
	var sent atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		if body == nil {
			return
		}
		buf := make([]byte, 64<<10)
		for {
			n, rerr := body.Read(buf)
			if n > 0 {
				m, werr := conn.Write(buf[:n])
				sent.Add(int64(m))
				if werr != nil {
					return
				}
			}
			if rerr != nil {
				return
			}
		}
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	var rb []byte
	if err == nil {
		rb, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
	} else {
		resp = nil
	}
	conn.Close()
	<-done
	return resp, rb, sent.Load()
}

// spaceReader is an endless source of XML whitespace.
type spaceReader struct{}

func (spaceReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// xmlBody is prefix followed by whitespace, n bytes in all.
func xmlBody(prefix string, n int64) io.Reader {
	return io.MultiReader(strings.NewReader(prefix), io.LimitReader(spaceReader{}, n-int64(len(prefix))))
}

// hostileStart starts a server with bucket "hostile" holding "keep".
func hostileStart(t *testing.T) (*testutil.Server, *s3.Client, []byte) {
	t.Helper()
	srv, c := itest.StartBucket(t, "hostile")
	keep := itest.RandBytes(77, 300<<10)
	itest.Put(t, c, "hostile", "keep", keep)
	return srv, c, keep
}

// hostileUpload starts a multipart upload of key with one part.
func hostileUpload(t *testing.T, c *s3.Client, key string) (id string, part types.CompletedPart) {
	t.Helper()
	ctx := context.Background()
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("hostile"), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("hostile"), Key: aws.String(key), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), Body: bytes.NewReader([]byte("part one"))})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(up.UploadId), types.CompletedPart{PartNumber: aws.Int32(1), ETag: out.ETag}
}

// wantParts asserts that upload id of key holds exactly the given parts.
func wantParts(t *testing.T, c *s3.Client, key, id string, want ...types.CompletedPart) {
	t.Helper()
	out, err := c.ListParts(context.Background(), &s3.ListPartsInput{Bucket: aws.String("hostile"), Key: aws.String(key), UploadId: aws.String(id)})
	if err != nil {
		t.Fatalf("ListParts: %v", err)
	}
	if len(out.Parts) != len(want) {
		t.Fatalf("upload has %d parts, want %d", len(out.Parts), len(want))
	}
	for i, p := range out.Parts {
		if aws.ToInt32(p.PartNumber) != aws.ToInt32(want[i].PartNumber) || aws.ToString(p.ETag) != aws.ToString(want[i].ETag) {
			t.Fatalf("part %d is %d %s, want %d %s", i, aws.ToInt32(p.PartNumber), aws.ToString(p.ETag),
				aws.ToInt32(want[i].PartNumber), aws.ToString(want[i].ETag))
		}
	}
}

// hostileKeys lists the bucket's keys.
func hostileKeys(t *testing.T, c *s3.Client) []string {
	t.Helper()
	out, err := c.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String("hostile")})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range out.Contents {
		keys = append(keys, aws.ToString(o.Key))
	}
	return keys
}

// TestHostileCompleteXML: malformed CompleteMultipartUpload documents, and
// one naming 10,001 parts, are MalformedXML; the upload keeps its parts.
func TestHostileCompleteXML(t *testing.T) {
	srv, c, keep := hostileStart(t)
	id, p1 := hostileUpload(t, c, "mp")
	for _, body := range []string{
		"<CompleteMultipartUpload><Part>", "not xml", "<Other/>", "",
		"<CompleteMultipartUpload></CompleteMultipartUpload>",
		"<CompleteMultipartUpload><Part><PartNumber>one</PartNumber></Part></CompleteMultipartUpload>",
		"<CompleteMultipartUpload>" + strings.Repeat("<Part><PartNumber>1</PartNumber><ETag>"+aws.ToString(p1.ETag)+"</ETag></Part>", 10001) + "</CompleteMultipartUpload>",
		"<!DOCTYPE lol [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;&lol;\">]><CompleteMultipartUpload>&lol2;</CompleteMultipartUpload>",
	} {
		req := hostileReq(t, srv, http.MethodPost, "/hostile/mp?uploadId="+id)
		req.Body, req.ContentLength = io.NopCloser(strings.NewReader(body)), int64(len(body))
		itest.Sign(t, req, []byte(body), itest.SignOpts{})
		resp, rb := itest.Do(t, req)
		itest.WantRawErr(t, resp, rb, http.StatusBadRequest, "MalformedXML")
	}
	wantParts(t, c, "mp", id, p1)
	itest.WantNoObject(t, c, "hostile", "mp")
	itest.WantObject(t, c, "hostile", "keep", keep)
}

// TestHostileOversizedXML: XML bodies over the 4 MiB cap, for each
// operation that parses one, are refused with MaxMessageLengthExceeded —
// one byte over, and 256 MiB, of which the server must not read more than
// the cap (the client cannot push the rest before the answer comes).
func TestHostileOversizedXML(t *testing.T) {
	srv, c, keep := hostileStart(t)
	id, p1 := hostileUpload(t, c, "mp")
	const limit = 4 << 20
	for _, op := range []struct{ name, method, target, prefix string }{
		{"CreateBucket", http.MethodPut, "/newbucket", "<CreateBucketConfiguration>"},
		{"DeleteObjects", http.MethodPost, "/hostile?delete", "<Delete><Object><Key>keep</Key></Object>"},
		{"CompleteMultipartUpload", http.MethodPost, "/hostile/mp?uploadId=" + id, "<CompleteMultipartUpload>"},
	} {
		for _, size := range []int64{limit + 1, 256 << 20} {
			t.Run(fmt.Sprintf("%s/%d", op.name, size), func(t *testing.T) {
				req := hostileReq(t, srv, op.method, op.target)
				hostileSign(req, sigv4.UnsignedPayload)
				start := time.Now()
				resp, rb, sent := rawExchange(t, srv, req, rawHead(req, "Content-Length: "+strconv.FormatInt(size, 10)), xmlBody(op.prefix, size))
				if resp == nil {
					t.Fatalf("no response after %d bytes sent", sent)
				}
				itest.WantRawErr(t, resp, rb, http.StatusBadRequest, "MaxMessageLengthExceeded")
				if size > limit+1 && sent > 64<<20 {
					t.Errorf("the server let the client send %d of %d bytes: it reads past the cap", sent, size)
				}
				t.Logf("%d-byte body: refused after %d bytes sent, in %v", size, sent, time.Since(start).Round(time.Millisecond))
			})
		}
	}
	_, err := c.HeadBucket(context.Background(), &s3.HeadBucketInput{Bucket: aws.String("newbucket")})
	itest.WantErr(t, err, http.StatusNotFound, "NotFound")
	wantParts(t, c, "mp", id, p1)
	itest.WantObject(t, c, "hostile", "keep", keep)
}

// TestHostileInvalidUTF8Keys: keys that are not valid UTF-8 (raw %FF,
// an overlong or truncated sequence) are refused by every write with 400
// InvalidArgument; a read is just NoSuchKey; nothing is stored.
func TestHostileInvalidUTF8Keys(t *testing.T) {
	srv, c, keep := hostileStart(t)
	for _, k := range []string{"%FF", "a%C3%28b", "%C0%AF", "dir/%ED%A0%80", "%E2%82"} {
		for _, w := range []struct {
			method, target, header string
			body                   []byte
		}{
			{http.MethodPut, "/hostile/" + k, "", []byte("x")},
			{http.MethodPut, "/hostile/" + k, "X-Amz-Copy-Source: /hostile/keep", nil},
			{http.MethodPost, "/hostile/" + k + "?uploads", "", nil},
			{http.MethodDelete, "/hostile/" + k, "", nil},
		} {
			req := hostileReq(t, srv, w.method, w.target)
			if w.header != "" {
				name, value, _ := strings.Cut(w.header, ": ")
				req.Header.Set(name, value)
			}
			if w.body != nil {
				req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(w.body)), int64(len(w.body))
			}
			hostileSign(req, itest.SHA256Hex(w.body))
			resp, rb := itest.Do(t, req)
			itest.WantRawErr(t, resp, rb, http.StatusBadRequest, "InvalidArgument")
		}
		req := hostileReq(t, srv, http.MethodGet, "/hostile/"+k)
		hostileSign(req, itest.SHA256Hex(nil))
		resp, rb := itest.Do(t, req)
		itest.WantRawErr(t, resp, rb, http.StatusNotFound, "NoSuchKey")
	}
	if keys := hostileKeys(t, c); !slices.Equal(keys, []string{"keep"}) {
		t.Fatalf("keys after refused writes: %q", keys)
	}
	itest.WantObject(t, c, "hostile", "keep", keep)
	itest.WantNoStrayFiles(t, srv, c)
}

// dirTree lists every path under root with its size and mode.
func dirTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = fmt.Sprintf("%v %d", info.Mode(), info.Size())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// blobName is a committed blob's path inside the data dir.
var blobName = regexp.MustCompile(`^blobs/([0-9a-f]{2})/([0-9a-f]{2})/([0-9a-f]{32})$`)

// wantDataLayout asserts that every file in the data dir is part of its
// documented layout: the database, the lock, credentials, the IAM server
// key (created at start, when the IAM service opens), committed blobs
// under their fan-out directories, and an empty tmp/. No object key ever
// shows up as a file name.
func wantDataLayout(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && (rel == "." || rel == "blobs" || rel == "tmp" || rel == "packs" || regexp.MustCompile(`^blobs/[0-9a-f]{2}(/[0-9a-f]{2})?$`).MatchString(rel)):
		case !d.IsDir() && slices.Contains([]string{"jog.db", "jog.db-wal", "jog.db-shm", "jog.lock", "credentials.json", datadir.IAMKeyFile,
			datadir.SSEKeyFile, kms.KeysFile, kms.KeysFile + ".lock"}, rel):
		// The bucket log spool (internal/bucketlog): a directory per gateway.
		case d.IsDir() && regexp.MustCompile(`^bucketlog(/[0-9a-f]{16})?$`).MatchString(rel):
		case !d.IsDir() && regexp.MustCompile(`^bucketlog/[0-9a-f]{16}/(current|lock|sealed-[0-9]+(-[0-9a-f]{16})*)$`).MatchString(rel):
		case !d.IsDir() && regexp.MustCompile(`^packs/[0-9a-f]{32}$`).MatchString(rel):
		case !d.IsDir() && blobName.MatchString(rel):
			m := blobName.FindStringSubmatch(rel)
			if m[3][:2] != m[1] || m[3][2:4] != m[2] {
				t.Errorf("blob %s in the wrong fan-out directory", rel)
			}
		default:
			t.Errorf("unexpected file in the data dir: %s", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestHostilePathTraversal: "..", "%2e%2e%2f" and friends in keys are
// ordinary keys, stored and read back under exactly that name; in bucket
// names they are InvalidBucketName (create) or NoSuchBucket (object
// operations). Nothing is created outside the data dir, and every file in
// it belongs to the data layout.
func TestHostilePathTraversal(t *testing.T) {
	srv, c, keep := hostileStart(t)
	parent := filepath.Dir(srv.DataDir)
	outside := func() map[string]string {
		tree := dirTree(t, parent)
		for p := range tree {
			if p == srv.DataDir || strings.HasPrefix(p, srv.DataDir+string(filepath.Separator)) {
				delete(tree, p)
			}
		}
		return tree
	}
	before := outside()
	passwd, _ := os.Stat("/etc/passwd")

	// Keys: what goes on the wire → the key it must name.
	keys := []struct{ wire, key string }{
		{"../../etc/passwd", "../../etc/passwd"},
		{"..%2F..%2F..%2Fetc%2Fpasswd", "../../../etc/passwd"},
		{"%2e%2e%2f%2e%2e%2fjog.db", "../../jog.db"},
		{"..", ".."},
		{"../", "../"},
		{"a/../../b", "a/../../b"},
		{"/../x", "/../x"},
		{"..%5C..%5Cwindows%5Cwin.ini", `..\..\windows\win.ini`},
		{"%252e%252e%252f", "%2e%2e%2f"},
		{"tmp/..%2F..%2Fblobs", "tmp/../../blobs"},
	}
	for i, k := range keys {
		body := []byte(fmt.Sprintf("traversal %d", i))
		req := hostileReq(t, srv, http.MethodPut, "/hostile/"+k.wire)
		req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		hostileSign(req, itest.SHA256Hex(body))
		if resp, rb := itest.Do(t, req); resp.StatusCode != http.StatusOK {
			t.Fatalf("PUT /hostile/%s: %d %s", k.wire, resp.StatusCode, rb)
		}
		itest.WantObject(t, c, "hostile", k.key, body) // through the SDK, by key
	}
	got := hostileKeys(t, c)
	for _, k := range keys {
		if !slices.Contains(got, k.key) {
			t.Errorf("key %q not listed: %q", k.key, got)
		}
	}
	if len(got) != len(keys)+1 {
		t.Errorf("listed %d keys for %d PUTs + keep: %q", len(got), len(keys), got)
	}

	// Bucket names.
	for _, target := range []string{"/..", "/%2e%2e", "/.", "/..%2F..", "/%2e%2e%2fetc"} {
		req := hostileReq(t, srv, http.MethodPut, target)
		hostileSign(req, itest.SHA256Hex(nil))
		resp, rb := itest.Do(t, req)
		if target == "/..%2F.." || target == "/%2e%2e%2fetc" {
			// The decoded path is "/../..": bucket "..", key "..": an object PUT.
			itest.WantRawErr(t, resp, rb, http.StatusNotFound, "NoSuchBucket")
			continue
		}
		itest.WantRawErr(t, resp, rb, http.StatusBadRequest, "InvalidBucketName")
	}
	for _, target := range []string{"/../hostile/keep", "/%2e%2e/x", "/../../etc/passwd"} {
		body := []byte("escape")
		req := hostileReq(t, srv, http.MethodPut, target)
		req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		hostileSign(req, itest.SHA256Hex(body))
		resp, rb := itest.Do(t, req)
		itest.WantRawErr(t, resp, rb, http.StatusNotFound, "NoSuchBucket")
	}
	lb, err := c.ListBuckets(context.Background(), &s3.ListBucketsInput{})
	if err != nil || len(lb.Buckets) != 1 {
		t.Fatalf("buckets: %+v %v", lb, err)
	}

	after := outside()
	for p, v := range after {
		if before[p] != v {
			t.Errorf("outside the data dir: %s changed or appeared (%s)", p, v)
		}
	}
	if now, _ := os.Stat("/etc/passwd"); passwd != nil && (now.ModTime() != passwd.ModTime() || now.Size() != passwd.Size()) {
		t.Errorf("/etc/passwd changed")
	}
	wantDataLayout(t, srv.DataDir)
	itest.WantObject(t, c, "hostile", "keep", keep)
	itest.WantNoStrayFiles(t, srv, c)
}

// TestHostileDuplicates: duplicated or conflicting headers and query
// parameters. Conflicting Content-Length never reaches JOG (net/http's 400);
// two dates or two Authorization headers fail authentication; a repeated
// query parameter is 400 InvalidArgument. Nothing changes.
func TestHostileDuplicates(t *testing.T) {
	srv, c, keep := hostileStart(t)
	id, p1 := hostileUpload(t, c, "mp")
	evil := []byte("evil!")

	t.Run("two Content-Length", func(t *testing.T) {
		req := hostileReq(t, srv, http.MethodPut, "/hostile/keep")
		hostileSign(req, sigv4.UnsignedPayload)
		resp, rb, _ := rawExchange(t, srv, req, rawHead(req, "Content-Length: 5", "Content-Length: 6"), bytes.NewReader(append(evil, '!')))
		if resp == nil || resp.StatusCode != http.StatusBadRequest || resp.Header.Get("X-Amz-Request-Id") != "" {
			t.Fatalf("two Content-Length headers: %v %q; want net/http's 400", resp, rb)
		}
		// Equal duplicates are one header (RFC 9110 §8.6): accepted.
		req = hostileReq(t, srv, http.MethodPut, "/hostile/same-length")
		hostileSign(req, sigv4.UnsignedPayload)
		resp, rb, _ = rawExchange(t, srv, req, rawHead(req, "Content-Length: 5", "Content-Length: 5"), bytes.NewReader(evil))
		if resp == nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("two equal Content-Length headers: %v %q", resp, rb)
		}
		itest.WantObject(t, c, "hostile", "same-length", evil)
	})

	header := []struct {
		name, extra  string
		status       int
		code         string
		payloadHash  string
		replaceValue bool
	}{
		{"second x-amz-date", "X-Amz-Date: " + time.Now().Add(-time.Hour).UTC().Format(sigv4.AmzDateFormat), http.StatusForbidden, "SignatureDoesNotMatch", "", false},
		{"second Authorization", "Authorization: AWS4-HMAC-SHA256 Credential=" + testutil.AccessKey + "/20200101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00", http.StatusBadRequest, "AuthorizationHeaderMalformed", "", false},
		{"second x-amz-content-sha256", "X-Amz-Content-Sha256: UNSIGNED-PAYLOAD", http.StatusBadRequest, "InvalidArgument", "", false},
	}
	for _, h := range header {
		t.Run(h.name, func(t *testing.T) {
			req := hostileReq(t, srv, http.MethodPut, "/hostile/keep")
			hostileSign(req, itest.SHA256Hex(evil))
			resp, rb, _ := rawExchange(t, srv, req, rawHead(req, h.extra, "Content-Length: 5"), bytes.NewReader(evil))
			if resp == nil {
				t.Fatal("no response")
			}
			itest.WantRawErr(t, resp, rb, h.status, h.code)
		})
	}

	for _, q := range []struct{ method, target string }{
		{http.MethodPut, "/hostile/mp?partNumber=1&uploadId=nosuch&uploadId=" + id},
		{http.MethodPut, "/hostile/mp?partNumber=1&uploadId=" + id + "&uploadId=nosuch"},
		{http.MethodPut, "/hostile/mp?partNumber=1&partNumber=2&uploadId=" + id},
		{http.MethodPost, "/hostile/mp?uploadId=" + id + "&uploadId=" + id},
		{http.MethodDelete, "/hostile/mp?uploadId=" + id + "&uploadId=x"},
		{http.MethodGet, "/hostile?list-type=2&list-type=1"},
		{http.MethodGet, "/hostile?prefix=a&prefix=k"},
		{http.MethodGet, "/hostile/keep?versionId=null&versionId=other"},
		{http.MethodPost, "/hostile?delete&delete"},
		{http.MethodDelete, "/hostile/keep?versionId=null&versionId=null"},
	} {
		t.Run(q.method+" "+q.target, func(t *testing.T) {
			req := hostileReq(t, srv, q.method, q.target)
			var body []byte
			switch {
			case strings.Contains(q.target, "delete"):
				body = []byte("<Delete><Object><Key>keep</Key></Object></Delete>")
			case q.method == http.MethodPost:
				body = []byte("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>" + aws.ToString(p1.ETag) + "</ETag></Part></CompleteMultipartUpload>")
			case q.method == http.MethodPut:
				body = evil
			}
			if body != nil {
				req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
			}
			hostileSign(req, itest.SHA256Hex(body))
			resp, rb := itest.Do(t, req)
			itest.WantRawErr(t, resp, rb, http.StatusBadRequest, "InvalidArgument")
		})
	}
	wantParts(t, c, "mp", id, p1)
	itest.WantObject(t, c, "hostile", "keep", keep)
}
