package integration

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

func TestAWSObjectRoundTrip(t *testing.T) {
	srv, c := awsStartBucket(t, "roundtrip")
	ctx := context.Background()
	body := []byte("hello, round trip\x00\xff binary tail")
	expires := time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)
	userMeta := map[string]string{"color": "blue", "mixed-case": "Value With Spaces", "empty-ish": "-"}

	before := time.Now().Add(-time.Second).Truncate(time.Second)
	awsMustPut(t, c, "roundtrip", "doc.txt", body, func(in *s3.PutObjectInput) {
		in.ContentType = aws.String("text/plain; charset=utf-8")
		in.ContentEncoding = aws.String("gzip")
		in.ContentDisposition = aws.String(`attachment; filename="doc.txt"`)
		in.ContentLanguage = aws.String("de-DE")
		in.CacheControl = aws.String("max-age=3600, must-revalidate")
		in.Expires = aws.Time(expires)
		in.Metadata = map[string]string{"Color": "blue", "Mixed-Case": "Value With Spaces", "empty-ish": "-"}
	})
	after := time.Now().Add(time.Second)

	check := func(op string, etag *string, length *int64, lm *time.Time, ct, ce, cd, cl, cc, exp *string, um map[string]string) {
		t.Helper()
		if got := aws.ToString(etag); got != awsETag(body) {
			t.Errorf("%s ETag %s, want %s", op, got, awsETag(body))
		}
		if got := aws.ToInt64(length); got != int64(len(body)) {
			t.Errorf("%s Content-Length %d, want %d", op, got, len(body))
		}
		if lm == nil || lm.Before(before) || lm.After(after) {
			t.Errorf("%s Last-Modified %v not in [%v, %v]", op, lm, before, after)
		}
		for _, h := range []struct{ name, got, want string }{
			{"Content-Type", aws.ToString(ct), "text/plain; charset=utf-8"},
			{"Content-Encoding", aws.ToString(ce), "gzip"},
			{"Content-Disposition", aws.ToString(cd), `attachment; filename="doc.txt"`},
			{"Content-Language", aws.ToString(cl), "de-DE"},
			{"Cache-Control", aws.ToString(cc), "max-age=3600, must-revalidate"},
			{"Expires", aws.ToString(exp), expires.Format(http.TimeFormat)},
		} {
			if h.got != h.want {
				t.Errorf("%s %s = %q, want %q", op, h.name, h.got, h.want)
			}
		}
		if !maps.Equal(um, userMeta) {
			t.Errorf("%s metadata %v, want %v", op, um, userMeta)
		}
	}

	got, g := awsMustGet(t, c, "roundtrip", "doc.txt")
	if !bytes.Equal(got, body) {
		t.Fatalf("GET body %q, want %q", got, body)
	}
	check("GET", g.ETag, g.ContentLength, g.LastModified, g.ContentType, g.ContentEncoding, g.ContentDisposition,
		g.ContentLanguage, g.CacheControl, g.ExpiresString, g.Metadata)
	if aws.ToString(g.AcceptRanges) != "bytes" {
		t.Errorf("GET Accept-Ranges %q, want bytes", aws.ToString(g.AcceptRanges))
	}
	if st := awsStatus(g.ResultMetadata); st != http.StatusOK {
		t.Errorf("GET status %d, want 200", st)
	}

	h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("roundtrip"), Key: aws.String("doc.txt")})
	if err != nil {
		t.Fatal(err)
	}
	check("HEAD", h.ETag, h.ContentLength, h.LastModified, h.ContentType, h.ContentEncoding, h.ContentDisposition,
		h.ContentLanguage, h.CacheControl, h.ExpiresString, h.Metadata)
	if !h.LastModified.Equal(*g.LastModified) {
		t.Errorf("HEAD Last-Modified %v != GET Last-Modified %v", h.LastModified, g.LastModified)
	}

	// Overwrite without any headers (raw request: the SDK would send its
	// own default Content-Type): nothing of the old version survives, and
	// Content-Type falls back to S3's default.
	req := awsRawRequest(t, srv, http.MethodPut, "/roundtrip/doc.txt", []byte("v2"))
	awsSign(t, req, []byte("v2"), awsSignOpts{})
	if resp, b := awsDo(t, req); resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != awsETag([]byte("v2")) {
		t.Fatalf("raw PUT: %d %q ETag %s", resp.StatusCode, b, resp.Header.Get("ETag"))
	}
	got, g = awsMustGet(t, c, "roundtrip", "doc.txt")
	if string(got) != "v2" {
		t.Fatalf("after overwrite: %q", got)
	}
	if ct := aws.ToString(g.ContentType); ct != "binary/octet-stream" {
		t.Errorf("default Content-Type %q, want binary/octet-stream", ct)
	}
	for name, v := range map[string]*string{"Content-Encoding": g.ContentEncoding, "Content-Disposition": g.ContentDisposition,
		"Content-Language": g.ContentLanguage, "Cache-Control": g.CacheControl, "Expires": g.ExpiresString} {
		if v != nil {
			t.Errorf("after overwrite %s still %q", name, *v)
		}
	}
	if len(g.Metadata) != 0 {
		t.Errorf("after overwrite metadata still %v", g.Metadata)
	}

	// The SDK's default Content-Type is stored as sent.
	awsMustPut(t, c, "roundtrip", "sdk-default", []byte("x"))
	if _, g = awsMustGet(t, c, "roundtrip", "sdk-default"); aws.ToString(g.ContentType) != "application/octet-stream" {
		t.Errorf("SDK-sent Content-Type came back as %q", aws.ToString(g.ContentType))
	}
	awsWantNoStrayFiles(t, srv, c)
}

