package integration

// Objects: PUT, GET and HEAD with their headers and metadata, sizes from
// zero to large, Content-MD5, through aws-sdk-go-v2 and minio-go (whose
// PUTs are aws-chunked streaming-signed).

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"io"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/minio/minio-go/v7"

	"github.com/jogstore/jog/test/integration/itest"
)

func TestAWSObjectRoundTrip(t *testing.T) {
	srv, c := itest.StartBucket(t, "roundtrip")
	ctx := context.Background()
	body := []byte("hello, round trip\x00\xff binary tail")
	expires := time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)
	userMeta := map[string]string{"color": "blue", "mixed-case": "Value With Spaces", "empty-ish": "-"}

	before := time.Now().Add(-time.Second).Truncate(time.Second)
	itest.Put(t, c, "roundtrip", "doc.txt", body, func(in *s3.PutObjectInput) {
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
		if got := aws.ToString(etag); got != itest.ETag(body) {
			t.Errorf("%s ETag %s, want %s", op, got, itest.ETag(body))
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

	got, g := itest.Get(t, c, "roundtrip", "doc.txt")
	if !bytes.Equal(got, body) {
		t.Fatalf("GET body %q, want %q", got, body)
	}
	check("GET", g.ETag, g.ContentLength, g.LastModified, g.ContentType, g.ContentEncoding, g.ContentDisposition,
		g.ContentLanguage, g.CacheControl, g.ExpiresString, g.Metadata)
	if aws.ToString(g.AcceptRanges) != "bytes" {
		t.Errorf("GET Accept-Ranges %q, want bytes", aws.ToString(g.AcceptRanges))
	}
	if st := itest.Status(g.ResultMetadata); st != http.StatusOK {
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
	req := itest.RawRequest(t, srv, http.MethodPut, "/roundtrip/doc.txt", []byte("v2"))
	itest.Sign(t, req, []byte("v2"), itest.SignOpts{})
	if resp, b := itest.Do(t, req); resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != itest.ETag([]byte("v2")) {
		t.Fatalf("raw PUT: %d %q ETag %s", resp.StatusCode, b, resp.Header.Get("ETag"))
	}
	got, g = itest.Get(t, c, "roundtrip", "doc.txt")
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
	itest.Put(t, c, "roundtrip", "sdk-default", []byte("x"))
	if _, g = itest.Get(t, c, "roundtrip", "sdk-default"); aws.ToString(g.ContentType) != "application/octet-stream" {
		t.Errorf("SDK-sent Content-Type came back as %q", aws.ToString(g.ContentType))
	}
	itest.WantNoStrayFiles(t, srv, c)
}

func TestAWSObjectUserMetadataLimit(t *testing.T) {
	srv, c := itest.StartBucket(t, "meta")
	ctx := context.Background()
	itest.Put(t, c, "meta", "k", []byte("original"))

	// Exactly 2 KiB of names plus values is allowed ...
	exact := map[string]string{"a": strings.Repeat("x", 1000), "bb": strings.Repeat("y", 1045)}
	itest.Put(t, c, "meta", "exact", []byte("e"), func(in *s3.PutObjectInput) { in.Metadata = exact })
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
	itest.WantErr(t, err, http.StatusBadRequest, "MetadataTooLarge")
	itest.WantObject(t, c, "meta", "k", []byte("original"))

	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("meta"), Key: aws.String("new"),
		Body: strings.NewReader("x"), Metadata: map[string]string{"big": strings.Repeat("z", 4096)}})
	itest.WantErr(t, err, http.StatusBadRequest, "MetadataTooLarge")
	itest.WantNoObject(t, c, "meta", "new")
	itest.WantNoStrayFiles(t, srv, c)
}

func TestAWSObjectZeroBytes(t *testing.T) {
	_, c := itest.StartBucket(t, "zero")
	ctx := context.Background()
	itest.Put(t, c, "zero", "empty", nil)
	got, g := itest.Get(t, c, "zero", "empty")
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
	itest.WantErr(t, err, http.StatusRequestedRangeNotSatisfiable, "InvalidRange")

	// An object replaced by an empty one reads back empty.
	itest.Put(t, c, "zero", "shrinks", []byte("some bytes"))
	itest.Put(t, c, "zero", "shrinks", []byte{})
	itest.WantObject(t, c, "zero", "shrinks", []byte{})
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
	_, c := itest.StartBucket(t, "large")
	ctx := context.Background()
	const size = 20<<20 + 12345
	body := itest.RandBytes(20, size)
	sum := md5.Sum(body)
	itest.Put(t, c, "large", "big.bin", body)

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
	got, _ := itest.Get(t, c, "large", "big.bin", func(in *s3.GetObjectInput) { in.Range = aws.String("bytes=15000000-15000099") })
	if !bytes.Equal(got, body[15000000:15000100]) {
		t.Fatal("range inside the large object differs")
	}
}

func TestAWSObjectContentMD5(t *testing.T) {
	srv, c := itest.StartBucket(t, "md5")
	ctx := context.Background()
	b64 := func(b []byte) *string { s := md5.Sum(b); return aws.String(base64.StdEncoding.EncodeToString(s[:])) }

	itest.Put(t, c, "md5", "k", []byte("first"), func(in *s3.PutObjectInput) { in.ContentMD5 = b64([]byte("first")) })
	itest.WantObject(t, c, "md5", "k", []byte("first"))

	_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("md5"), Key: aws.String("k"),
		Body: strings.NewReader("second"), ContentMD5: b64([]byte("not second"))})
	itest.WantErr(t, err, http.StatusBadRequest, "BadDigest")
	itest.WantObject(t, c, "md5", "k", []byte("first"))

	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("md5"), Key: aws.String("fresh"),
		Body: strings.NewReader("second"), ContentMD5: b64([]byte("not second"))})
	itest.WantErr(t, err, http.StatusBadRequest, "BadDigest")
	itest.WantNoObject(t, c, "md5", "fresh")

	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("md5"), Key: aws.String("k"),
		Body: strings.NewReader("third"), ContentMD5: aws.String("not-base64!")})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidDigest")
	itest.WantObject(t, c, "md5", "k", []byte("first"))

	// A large body with the wrong digest is refused too (the digest is
	// checked after streaming).
	big := itest.RandBytes(7, 3<<20)
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("md5"), Key: aws.String("k"),
		Body: bytes.NewReader(big), ContentMD5: b64(big[1:])})
	itest.WantErr(t, err, http.StatusBadRequest, "BadDigest")
	itest.WantObject(t, c, "md5", "k", []byte("first"))
	itest.WantNoStrayFiles(t, srv, c)
}

