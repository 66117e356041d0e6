package integration

// Requests real clients send that JOG once got wrong: request dates in
// every form S3 accepts, Transfer-Encoding: chunked bodies without
// Content-Length, and stored headers returned byte for byte. Raw HTTP
// where no client library sends the request. Then what every request gets
// whatever its operation: request-ID headers, the health endpoints,
// NotImplemented for the operations JOG lacks, and malformed write bodies
// refused.

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"hash/crc32"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/sigv2"
	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestRequestDateForms: a request whose time is only its Date header is
// taken in every form S3 accepts — RFC 1123 with GMT or a numeric zone
// ("-0000", as Python's email.utils.formatdate writes without usegmt),
// RFC 850, asctime — signed with SigV4 (no X-Amz-Date) or SigV2; a
// skewed or malformed Date is refused and stores nothing.
func TestRequestDateForms(t *testing.T) {
	srv, c := itest.StartBucket(t, "dates")
	now := time.Now().UTC().Truncate(time.Second)
	plus2 := now.In(time.FixedZone("", 2*3600))
	forms := map[string]string{
		"rfc1123-gmt":   now.Format(http.TimeFormat),
		"rfc1123-0000":  strings.Replace(now.Format("Mon, 02 Jan 2006 15:04:05 -0700"), "+0000", "-0000", 1),
		"rfc1123-+0200": plus2.Format("Mon, 02 Jan 2006 15:04:05 -0700"),
		"rfc850":        now.Format("Monday, 02-Jan-06 15:04:05 GMT"),
		"asctime":       now.Format(time.ANSIC),
	}
	put := func(key, date string, v2 bool, at time.Time) (*http.Response, []byte) {
		body := []byte("dated " + date)
		req := itest.RawRequest(t, srv, http.MethodPut, "/dates/"+key, body)
		req.Header.Set("Date", date)
		if v2 {
			sigv2.Sign(req, testutil.AccessKey, testutil.SecretKey)
		} else {
			sigv4.SignRequestDate(req, testutil.AccessKey, testutil.SecretKey, testutil.Region, at, itest.SHA256Hex(body))
		}
		return itest.Do(t, req)
	}
	for name, date := range forms {
		for _, v2 := range []bool{false, true} {
			key := name + map[bool]string{false: "-v4", true: "-v2"}[v2]
			resp, rb := put(key, date, v2, now)
			if resp.StatusCode != http.StatusOK {
				t.Errorf("%s: Date %q: %d %s", key, date, resp.StatusCode, rb)
				continue
			}
			itest.WantObject(t, c, "dates", key, []byte("dated "+date))
		}
	}
	// The same clock reading, told to be two hours east, is skewed; a zone
	// name other than GMT/UTC or a missing zone is malformed.
	itest.Put(t, c, "dates", "kept", []byte("kept"))
	for _, v2 := range []bool{false, true} {
		skewed := now.Format("Mon, 02 Jan 2006 15:04:05") + " +0200"
		resp, rb := put("kept", skewed, v2, now.Add(-2*time.Hour))
		itest.WantRawErr(t, resp, rb, http.StatusForbidden, "RequestTimeTooSkewed")
		for _, bad := range []string{now.Format("Mon, 02 Jan 2006 15:04:05") + " PST", now.Format("Mon, 02 Jan 2006 15:04:05")} {
			resp, rb := put("kept", bad, v2, now)
			itest.WantRawErr(t, resp, rb, http.StatusForbidden, "AccessDenied")
		}
	}
	itest.WantObject(t, c, "dates", "kept", []byte("kept"))
}

// chunkedPut sends body to path with Transfer-Encoding: chunked and no
// Content-Length (net/http does so for ContentLength -1), signed with
// payloadHash ("" for the body's SHA-256) and the given extra headers.
func chunkedPut(t *testing.T, srv *testutil.Server, path string, body []byte, payloadHash string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req := itest.RawRequest(t, srv, http.MethodPut, path, nil)
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = -1
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	itest.Sign(t, req, body, itest.SignOpts{PayloadHash: payloadHash})
	return itest.Do(t, req)
}