func TestAWSObjectUserMetadataLimit(t *testing.T) {
	srv, c := awsStartBucket(t, "meta")
	ctx := context.Background()
	awsMustPut(t, c, "meta", "k", []byte("original"))

	// Exactly 2 KiB of names plus values is allowed ...
	exact := map[string]string{"a": strings.Repeat("x", 1000), "bb": strings.Repeat("y", 1045)}
	awsMustPut(t, c, "meta", "exact", []byte("e"), func(in *s3.PutObjectInput) { in.Metadata = exact })
	h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("meta"), Key: aws.String("exact")})
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(h.Metadata, exact) {
		t.Errorf("2048-byte metadata not returned intact")
	}

	// ... one byte more is not, and the refused write changes nothing.
	over := map[string]string{"a": strings.Repeat("x", 1000), "bb": strings.Repeat("y", 1046)}
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("meta"), Key: aws.String("k"),
		Body: strings.NewReader("replacement"), Metadata: over})
	awsWantErr(t, err, http.StatusBadRequest, "MetadataTooLarge")
	awsWantObject(t, c, "meta", "k", []byte("original"))

	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("meta"), Key: aws.String("new"),
		Body: strings.NewReader("x"), Metadata: map[string]string{"big": strings.Repeat("z", 4096)}})
	awsWantErr(t, err, http.StatusBadRequest, "MetadataTooLarge")
	awsWantNoObject(t, c, "meta", "new")
	awsWantNoStrayFiles(t, srv, c)
}

func TestAWSObjectZeroBytes(t *testing.T) {
	_, c := awsStartBucket(t, "zero")
	ctx := context.Background()
	awsMustPut(t, c, "zero", "empty", nil)
	got, g := awsMustGet(t, c, "zero", "empty")
	if len(got) != 0 || aws.ToInt64(g.ContentLength) != 0 {
		t.Fatalf("zero-byte GET: %d bytes, Content-Length %d", len(got), aws.ToInt64(g.ContentLength))
	}
	if e := aws.ToString(g.ETag); e != `"d41d8cd98f00b204e9800998ecf8427e"` {
		t.Errorf("zero-byte ETag %s", e)
	}
	h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("zero"), Key: aws.String("empty")})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToInt64(h.ContentLength) != 0 || aws.ToString(h.ETag) != `"d41d8cd98f00b204e9800998ecf8427e"` {
		t.Errorf("zero-byte HEAD: length %d ETag %s", aws.ToInt64(h.ContentLength), aws.ToString(h.ETag))
	}
	// No byte range of an empty object is satisfiable.
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("zero"), Key: aws.String("empty"), Range: aws.String("bytes=0-0")})
	awsWantErr(t, err, http.StatusRequestedRangeNotSatisfiable, "InvalidRange")

	// An object replaced by an empty one reads back empty.
	awsMustPut(t, c, "zero", "shrinks", []byte("some bytes"))
	awsMustPut(t, c, "zero", "shrinks", []byte{})
	awsWantObject(t, c, "zero", "shrinks", []byte{})
	lo, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("zero")})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range lo.Contents {
		if aws.ToInt64(o.Size) != 0 {
			t.Errorf("listing: %s has size %d, want 0", aws.ToString(o.Key), aws.ToInt64(o.Size))
		}
	}
}