func TestAWSObjectResponseOverrides(t *testing.T) {
	_, c := itest.StartBucket(t, "ovr")
	itest.Put(t, c, "ovr", "k", []byte("data"), func(in *s3.PutObjectInput) {
		in.ContentType = aws.String("text/plain")
		in.CacheControl = aws.String("no-cache")
	})
	exp := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	got, g := itest.Get(t, c, "ovr", "k", func(in *s3.GetObjectInput) {
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
	_, g = itest.Get(t, c, "ovr", "k")
	if aws.ToString(g.ContentType) != "text/plain" || aws.ToString(g.CacheControl) != "no-cache" || g.ContentLanguage != nil {
		t.Errorf("stored headers changed: %q %q %v", aws.ToString(g.ContentType), aws.ToString(g.CacheControl), g.ContentLanguage)
	}
}

func TestAWSObjectMissing(t *testing.T) {
	srv, c := itest.StartBucket(t, "here")
	ctx := context.Background()
	itest.Put(t, c, "here", "exists", []byte("x"))

	_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("here"), Key: aws.String("missing")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchKey")
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("gone"), Key: aws.String("exists")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")

	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("here"), Key: aws.String("missing")})
	itest.WantErr(t, err, http.StatusNotFound, "NotFound")
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("gone"), Key: aws.String("exists")})
	itest.WantErr(t, err, http.StatusNotFound, "NotFound")

	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("gone"), Key: aws.String("k"), Body: strings.NewReader("x")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")

	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("gone"), Key: aws.String("k")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")

	_, err = c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("gone"),
		Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String("k")}}}})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")

	_, err = c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("gone")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	_, err = c.ListObjects(ctx, &s3.ListObjectsInput{Bucket: aws.String("gone")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	_, err = c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("gone"), MaxKeys: aws.Int32(0)})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")

	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("here"), Key: aws.String("dst"), CopySource: aws.String("here/missing")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchKey")
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("here"), Key: aws.String("dst"), CopySource: aws.String("gone/exists")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("gone"), Key: aws.String("dst"), CopySource: aws.String("here/exists")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	itest.WantNoObject(t, c, "here", "dst")

	// HEAD errors carry no body, but do carry the request IDs.
	for _, path := range []string{"/here/missing", "/gone/exists", "/gone"} {
		req := itest.RawRequest(t, srv, http.MethodHead, path, nil)
		itest.Sign(t, req, nil, itest.SignOpts{})
		resp, body := itest.Do(t, req)
		if resp.StatusCode != http.StatusNotFound || len(body) != 0 {
			t.Errorf("HEAD %s: %d with %d body bytes, want 404 and none", path, resp.StatusCode, len(body))
		}
		itest.WantRequestIDs(t, resp)
	}
	// GET errors do carry an XML body naming the code.
	req := itest.RawRequest(t, srv, http.MethodGet, "/here/missing", nil)
	itest.Sign(t, req, nil, itest.SignOpts{})
	resp, body := itest.Do(t, req)
	itest.WantRawErr(t, resp, body, http.StatusNotFound, "NoSuchKey")
}