// TestRequestChunkedTransfer: PutObject and UploadPart with
// Transfer-Encoding: chunked and no Content-Length are streamed and
// stored, inline, packed or in a file of their own, with the payload
// hash, Content-MD5 and flexible checksums verified; a mismatch stores
// nothing and leaves the previous object as it was. (The 5 GiB limit on
// a body of unknown length: service.TestWriteUnknownLengthLimit.)
func TestRequestChunkedTransfer(t *testing.T) {
	srv, c := itest.StartBucket(t, "tebucket")
	md5b64 := func(b []byte) string { s := md5.Sum(b); return base64.StdEncoding.EncodeToString(s[:]) }
	crc := func(b []byte) string {
		h := crc32.NewIEEE()
		h.Write(b)
		return base64.StdEncoding.EncodeToString(h.Sum(nil))
	}
	for _, n := range []int{0, 100, 200 << 10, 3 << 20} {
		body := itest.RandBytes(uint64(n), n)
		for _, hash := range []string{"", sigv4.UnsignedPayload} {
			resp, rb := chunkedPut(t, srv, "/tebucket/obj", body, hash, map[string]string{
				"Content-MD5": md5b64(body), "X-Amz-Checksum-Crc32": crc(body),
			})
			if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != itest.ETag(body) {
				t.Fatalf("%d bytes (%q): %d %s, ETag %s", n, hash, resp.StatusCode, rb, resp.Header.Get("ETag"))
			}
			itest.WantObject(t, c, "tebucket", "obj", body)
		}
	}
	kept := itest.RandBytes(9, 300<<10)
	itest.Put(t, c, "tebucket", "obj", kept)
	other := itest.RandBytes(10, 300<<10)
	for name, tc := range map[string]struct {
		hash string
		hdr  map[string]string
		code string
	}{
		"payload hash": {itest.SHA256Hex(kept), nil, "XAmzContentSHA256Mismatch"},
		"Content-MD5":  {"", map[string]string{"Content-MD5": md5b64(kept)}, "BadDigest"},
		"CRC32":        {sigv4.UnsignedPayload, map[string]string{"X-Amz-Checksum-Crc32": crc(kept)}, "BadDigest"},
	} {
		resp, rb := chunkedPut(t, srv, "/tebucket/obj", other, tc.hash, tc.hdr)
		if resp.StatusCode != http.StatusBadRequest || !bytes.Contains(rb, []byte("<Code>"+tc.code+"</Code>")) {
			t.Errorf("%s mismatch: %d %s, want 400 %s", name, resp.StatusCode, rb, tc.code)
		}
		itest.WantObject(t, c, "tebucket", "obj", kept)
	}

	// UploadPart, then complete.
	ctx := t.Context()
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("tebucket"), Key: aws.String("mp")})
	if err != nil {
		t.Fatal(err)
	}
	p1, p2 := itest.RandBytes(1, 5<<20), itest.RandBytes(2, 1000)
	var parts []types.CompletedPart
	for i, p := range [][]byte{p1, p2} {
		path := "/tebucket/mp?partNumber=" + string(rune('1'+i)) + "&uploadId=" + aws.ToString(up.UploadId)
		resp, rb := chunkedPut(t, srv, path, p, "", map[string]string{"Content-MD5": md5b64(p)})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("UploadPart %d: %d %s", i+1, resp.StatusCode, rb)
		}
		parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: aws.String(resp.Header.Get("ETag"))})
	}
	resp, rb := chunkedPut(t, srv, "/tebucket/mp?partNumber=3&uploadId="+aws.ToString(up.UploadId), p2, "",
		map[string]string{"Content-MD5": md5b64(p1)})
	itest.WantRawErr(t, resp, rb, http.StatusBadRequest, "BadDigest")
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket: aws.String("tebucket"), Key: aws.String("mp"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
	}); err != nil {
		t.Fatal(err)
	}
	got, _ := itest.Get(t, c, "tebucket", "mp")
	if !bytes.Equal(got, append(append([]byte{}, p1...), p2...)) {
		t.Errorf("completed object of chunked parts: %d bytes", len(got))
	}
	itest.WantNoStrayFiles(t, srv, c)
}