func TestAWSObjectLarge(t *testing.T) {
	_, c := awsStartBucket(t, "large")
	ctx := context.Background()
	const size = 20<<20 + 12345
	body := awsRandBytes(20, size)
	sum := md5.Sum(body)
	awsMustPut(t, c, "large", "big.bin", body)

	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("large"), Key: aws.String("big.bin")})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Body.Close()
	if aws.ToInt64(out.ContentLength) != size {
		t.Fatalf("Content-Length %d, want %d", aws.ToInt64(out.ContentLength), size)
	}
	h := md5.New()
	n, err := io.Copy(h, out.Body)
	if err != nil {
		t.Fatal(err)
	}
	if n != size || !bytes.Equal(h.Sum(nil), sum[:]) {
		t.Fatalf("read back %d bytes with MD5 %x, want %d bytes with MD5 %x", n, h.Sum(nil), size, sum)
	}
	if aws.ToString(out.ETag) != `"`+hex.EncodeToString(sum[:])+`"` {
		t.Fatalf("ETag %s", aws.ToString(out.ETag))
	}

	// A range deep inside the object.
	got, _ := awsMustGet(t, c, "large", "big.bin", func(in *s3.GetObjectInput) { in.Range = aws.String("bytes=15000000-15000099") })
	if !bytes.Equal(got, body[15000000:15000100]) {
		t.Fatal("range inside the large object differs")
	}
}

func TestAWSObjectContentMD5(t *testing.T) {
	srv, c := awsStartBucket(t, "md5")
	ctx := context.Background()
	b64 := func(b []byte) *string { s := md5.Sum(b); return aws.String(base64.StdEncoding.EncodeToString(s[:])) }

	awsMustPut(t, c, "md5", "k", []byte("first"), func(in *s3.PutObjectInput) { in.ContentMD5 = b64([]byte("first")) })
	awsWantObject(t, c, "md5", "k", []byte("first"))

	_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("md5"), Key: aws.String("k"),
		Body: strings.NewReader("second"), ContentMD5: b64([]byte("not second"))})
	awsWantErr(t, err, http.StatusBadRequest, "BadDigest")
	awsWantObject(t, c, "md5", "k", []byte("first"))

	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("md5"), Key: aws.String("fresh"),
		Body: strings.NewReader("second"), ContentMD5: b64([]byte("not second"))})
	awsWantErr(t, err, http.StatusBadRequest, "BadDigest")
	awsWantNoObject(t, c, "md5", "fresh")

	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("md5"), Key: aws.String("k"),
		Body: strings.NewReader("third"), ContentMD5: aws.String("not-base64!")})
	awsWantErr(t, err, http.StatusBadRequest, "InvalidDigest")
	awsWantObject(t, c, "md5", "k", []byte("first"))

	// A large body with the wrong digest is refused too (the digest is
	// checked after streaming).
	big := awsRandBytes(7, 3<<20)
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("md5"), Key: aws.String("k"),
		Body: bytes.NewReader(big), ContentMD5: b64(big[1:])})
	awsWantErr(t, err, http.StatusBadRequest, "BadDigest")
	awsWantObject(t, c, "md5", "k", []byte("first"))
	awsWantNoStrayFiles(t, srv, c)
}