// A GET or HEAD naming a version must serve that version or fail: never
// silently serve the current object instead.
func TestAWSObjectVersionID(t *testing.T) {
	_, c := itest.StartBucket(t, "versions")
	ctx := context.Background()
	itest.Put(t, c, "versions", "k", []byte("current"))

	// Unversioned objects have the version ID "null".
	got, _ := itest.Get(t, c, "versions", "k", func(in *s3.GetObjectInput) { in.VersionId = aws.String("null") })
	if string(got) != "current" {
		t.Fatalf("versionId=null: %q", got)
	}
	if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("versions"), Key: aws.String("k"), VersionId: aws.String("null")}); err != nil {
		t.Fatalf("HEAD versionId=null: %v", err)
	}
	_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("versions"), Key: aws.String("k"), VersionId: aws.String(unknownVersion)})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchVersion")
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("versions"), Key: aws.String("k"), VersionId: aws.String(unknownVersion)})
	itest.WantErr(t, err, http.StatusNotFound, "NotFound")
	// One that no version can have is refused.
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("versions"), Key: aws.String("k"), VersionId: aws.String("3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY")})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
	// A version of a missing key, or of a missing bucket.
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("versions"), Key: aws.String("missing"), VersionId: aws.String("null")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchVersion")
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("gone"), Key: aws.String("k"), VersionId: aws.String("null")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	// Copying from a version that does not exist fails the same way.
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("versions"), Key: aws.String("copy"),
		CopySource: aws.String("versions/k?versionId=" + unknownVersion)})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchVersion")
	itest.WantNoObject(t, c, "versions", "copy")
}

func TestAWSObjectStorageClass(t *testing.T) {
	_, c := itest.StartBucket(t, "classes")
	ctx := context.Background()
	itest.Put(t, c, "classes", "std", []byte("s"))
	itest.Put(t, c, "classes", "ia", []byte("i"), func(in *s3.PutObjectInput) { in.StorageClass = types.StorageClassStandardIa })

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
	itest.WantObject(t, c, "classes", "std", []byte("s"))

	// An unknown storage class is refused.
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("classes"), Key: aws.String("ia"), Body: strings.NewReader("x"), StorageClass: "NOT_A_CLASS"})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidStorageClass")
	itest.WantObject(t, c, "classes", "ia", []byte("i"))
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("classes"), Key: aws.String("bad"), CopySource: aws.String("classes/ia"), StorageClass: "NOT_A_CLASS"})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidStorageClass")
	itest.WantNoObject(t, c, "classes", "bad")
}