// TestAWSStoredHeadersVerbatim: content headers and user metadata come
// back exactly as sent — "deflate, gzip" is not rewritten to
// "deflate,gzip", case is kept — with only the aws-chunked transfer token
// removed (internal/s3api's TestStoredContentEncoding); on PutObject,
// CreateMultipartUpload and CopyObject.
func TestAWSStoredHeadersVerbatim(t *testing.T) {
	_, c := itest.StartBucket(t, "verbatim")
	ctx := t.Context()
	const (
		enc   = "deflate, GZIP"
		cache = "no-cache, max-age=0"
		disp  = `attachment; filename="a, b.txt"`
	)
	userMeta := map[string]string{"tags": "a, b,c", "spaced": "x ,  y"}
	check := func(key string) {
		t.Helper()
		out, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("verbatim"), Key: aws.String(key)})
		if err != nil {
			t.Fatal(err)
		}
		if aws.ToString(out.ContentEncoding) != enc || aws.ToString(out.CacheControl) != cache || aws.ToString(out.ContentDisposition) != disp {
			t.Errorf("%s: Content-Encoding %q, Cache-Control %q, Content-Disposition %q", key,
				aws.ToString(out.ContentEncoding), aws.ToString(out.CacheControl), aws.ToString(out.ContentDisposition))
		}
		for k, v := range userMeta {
			if out.Metadata[k] != v {
				t.Errorf("%s: x-amz-meta-%s = %q, want %q", key, k, out.Metadata[k], v)
			}
		}
	}
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String("verbatim"), Key: aws.String("put"), Body: bytes.NewReader([]byte("body")),
		ContentEncoding: aws.String(enc), CacheControl: aws.String(cache), ContentDisposition: aws.String(disp), Metadata: userMeta,
	}); err != nil {
		t.Fatal(err)
	}
	check("put")
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{
		Bucket: aws.String("verbatim"), Key: aws.String("mp"),
		ContentEncoding: aws.String(enc), CacheControl: aws.String(cache), ContentDisposition: aws.String(disp), Metadata: userMeta,
	})
	if err != nil {
		t.Fatal(err)
	}
	part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("verbatim"), Key: aws.String("mp"), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), Body: bytes.NewReader([]byte("part"))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("verbatim"), Key: aws.String("mp"),
		UploadId: up.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: part.ETag}}}}); err != nil {
		t.Fatal(err)
	}
	check("mp")
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("verbatim"), Key: aws.String("copy"), CopySource: aws.String("verbatim/put"),
		MetadataDirective: types.MetadataDirectiveReplace,
		ContentEncoding:   aws.String(enc), CacheControl: aws.String(cache), ContentDisposition: aws.String(disp), Metadata: userMeta}); err != nil {
		t.Fatal(err)
	}
	check("copy")
}

func TestAWSRequestIDHeaders(t *testing.T) {
	srv, c := itest.StartBucket(t, "ids")
	itest.Put(t, c, "ids", "k", []byte("x"))
	seen := map[string]bool{}
	check := func(name string, req *http.Request, wantStatus int) {
		t.Helper()
		resp, _ := itest.Do(t, req)
		if resp.StatusCode != wantStatus {
			t.Errorf("%s: status %d, want %d", name, resp.StatusCode, wantStatus)
		}
		itest.WantRequestIDs(t, resp)
		id := resp.Header.Get("X-Amz-Request-Id")
		if seen[id] {
			t.Errorf("%s: request ID %q reused", name, id)
		}
		seen[id] = true
	}
	signedReq := func(method, path string) *http.Request {
		req := itest.RawRequest(t, srv, method, path, nil)
		itest.Sign(t, req, nil, itest.SignOpts{})
		return req
	}
	check("ListBuckets", signedReq(http.MethodGet, "/"), http.StatusOK)
	check("GetObject", signedReq(http.MethodGet, "/ids/k"), http.StatusOK)
	check("HeadObject", signedReq(http.MethodHead, "/ids/k"), http.StatusOK)
	check("DeleteObject", signedReq(http.MethodDelete, "/ids/nothing"), http.StatusNoContent)
	check("NoSuchKey", signedReq(http.MethodGet, "/ids/missing"), http.StatusNotFound)
	check("HEAD NoSuchKey", signedReq(http.MethodHead, "/ids/missing"), http.StatusNotFound)
	check("NoSuchBucket", signedReq(http.MethodGet, "/nobucket"), http.StatusNotFound)
	check("unsigned", itest.RawRequest(t, srv, http.MethodGet, "/ids/k", nil), http.StatusForbidden)
	check("method not allowed", signedReq(http.MethodPatch, "/ids/k"), http.StatusMethodNotAllowed)
	check("not implemented", signedReq(http.MethodDelete, "/ids?website"), http.StatusNotImplemented)

	// The SDK sees the same IDs in its error type.
	_, err := c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String("ids"), Key: aws.String("missing")})
	if itest.ErrHeader(err, "X-Amz-Request-Id") == "" || itest.ErrHeader(err, "X-Amz-Id-2") == "" {
		t.Errorf("SDK error without request IDs: %v", err)
	}
	if !strings.Contains(err.Error(), "RequestID: "+itest.ErrHeader(err, "X-Amz-Request-Id")) {
		t.Errorf("SDK error does not name the request ID: %v", err)
	}
}