func TestAWSObjectResponseOverrides(t *testing.T) {
	_, c := awsStartBucket(t, "ovr")
	awsMustPut(t, c, "ovr", "k", []byte("data"), func(in *s3.PutObjectInput) {
		in.ContentType = aws.String("text/plain")
		in.CacheControl = aws.String("no-cache")
	})
	exp := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	got, g := awsMustGet(t, c, "ovr", "k", func(in *s3.GetObjectInput) {
		in.ResponseContentType = aws.String("application/json")
		in.ResponseContentDisposition = aws.String(`inline; filename="x.json"`)
		in.ResponseContentEncoding = aws.String("identity")
		in.ResponseContentLanguage = aws.String("fr")
		in.ResponseCacheControl = aws.String("max-age=60")
		in.ResponseExpires = aws.Time(exp)
	})
	if string(got) != "data" {
		t.Fatalf("body %q", got)
	}
	for _, h := range []struct{ name, got, want string }{
		{"Content-Type", aws.ToString(g.ContentType), "application/json"},
		{"Content-Disposition", aws.ToString(g.ContentDisposition), `inline; filename="x.json"`},
		{"Content-Encoding", aws.ToString(g.ContentEncoding), "identity"},
		{"Content-Language", aws.ToString(g.ContentLanguage), "fr"},
		{"Cache-Control", aws.ToString(g.CacheControl), "max-age=60"},
		{"Expires", aws.ToString(g.ExpiresString), exp.Format(http.TimeFormat)},
	} {
		if h.got != h.want {
			t.Errorf("override %s = %q, want %q", h.name, h.got, h.want)
		}
	}
	// Overrides apply to one response only: the stored headers are unchanged.
	_, g = awsMustGet(t, c, "ovr", "k")
	if aws.ToString(g.ContentType) != "text/plain" || aws.ToString(g.CacheControl) != "no-cache" || g.ContentLanguage != nil {
		t.Errorf("stored headers changed: %q %q %v", aws.ToString(g.ContentType), aws.ToString(g.CacheControl), g.ContentLanguage)
	}
}

func TestAWSObjectRange(t *testing.T) {
	_, c := awsStartBucket(t, "rng")
	ctx := context.Background()
	body := []byte("0123456789")
	awsMustPut(t, c, "rng", "k", body)

	for _, tc := range []struct {
		rng, want, contentRange string
	}{
		{"bytes=2-5", "2345", "bytes 2-5/10"},
		{"bytes=5-", "56789", "bytes 5-9/10"},
		{"bytes=-3", "789", "bytes 7-9/10"},
		{"bytes=5-100", "56789", "bytes 5-9/10"},
		{"bytes=0-0", "0", "bytes 0-0/10"},
		{"bytes=9-9", "9", "bytes 9-9/10"},
		{"bytes=-100", "0123456789", "bytes 0-9/10"},
		{"bytes=0-", "0123456789", "bytes 0-9/10"},
	} {
		got, g := awsMustGet(t, c, "rng", "k", func(in *s3.GetObjectInput) { in.Range = aws.String(tc.rng) })
		if string(got) != tc.want {
			t.Errorf("GET %s: body %q, want %q", tc.rng, got, tc.want)
		}
		if st := awsStatus(g.ResultMetadata); st != http.StatusPartialContent {
			t.Errorf("GET %s: status %d, want 206", tc.rng, st)
		}
		if cr := aws.ToString(g.ContentRange); cr != tc.contentRange {
			t.Errorf("GET %s: Content-Range %q, want %q", tc.rng, cr, tc.contentRange)
		}
		if n := aws.ToInt64(g.ContentLength); n != int64(len(tc.want)) {
			t.Errorf("GET %s: Content-Length %d, want %d", tc.rng, n, len(tc.want))
		}
		if aws.ToString(g.ETag) != awsETag(body) {
			t.Errorf("GET %s: ETag %s is not the whole object's", tc.rng, aws.ToString(g.ETag))
		}

		h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("rng"), Key: aws.String("k"), Range: aws.String(tc.rng)})
		if err != nil {
			t.Fatalf("HEAD %s: %v", tc.rng, err)
		}
		if st := awsStatus(h.ResultMetadata); st != http.StatusPartialContent || aws.ToInt64(h.ContentLength) != int64(len(tc.want)) ||
			aws.ToString(h.ContentRange) != tc.contentRange {
			t.Errorf("HEAD %s: %d length %d range %q", tc.rng, st, aws.ToInt64(h.ContentLength), aws.ToString(h.ContentRange))
		}
	}

	// Unsatisfiable: the first byte is past the end.
	for _, r := range []string{"bytes=10-", "bytes=10-20", "bytes=100-200"} {
		_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("rng"), Key: aws.String("k"), Range: aws.String(r)})
		awsWantErr(t, err, http.StatusRequestedRangeNotSatisfiable, "InvalidRange")
		if cr := awsErrHeader(err, "Content-Range"); cr != "bytes */10" {
			t.Errorf("416 for %s: Content-Range %q, want bytes */10", r, cr)
		}
	}

	// Malformed or multiple ranges are ignored: the whole object, 200.
	for _, r := range []string{"bytes=abc", "bytes=5-2", "items=0-1", "bytes=0-1,3-4"} {
		got, g := awsMustGet(t, c, "rng", "k", func(in *s3.GetObjectInput) { in.Range = aws.String(r) })
		if string(got) != string(body) || awsStatus(g.ResultMetadata) != http.StatusOK || g.ContentRange != nil {
			t.Errorf("GET %s: %d %q range %v, want the whole object", r, awsStatus(g.ResultMetadata), got, g.ContentRange)
		}
	}
}