func TestMinioPutGetStat(t *testing.T) {
	_, c, bucket := itest.StartMinio(t)
	ctx := context.Background()
	body := []byte("hello, minio-go\n")
	opts := minio.PutObjectOptions{
		ContentType:        "text/plain; charset=utf-8",
		ContentDisposition: `attachment; filename="hello.txt"`,
		ContentLanguage:    "en",
		CacheControl:       "max-age=60",
		UserMetadata:       map[string]string{"Color": "blue", "x-amz-meta-Shape": "round"},
	}
	info := itest.MinioPut(t, c, bucket, "greeting.txt", body, opts)
	if info.Size != int64(len(body)) {
		t.Errorf("UploadInfo.Size = %d, want %d", info.Size, len(body))
	}

	check := func(what string, oi minio.ObjectInfo) {
		t.Helper()
		if oi.Key != "greeting.txt" || oi.Size != int64(len(body)) || oi.ETag != itest.MD5Hex(body) {
			t.Errorf("%s: key %q size %d etag %q", what, oi.Key, oi.Size, oi.ETag)
		}
		if oi.ContentType != "text/plain; charset=utf-8" {
			t.Errorf("%s: ContentType %q", what, oi.ContentType)
		}
		if got := oi.Metadata.Get("Content-Disposition"); got != `attachment; filename="hello.txt"` {
			t.Errorf("%s: Content-Disposition %q", what, got)
		}
		if got := oi.Metadata.Get("Content-Language"); got != "en" {
			t.Errorf("%s: Content-Language %q", what, got)
		}
		if got := oi.Metadata.Get("Cache-Control"); got != "max-age=60" {
			t.Errorf("%s: Cache-Control %q", what, got)
		}
		if oi.UserMetadata["Color"] != "blue" || oi.UserMetadata["Shape"] != "round" || len(oi.UserMetadata) != 2 {
			t.Errorf("%s: UserMetadata %v, want Color=blue Shape=round", what, oi.UserMetadata)
		}
		if oi.LastModified.IsZero() || time.Since(oi.LastModified) > time.Minute {
			t.Errorf("%s: LastModified %v", what, oi.LastModified)
		}
	}
	st, err := c.StatObject(ctx, bucket, "greeting.txt", minio.StatObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check("StatObject", st)
	got, gi := itest.MinioGet(t, c, bucket, "greeting.txt", minio.GetObjectOptions{})
	if !bytes.Equal(got, body) {
		t.Fatalf("GetObject = %q, want %q", got, body)
	}
	check("GetObject", gi)

	// Content-MD5 sent by the client is verified and accepted.
	itest.MinioPut(t, c, bucket, "with-md5", body, minio.PutObjectOptions{SendContentMd5: true})

	// Overwrite replaces bytes and metadata entirely.
	itest.MinioPut(t, c, bucket, "greeting.txt", []byte("v2"), minio.PutObjectOptions{})
	st, err = c.StatObject(ctx, bucket, "greeting.txt", minio.StatObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// (minio-go sends Content-Type application/octet-stream when none is given.)
	if st.Size != 2 || st.ContentType != "application/octet-stream" || len(st.UserMetadata) != 0 ||
		st.Metadata.Get("Content-Disposition") != "" || st.Metadata.Get("Cache-Control") != "" {
		t.Errorf("after overwrite: size %d type %q meta %v headers %v", st.Size, st.ContentType, st.UserMetadata, st.Metadata)
	}

	// Empty object.
	itest.MinioPut(t, c, bucket, "empty", nil, minio.PutObjectOptions{})
	if got, gi := itest.MinioGet(t, c, bucket, "empty", minio.GetObjectOptions{}); len(got) != 0 || gi.Size != 0 || gi.ETag != itest.MD5Hex(nil) {
		t.Errorf("empty object: %d bytes, size %d, etag %q", len(got), gi.Size, gi.ETag)
	}

	// Missing keys.
	_, err = c.StatObject(ctx, bucket, "missing", minio.StatObjectOptions{})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchKey")
	_, _, err = itest.MinioTryGet(c, bucket, "missing", minio.GetObjectOptions{})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchKey")
}

func TestMinioLargeObject(t *testing.T) {
	_, c, bucket := itest.StartMinio(t)
	ctx := context.Background()
	const size = 20 << 20 // above minio-go's 16 MiB part size: DisableMultipart keeps one PUT
	data := itest.RandBytes(20, size)
	info, err := c.PutObject(ctx, bucket, "big.bin", bytes.NewReader(data), size, itest.MinioPutOpts())
	if err != nil {
		t.Fatalf("single 20 MiB PUT: %v", err)
	}
	if info.ETag != itest.MD5Hex(data) || strings.Contains(info.ETag, "-") {
		t.Fatalf("ETag %q, want the plain MD5 %q of a single-part upload", info.ETag, itest.MD5Hex(data))
	}
	got, gi := itest.MinioGet(t, c, bucket, "big.bin", minio.GetObjectOptions{})
	if len(got) != size || itest.MD5Hex(got) != itest.MD5Hex(data) || gi.ETag != itest.MD5Hex(data) {
		t.Fatalf("read back %d bytes, MD5 %s; want %d bytes, MD5 %s", len(got), itest.MD5Hex(got), size, itest.MD5Hex(data))
	}

	// A 16 MiB object with default PartSize is exactly one part: minio-go
	// sends it as a single PUT without being told.
	data16 := data[:16<<20]
	info, err = c.PutObject(ctx, bucket, "sixteen.bin", bytes.NewReader(data16), int64(len(data16)),
		minio.PutObjectOptions{DisableContentSha256: true})
	if err != nil {
		t.Fatalf("16 MiB PUT: %v", err)
	}
	if info.ETag != itest.MD5Hex(data16) {
		t.Fatalf("16 MiB ETag %q, want %q", info.ETag, itest.MD5Hex(data16))
	}
	got, _ = itest.MinioGet(t, c, bucket, "sixteen.bin", minio.GetObjectOptions{})
	if itest.MD5Hex(got) != itest.MD5Hex(data16) {
		t.Fatal("16 MiB object read back differs")
	}
}

// TestMinioStreamingSignature runs minio-go's default PutObject over plain
// HTTP, which signs the body with aws-chunked streaming signatures.
func TestMinioStreamingSignature(t *testing.T) {
	_, c, bucket := itest.StartMinio(t)
	ctx := context.Background()
	data := itest.RandBytes(11, 200_000)
	_, err := c.PutObject(ctx, bucket, "streamed", bytes.NewReader(data), int64(len(data)), minio.PutObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := itest.MinioGet(t, c, bucket, "streamed", minio.GetObjectOptions{})
	if !bytes.Equal(got, data) {
		t.Fatal("streamed object read back differs")
	}
}
