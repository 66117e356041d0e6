package integration

// Requests real clients send that JOG once got wrong: request dates in
// every form S3 accepts, Transfer-Encoding: chunked bodies without
// Content-Length, and stored headers returned byte for byte. Raw HTTP
// where no client library sends the request.

import (
	"bytes"
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
)

// TestRequestDateForms: a request whose time is only its Date header is
// taken in every form S3 accepts — RFC 1123 with GMT or a numeric zone
// ("-0000", as Python's email.utils.formatdate writes without usegmt),
// RFC 850, asctime — signed with SigV4 (no X-Amz-Date) or SigV2; a
// skewed or malformed Date is refused and stores nothing.
func TestRequestDateForms(t *testing.T) {
	srv, c := awsStartBucket(t, "dates")
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
		req := awsRawRequest(t, srv, http.MethodPut, "/dates/"+key, body)
		req.Header.Set("Date", date)
		if v2 {
			sigv2.Sign(req, testutil.AccessKey, testutil.SecretKey)
		} else {
			sigv4.SignRequestDate(req, testutil.AccessKey, testutil.SecretKey, testutil.Region, at, awsSHA256Hex(body))
		}
		return awsDo(t, req)
	}
	for name, date := range forms {
		for _, v2 := range []bool{false, true} {
			key := name + map[bool]string{false: "-v4", true: "-v2"}[v2]
			resp, rb := put(key, date, v2, now)
			if resp.StatusCode != http.StatusOK {
				t.Errorf("%s: Date %q: %d %s", key, date, resp.StatusCode, rb)
				continue
			}
			awsWantObject(t, c, "dates", key, []byte("dated "+date))
		}
	}
	// The same clock reading, told to be two hours east, is skewed; a zone
	// name other than GMT/UTC or a missing zone is malformed.
	awsMustPut(t, c, "dates", "kept", []byte("kept"))
	for _, v2 := range []bool{false, true} {
		skewed := now.Format("Mon, 02 Jan 2006 15:04:05") + " +0200"
		resp, rb := put("kept", skewed, v2, now.Add(-2*time.Hour))
		awsWantRawErr(t, resp, rb, http.StatusForbidden, "RequestTimeTooSkewed")
		for _, bad := range []string{now.Format("Mon, 02 Jan 2006 15:04:05") + " PST", now.Format("Mon, 02 Jan 2006 15:04:05")} {
			resp, rb := put("kept", bad, v2, now)
			awsWantRawErr(t, resp, rb, http.StatusForbidden, "AccessDenied")
		}
	}
	awsWantObject(t, c, "dates", "kept", []byte("kept"))
}

// chunkedPut sends body to path with Transfer-Encoding: chunked and no
// Content-Length (net/http does so for ContentLength -1), signed with
// payloadHash ("" for the body's SHA-256) and the given extra headers.
func chunkedPut(t *testing.T, srv *testutil.Server, path string, body []byte, payloadHash string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req := awsRawRequest(t, srv, http.MethodPut, path, nil)
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = -1
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	awsSign(t, req, body, awsSignOpts{payloadHash: payloadHash})
	return awsDo(t, req)
}

// TestRequestChunkedTransfer: PutObject and UploadPart with
// Transfer-Encoding: chunked and no Content-Length are streamed and
// stored, inline, packed or in a file of their own, with the payload
// hash, Content-MD5 and flexible checksums verified; a mismatch stores
// nothing and leaves the previous object as it was. (The 5 GiB limit on
// a body of unknown length: service.TestWriteUnknownLengthLimit.)
func TestRequestChunkedTransfer(t *testing.T) {
	srv, c := awsStartBucket(t, "tebucket")
	md5b64 := func(b []byte) string { s := md5.Sum(b); return base64.StdEncoding.EncodeToString(s[:]) }
	crc := func(b []byte) string {
		h := crc32.NewIEEE()
		h.Write(b)
		return base64.StdEncoding.EncodeToString(h.Sum(nil))
	}
	for _, n := range []int{0, 100, 200 << 10, 3 << 20} {
		body := awsRandBytes(uint64(n), n)
		for _, hash := range []string{"", sigv4.UnsignedPayload} {
			resp, rb := chunkedPut(t, srv, "/tebucket/obj", body, hash, map[string]string{
				"Content-MD5": md5b64(body), "X-Amz-Checksum-Crc32": crc(body),
			})
			if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != awsETag(body) {
				t.Fatalf("%d bytes (%q): %d %s, ETag %s", n, hash, resp.StatusCode, rb, resp.Header.Get("ETag"))
			}
			awsWantObject(t, c, "tebucket", "obj", body)
		}
	}
	kept := awsRandBytes(9, 300<<10)
	awsMustPut(t, c, "tebucket", "obj", kept)
	other := awsRandBytes(10, 300<<10)
	for name, tc := range map[string]struct {
		hash string
		hdr  map[string]string
		code string
	}{
		"payload hash": {awsSHA256Hex(kept), nil, "XAmzContentSHA256Mismatch"},
		"Content-MD5":  {"", map[string]string{"Content-MD5": md5b64(kept)}, "BadDigest"},
		"CRC32":        {sigv4.UnsignedPayload, map[string]string{"X-Amz-Checksum-Crc32": crc(kept)}, "BadDigest"},
	} {
		resp, rb := chunkedPut(t, srv, "/tebucket/obj", other, tc.hash, tc.hdr)
		if resp.StatusCode != http.StatusBadRequest || !bytes.Contains(rb, []byte("<Code>"+tc.code+"</Code>")) {
			t.Errorf("%s mismatch: %d %s, want 400 %s", name, resp.StatusCode, rb, tc.code)
		}
		awsWantObject(t, c, "tebucket", "obj", kept)
	}

	// UploadPart, then complete.
	ctx := t.Context()
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("tebucket"), Key: aws.String("mp")})
	if err != nil {
		t.Fatal(err)
	}
	p1, p2 := awsRandBytes(1, 5<<20), awsRandBytes(2, 1000)
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
	awsWantRawErr(t, resp, rb, http.StatusBadRequest, "BadDigest")
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket: aws.String("tebucket"), Key: aws.String("mp"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
	}); err != nil {
		t.Fatal(err)
	}
	got, _ := awsMustGet(t, c, "tebucket", "mp")
	if !bytes.Equal(got, append(append([]byte{}, p1...), p2...)) {
		t.Errorf("completed object of chunked parts: %d bytes", len(got))
	}
	awsWantNoStrayFiles(t, srv, c)
}

// TestAWSStoredHeadersVerbatim: content headers and user metadata come
// back exactly as sent — "deflate, gzip" is not rewritten to
// "deflate,gzip", case is kept — with only the aws-chunked transfer token
// removed (internal/s3api's TestStoredContentEncoding); on PutObject,
// CreateMultipartUpload and CopyObject.
func TestAWSStoredHeadersVerbatim(t *testing.T) {
	_, c := awsStartBucket(t, "verbatim")
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