func TestAWSObjectMissing(t *testing.T) {
	srv, c := awsStartBucket(t, "here")
	ctx := context.Background()
	awsMustPut(t, c, "here", "exists", []byte("x"))

	_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("here"), Key: aws.String("missing")})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchKey")
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("gone"), Key: aws.String("exists")})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchBucket")

	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("here"), Key: aws.String("missing")})
	awsWantErr(t, err, http.StatusNotFound, "NotFound")
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("gone"), Key: aws.String("exists")})
	awsWantErr(t, err, http.StatusNotFound, "NotFound")

	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("gone"), Key: aws.String("k"), Body: strings.NewReader("x")})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchBucket")

	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("gone"), Key: aws.String("k")})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchBucket")

	_, err = c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("gone"),
		Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String("k")}}}})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchBucket")

	_, err = c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("gone")})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	_, err = c.ListObjects(ctx, &s3.ListObjectsInput{Bucket: aws.String("gone")})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	_, err = c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("gone"), MaxKeys: aws.Int32(0)})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchBucket")

	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("here"), Key: aws.String("dst"), CopySource: aws.String("here/missing")})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchKey")
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("here"), Key: aws.String("dst"), CopySource: aws.String("gone/exists")})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("gone"), Key: aws.String("dst"), CopySource: aws.String("here/exists")})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	awsWantNoObject(t, c, "here", "dst")

	// HEAD errors carry no body, but do carry the request IDs.
	for _, path := range []string{"/here/missing", "/gone/exists", "/gone"} {
		req := awsRawRequest(t, srv, http.MethodHead, path, nil)
		awsSign(t, req, nil, awsSignOpts{})
		resp, body := awsDo(t, req)
		if resp.StatusCode != http.StatusNotFound || len(body) != 0 {
			t.Errorf("HEAD %s: %d with %d body bytes, want 404 and none", path, resp.StatusCode, len(body))
		}
		awsWantRequestIDs(t, resp)
	}
	// GET errors do carry an XML body naming the code.
	req := awsRawRequest(t, srv, http.MethodGet, "/here/missing", nil)
	awsSign(t, req, nil, awsSignOpts{})
	resp, body := awsDo(t, req)
	awsWantRawErr(t, resp, body, http.StatusNotFound, "NoSuchKey")
}

func TestAWSDeleteObject(t *testing.T) {
	_, c := awsStartBucket(t, "del")
	ctx := context.Background()
	awsMustPut(t, c, "del", "k", []byte("x"))
	awsMustPut(t, c, "del", "keep", []byte("kept"))

	for i := range 3 { // existing, then already gone: always 204
		out, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("del"), Key: aws.String("k")})
		if err != nil {
			t.Fatalf("delete #%d: %v", i, err)
		}
		if st := awsStatus(out.ResultMetadata); st != http.StatusNoContent {
			t.Fatalf("delete #%d: status %d, want 204", i, st)
		}
		awsWantNoObject(t, c, "del", "k")
	}
	out, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("del"), Key: aws.String("never-existed")})
	if err != nil || awsStatus(out.ResultMetadata) != http.StatusNoContent {
		t.Fatalf("delete of a never-existing key: %v", err)
	}
	awsWantObject(t, c, "del", "keep", []byte("kept"))
}