func TestAWSHealthEndpoints(t *testing.T) {
	srv, _ := itest.Start(t)
	for _, path := range []string{"/health/live", "/health/ready"} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			resp, _ := itest.Do(t, itest.RawRequest(t, srv, method, path, nil))
			if resp.StatusCode != http.StatusOK {
				t.Errorf("%s %s without auth: %d, want 200", method, path, resp.StatusCode)
			}
		}
	}
	// Only the health paths are open: anything else unsigned is refused.
	for _, path := range []string{"/health", "/health/other", "/"} {
		resp, body := itest.Do(t, itest.RawRequest(t, srv, http.MethodGet, path, nil))
		itest.WantRawErr(t, resp, body, http.StatusForbidden, "AccessDenied")
	}
}

func TestAWSNotImplemented(t *testing.T) {
	srv, c := itest.StartBucket(t, "unimpl")
	itest.Put(t, c, "unimpl", "k", []byte("x"))
	ctx := context.Background()
	b, k := aws.String("unimpl"), aws.String("k")
	for name, call := range map[string]func() error{
		// Their GETs answer the empty state (config_reads_test.go).
		"DeleteBucketWebsite": func() error {
			_, err := c.DeleteBucketWebsite(ctx, &s3.DeleteBucketWebsiteInput{Bucket: b})
			return err
		},
		"GetObjectTorrent": func() error {
			_, err := c.GetObjectTorrent(ctx, &s3.GetObjectTorrentInput{Bucket: b, Key: k})
			return err
		},
	} {
		err := call()
		if code, status := itest.ErrInfo(err); code != "NotImplemented" || status != http.StatusNotImplemented {
			t.Errorf("%s: got %d %q (%v), want 501 NotImplemented", name, status, code, err)
		}
	}
	// None of them touched the data.
	itest.WantObject(t, c, "unimpl", "k", []byte("x"))
	itest.WantNoObject(t, c, "unimpl", "mpu")

	// Unsupported methods on a real resource.
	for _, tc := range []struct{ method, path string }{{http.MethodPatch, "/unimpl/k"}, {http.MethodPost, "/unimpl/k"}, {http.MethodPost, "/unimpl"}} {
		req := itest.RawRequest(t, srv, tc.method, tc.path, nil)
		itest.Sign(t, req, nil, itest.SignOpts{})
		resp, body := itest.Do(t, req)
		itest.WantRawErr(t, resp, body, http.StatusMethodNotAllowed, "MethodNotAllowed")
	}
	itest.WantObject(t, c, "unimpl", "k", []byte("x"))
}

// Malformed write requests are refused before anything is stored.
func TestAWSMalformedWrites(t *testing.T) {
	srv, c := itest.StartBucket(t, "malformed")
	itest.Put(t, c, "malformed", "k", []byte("kept"))

	// (A PUT without Content-Length, with Transfer-Encoding: chunked, is
	// taken: TestRequestChunkedTransfer.)

	// CreateBucket with a body that is not a CreateBucketConfiguration.
	var (
		req  *http.Request
		resp *http.Response
		body []byte
	)
	for _, b := range []string{"<CreateBucketConfiguration><LocationConstraint>", "not xml at all", "<Other/>"} {
		req = itest.RawRequest(t, srv, http.MethodPut, "/newbucket", []byte(b))
		itest.Sign(t, req, []byte(b), itest.SignOpts{})
		resp, body = itest.Do(t, req)
		itest.WantRawErr(t, resp, body, http.StatusBadRequest, "MalformedXML")
	}
	_, err := c.HeadBucket(context.Background(), &s3.HeadBucketInput{Bucket: aws.String("newbucket")})
	itest.WantErr(t, err, http.StatusNotFound, "NotFound")

	// DeleteObjects with a broken or empty body.
	for _, b := range []string{"<Delete><Object><Key>k</Key></Object>", "<Delete></Delete>", ""} {
		req = itest.RawRequest(t, srv, http.MethodPost, "/malformed?delete", []byte(b))
		itest.Sign(t, req, []byte(b), itest.SignOpts{})
		resp, body = itest.Do(t, req)
		itest.WantRawErr(t, resp, body, http.StatusBadRequest, "MalformedXML")
	}
	// DeleteObjects whose Content-MD5 does not match its body.
	b := []byte("<Delete><Object><Key>k</Key></Object></Delete>")
	req = itest.RawRequest(t, srv, http.MethodPost, "/malformed?delete", b)
	req.Header.Set("Content-MD5", "1B2M2Y8AsgTpgAmY7PhCfg==")
	itest.Sign(t, req, b, itest.SignOpts{})
	resp, body = itest.Do(t, req)
	itest.WantRawErr(t, resp, body, http.StatusBadRequest, "BadDigest")
	itest.WantObject(t, c, "malformed", "k", []byte("kept"))
	itest.WantNoStrayFiles(t, srv, c)
}