func TestAWSDeleteObjects(t *testing.T) {
	srv, c := awsStartBucket(t, "multi")
	ctx := context.Background()
	keys := []string{"a", "b", "c/d", "e f", "x&y<z>", "日本"}
	for _, k := range keys {
		awsMustPut(t, c, "multi", k, []byte("v:"+k))
	}
	ids := func(ks ...string) []types.ObjectIdentifier {
		var out []types.ObjectIdentifier
		for _, k := range ks {
			out = append(out, types.ObjectIdentifier{Key: aws.String(k)})
		}
		return out
	}

	// Verbose: every requested key is reported deleted, missing ones too.
	req := []string{"a", "missing-1", "x&y<z>", "日本", "missing-2"}
	out, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("multi"), Delete: &types.Delete{Objects: ids(req...)}})
	if err != nil {
		t.Fatal(err)
	}
	var deleted []string
	for _, d := range out.Deleted {
		deleted = append(deleted, aws.ToString(d.Key))
	}
	if strings.Join(deleted, "|") != strings.Join(req, "|") {
		t.Errorf("verbose Deleted = %q, want %q", deleted, req)
	}
	if len(out.Errors) != 0 {
		t.Errorf("verbose Errors = %+v", out.Errors)
	}
	for _, k := range []string{"a", "x&y<z>", "日本"} {
		awsWantNoObject(t, c, "multi", k)
	}
	awsWantObject(t, c, "multi", "b", []byte("v:b"))

	// Quiet: nothing reported on success.
	out, err = c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("multi"),
		Delete: &types.Delete{Objects: ids("b", "e f", "missing-3"), Quiet: aws.Bool(true)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Deleted) != 0 || len(out.Errors) != 0 {
		t.Errorf("quiet mode reported %d deleted, %d errors", len(out.Deleted), len(out.Errors))
	}
	awsWantNoObject(t, c, "multi", "b")
	awsWantNoObject(t, c, "multi", "e f")
	awsWantObject(t, c, "multi", "c/d", []byte("v:c/d"))

	// A conditional delete (ETag) that fails is reported per key.
	awsMustPut(t, c, "multi", "guarded", []byte("g"))
	out, err = c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("multi"),
		Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String("guarded"), ETag: aws.String(`"00000000000000000000000000000000"`)}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Errors) != 1 || aws.ToString(out.Errors[0].Key) != "guarded" || aws.ToString(out.Errors[0].Code) != "PreconditionFailed" {
		t.Errorf("conditional delete with wrong ETag: deleted %v, errors %+v", out.Deleted, out.Errors)
	}
	awsWantObject(t, c, "multi", "guarded", []byte("g"))

	// Over 1000 keys: refused as a whole, nothing deleted.
	var many []string
	for i := range 1001 {
		many = append(many, fmt.Sprintf("k%04d", i))
	}
	many[500] = "c/d"
	_, err = c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("multi"), Delete: &types.Delete{Objects: ids(many...)}})
	awsWantErr(t, err, http.StatusBadRequest, "MalformedXML")
	awsWantObject(t, c, "multi", "c/d", []byte("v:c/d"))

	// Exactly 1000 is fine.
	out, err = c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("multi"), Delete: &types.Delete{Objects: ids(many[:1000]...)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Deleted) != 1000 {
		t.Errorf("1000-key delete reported %d deleted", len(out.Deleted))
	}
	awsWantNoObject(t, c, "multi", "c/d")
	awsWantNoStrayFiles(t, srv, c)
}

// A GET or HEAD naming a version must serve that version or fail: never
// silently serve the current object instead.
func TestAWSObjectVersionID(t *testing.T) {
	_, c := awsStartBucket(t, "versions")
	ctx := context.Background()
	awsMustPut(t, c, "versions", "k", []byte("current"))

	// Unversioned objects have the version ID "null".
	got, _ := awsMustGet(t, c, "versions", "k", func(in *s3.GetObjectInput) { in.VersionId = aws.String("null") })
	if string(got) != "current" {
		t.Fatalf("versionId=null: %q", got)
	}
	if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("versions"), Key: aws.String("k"), VersionId: aws.String("null")}); err != nil {
		t.Fatalf("HEAD versionId=null: %v", err)
	}
	_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("versions"), Key: aws.String("k"), VersionId: aws.String("3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY")})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchVersion")
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("versions"), Key: aws.String("k"), VersionId: aws.String("3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY")})
	awsWantErr(t, err, http.StatusNotFound, "NotFound")
	// A version of a missing key, or of a missing bucket.
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("versions"), Key: aws.String("missing"), VersionId: aws.String("null")})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchVersion")
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("gone"), Key: aws.String("k"), VersionId: aws.String("null")})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	// Copying from a version that does not exist fails the same way.
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("versions"), Key: aws.String("copy"),
		CopySource: aws.String("versions/k?versionId=3HL4kqtJlcpXroDTDmJ")})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchVersion")
	awsWantNoObject(t, c, "versions", "copy")
}

func TestAWSObjectStorageClass(t *testing.T) {
	_, c := awsStartBucket(t, "classes")
	ctx := context.Background()
	awsMustPut(t, c, "classes", "std", []byte("s"))
	awsMustPut(t, c, "classes", "ia", []byte("i"), func(in *s3.PutObjectInput) { in.StorageClass = types.StorageClassStandardIa })

	h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("classes"), Key: aws.String("ia")})
	if err != nil {
		t.Fatal(err)
	}
	if h.StorageClass != types.StorageClassStandardIa {
		t.Errorf("HEAD storage class %q", h.StorageClass)
	}
	if h, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("classes"), Key: aws.String("std")}); err != nil || h.StorageClass != "" {
		t.Errorf("STANDARD object reports storage class %q (%v); S3 omits the header", h.StorageClass, err)
	}
	out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("classes")})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Contents) != 2 || out.Contents[0].StorageClass != types.ObjectStorageClassStandardIa || out.Contents[1].StorageClass != types.ObjectStorageClassStandard {
		t.Errorf("listed storage classes: %+v", out.Contents)
	}

	// Changing the storage class is a legal self-copy.
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("classes"), Key: aws.String("std"), CopySource: aws.String("classes/std"),
		StorageClass: types.StorageClassStandardIa}); err != nil {
		t.Fatalf("self-copy changing the storage class: %v", err)
	}
	if h, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("classes"), Key: aws.String("std")}); err != nil || h.StorageClass != types.StorageClassStandardIa {
		t.Errorf("after self-copy: storage class %q (%v)", h.StorageClass, err)
	}
	awsWantObject(t, c, "classes", "std", []byte("s"))

	// An unknown storage class is refused.
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("classes"), Key: aws.String("ia"), Body: strings.NewReader("x"), StorageClass: "NOT_A_CLASS"})
	awsWantErr(t, err, http.StatusBadRequest, "InvalidStorageClass")
	awsWantObject(t, c, "classes", "ia", []byte("i"))
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("classes"), Key: aws.String("bad"), CopySource: aws.String("classes/ia"), StorageClass: "NOT_A_CLASS"})
	awsWantErr(t, err, http.StatusBadRequest, "InvalidStorageClass")
	awsWantNoObject(t, c, "classes", "bad")
}

func TestAWSDeleteObjectConditional(t *testing.T) {
	_, c := awsStartBucket(t, "conddel")
	ctx := context.Background()
	put := awsMustPut(t, c, "conddel", "k", []byte("guarded"))
	_, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("conddel"), Key: aws.String("k"), IfMatch: aws.String(awsETag([]byte("other")))})
	awsWantErr(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	awsWantObject(t, c, "conddel", "k", []byte("guarded"))
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("conddel"), Key: aws.String("k"), IfMatch: put.ETag}); err != nil {
		t.Fatalf("delete with the current ETag: %v", err)
	}
	awsWantNoObject(t, c, "conddel", "k")
	// A conditional delete of a missing key is not silently "done".
	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("conddel"), Key: aws.String("k"), IfMatch: put.ETag})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchKey")
}
