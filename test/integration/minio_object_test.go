package integration

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/jogstore/jog/internal/testutil"
)

func TestMinioPutGetStat(t *testing.T) {
	_, c, bucket := mcSetup(t)
	ctx := context.Background()
	body := []byte("hello, minio-go\n")
	opts := minio.PutObjectOptions{
		ContentType:        "text/plain; charset=utf-8",
		ContentDisposition: `attachment; filename="hello.txt"`,
		ContentLanguage:    "en",
		CacheControl:       "max-age=60",
		UserMetadata:       map[string]string{"Color": "blue", "x-amz-meta-Shape": "round"},
	}
	info := mcPut(t, c, bucket, "greeting.txt", body, opts)
	if info.Size != int64(len(body)) {
		t.Errorf("UploadInfo.Size = %d, want %d", info.Size, len(body))
	}

	check := func(what string, oi minio.ObjectInfo) {
		t.Helper()
		if oi.Key != "greeting.txt" || oi.Size != int64(len(body)) || oi.ETag != mcMD5(body) {
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
	got, gi := mcGet(t, c, bucket, "greeting.txt", minio.GetObjectOptions{})
	if !bytes.Equal(got, body) {
		t.Fatalf("GetObject = %q, want %q", got, body)
	}
	check("GetObject", gi)

	// Content-MD5 sent by the client is verified and accepted.
	mcPut(t, c, bucket, "with-md5", body, minio.PutObjectOptions{SendContentMd5: true})

	// Overwrite replaces bytes and metadata entirely.
	mcPut(t, c, bucket, "greeting.txt", []byte("v2"), minio.PutObjectOptions{})
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
	mcPut(t, c, bucket, "empty", nil, minio.PutObjectOptions{})
	if got, gi := mcGet(t, c, bucket, "empty", minio.GetObjectOptions{}); len(got) != 0 || gi.Size != 0 || gi.ETag != mcMD5(nil) {
		t.Errorf("empty object: %d bytes, size %d, etag %q", len(got), gi.Size, gi.ETag)
	}

	// Missing keys.
	_, err = c.StatObject(ctx, bucket, "missing", minio.StatObjectOptions{})
	mcWantErr(t, "StatObject missing", err, "NoSuchKey", http.StatusNotFound)
	_, _, err = mcTryGet(c, bucket, "missing", minio.GetObjectOptions{})
	mcWantErr(t, "GetObject missing", err, "NoSuchKey", http.StatusNotFound)
}

func TestMinioLargeObject(t *testing.T) {
	_, c, bucket := mcSetup(t)
	ctx := context.Background()
	const size = 20 << 20 // above minio-go's 16 MiB part size: DisableMultipart keeps one PUT
	data := mcSeeded(20, size)
	info, err := c.PutObject(ctx, bucket, "big.bin", bytes.NewReader(data), size, mcPutOpts())
	if err != nil {
		t.Fatalf("single 20 MiB PUT: %v", err)
	}
	if info.ETag != mcMD5(data) || strings.Contains(info.ETag, "-") {
		t.Fatalf("ETag %q, want the plain MD5 %q of a single-part upload", info.ETag, mcMD5(data))
	}
	got, gi := mcGet(t, c, bucket, "big.bin", minio.GetObjectOptions{})
	if len(got) != size || mcMD5(got) != mcMD5(data) || gi.ETag != mcMD5(data) {
		t.Fatalf("read back %d bytes, MD5 %s; want %d bytes, MD5 %s", len(got), mcMD5(got), size, mcMD5(data))
	}

	// A 16 MiB object with default PartSize is exactly one part: minio-go
	// sends it as a single PUT without being told.
	data16 := data[:16<<20]
	info, err = c.PutObject(ctx, bucket, "sixteen.bin", bytes.NewReader(data16), int64(len(data16)),
		minio.PutObjectOptions{DisableContentSha256: true})
	if err != nil {
		t.Fatalf("16 MiB PUT: %v", err)
	}
	if info.ETag != mcMD5(data16) {
		t.Fatalf("16 MiB ETag %q, want %q", info.ETag, mcMD5(data16))
	}
	got, _ = mcGet(t, c, bucket, "sixteen.bin", minio.GetObjectOptions{})
	if mcMD5(got) != mcMD5(data16) {
		t.Fatal("16 MiB object read back differs")
	}
}

func TestMinioRangedGet(t *testing.T) {
	_, c, bucket := mcSetup(t)
	ctx := context.Background()
	data := mcSeeded(7, 100_000)
	mcPut(t, c, bucket, "r.bin", data, minio.PutObjectOptions{})
	n := int64(len(data))

	for _, tc := range []struct {
		name       string
		start, end int64
		want       []byte
	}{
		{"first byte", 0, 0, data[:1]},
		{"head", 0, 4, data[:5]},
		{"middle", 1000, 1999, data[1000:2000]},
		{"last byte", n - 1, n - 1, data[n-1:]},
		{"from offset", 99_000, 0, data[99_000:]},
		{"suffix", 0, -10, data[n-10:]},
		{"end past size", 99_990, n + 1000, data[99_990:]},
	} {
		opts := minio.GetObjectOptions{}
		if err := opts.SetRange(tc.start, tc.end); err != nil {
			t.Fatal(err)
		}
		got, _ := mcGet(t, c, bucket, "r.bin", opts)
		if !bytes.Equal(got, tc.want) {
			t.Errorf("%s: got %d bytes, want %d", tc.name, len(got), len(tc.want))
		}
	}

	opts := minio.GetObjectOptions{}
	opts.SetRange(n, n+10)
	_, _, err := mcTryGet(c, bucket, "r.bin", opts)
	mcWantErr(t, "range past the end", err, "InvalidRange", http.StatusRequestedRangeNotSatisfiable)

	// Seek and ReadAt on the lazily opened *minio.Object issue ranged GETs.
	obj, err := c.GetObject(ctx, bucket, "r.bin", minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	if st, err := obj.Stat(); err != nil || st.Size != n || st.ETag != mcMD5(data) {
		t.Fatalf("Stat of *minio.Object = size %d etag %q, %v", st.Size, st.ETag, err)
	}
	buf := make([]byte, 500)
	if k, err := obj.ReadAt(buf, 50_000); err != nil || k != 500 || !bytes.Equal(buf, data[50_000:50_500]) {
		t.Fatalf("ReadAt(50000) = %d, %v (equal %v)", k, err, bytes.Equal(buf, data[50_000:50_500]))
	}
	if k, err := obj.ReadAt(buf, n-100); (err != nil && err != io.EOF) || k != 100 || !bytes.Equal(buf[:k], data[n-100:]) {
		t.Fatalf("ReadAt(n-100) = %d, %v", k, err)
	}
	if pos, err := obj.Seek(12_345, io.SeekStart); err != nil || pos != 12_345 {
		t.Fatalf("Seek = %d, %v", pos, err)
	}
	if _, err := io.ReadFull(obj, buf); err != nil || !bytes.Equal(buf, data[12_345:12_845]) {
		t.Fatalf("read after Seek: %v (equal %v)", err, bytes.Equal(buf, data[12_345:12_845]))
	}
	if pos, err := obj.Seek(-300, io.SeekEnd); err != nil || pos != n-300 {
		t.Fatalf("Seek from end = %d, %v", pos, err)
	}
	rest, err := io.ReadAll(obj)
	if err != nil || !bytes.Equal(rest, data[n-300:]) {
		t.Fatalf("read to end after SeekEnd: %d bytes, %v", len(rest), err)
	}
}

func TestMinioRemove(t *testing.T) {
	_, c, bucket := mcSetup(t, testutil.WithoutFsync())
	ctx := context.Background()
	mcPut(t, c, bucket, "one", []byte("1"), minio.PutObjectOptions{})
	if err := c.RemoveObject(ctx, bucket, "one", minio.RemoveObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := c.StatObject(ctx, bucket, "one", minio.StatObjectOptions{})
	mcWantErr(t, "StatObject after RemoveObject", err, "NoSuchKey", http.StatusNotFound)
	// Removing a missing key succeeds, as in S3.
	if err := c.RemoveObject(ctx, bucket, "one", minio.RemoveObjectOptions{}); err != nil {
		t.Fatalf("RemoveObject of a missing key: %v", err)
	}

	// Batch removal: 1200 keys span two DeleteObjects requests (1000 max
	// each); missing keys are reported as deleted, not as errors.
	var keys []string
	for i := range 1200 {
		k := fmt.Sprintf("batch/%d/%04d", i%7, i)
		keys = append(keys, k)
		if i%3 == 0 { // write only some of them
			mcPut(t, c, bucket, k, []byte(k), minio.PutObjectOptions{})
		}
	}
	for _, k := range []string{"odd/<&>\"'", "odd/ü +%", "odd//x", "odd/../y", "odd/tab\tnl\n"} {
		keys = append(keys, k)
		mcPut(t, c, bucket, k, []byte(k), minio.PutObjectOptions{})
	}
	mcPut(t, c, bucket, "keep", []byte("keep"), minio.PutObjectOptions{})
	objs := make(chan minio.ObjectInfo)
	go func() {
		defer close(objs)
		for _, k := range keys {
			objs <- minio.ObjectInfo{Key: k}
		}
	}()
	nerr := 0
	for e := range c.RemoveObjects(ctx, bucket, objs, minio.RemoveObjectsOptions{}) {
		nerr++
		t.Errorf("RemoveObjects error for %q: %v", e.ObjectName, e.Err)
	}
	if nerr != 0 {
		t.FailNow()
	}
	var left []string
	for o := range c.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		left = append(left, o.Key)
	}
	if len(left) != 1 || left[0] != "keep" {
		t.Fatalf("after RemoveObjects: %d keys left (%v), want [keep]", len(left), left[:min(len(left), 5)])
	}

	// RemoveObjectsWithResult reports each key.
	objs = make(chan minio.ObjectInfo, 2)
	objs <- minio.ObjectInfo{Key: "keep"}
	objs <- minio.ObjectInfo{Key: "never-existed"}
	close(objs)
	n := 0
	for r := range c.RemoveObjectsWithResult(ctx, bucket, objs, minio.RemoveObjectsOptions{}) {
		n++
		if r.Err != nil {
			t.Errorf("RemoveObjectsWithResult %q: %v", r.ObjectName, r.Err)
		}
	}
	if n != 2 {
		t.Errorf("RemoveObjectsWithResult reported %d results, want 2", n)
	}
}

func TestMinioCopy(t *testing.T) {
	_, c, bucket := mcSetup(t)
	ctx := context.Background()
	if err := c.MakeBucket(ctx, bucket+"-dst", minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	data := mcSeeded(3, 300_000)
	src := mcPut(t, c, bucket, "src/obj", data, minio.PutObjectOptions{
		ContentType: "application/x-src", UserMetadata: map[string]string{"Origin": "source"},
	})

	// COPY directive: bytes and metadata come from the source.
	info, err := c.CopyObject(ctx, minio.CopyDestOptions{Bucket: bucket + "-dst", Object: "copied"},
		minio.CopySrcOptions{Bucket: bucket, Object: "src/obj"})
	if err != nil {
		t.Fatal(err)
	}
	if info.ETag != src.ETag {
		t.Errorf("copy ETag %q, want %q", info.ETag, src.ETag)
	}
	got, gi := mcGet(t, c, bucket+"-dst", "copied", minio.GetObjectOptions{})
	if !bytes.Equal(got, data) || gi.ContentType != "application/x-src" || gi.UserMetadata["Origin"] != "source" {
		t.Errorf("copy: equal %v, type %q, meta %v", bytes.Equal(got, data), gi.ContentType, gi.UserMetadata)
	}

	// REPLACE directive: new metadata, same bytes; source conditions pass.
	_, err = c.CopyObject(ctx, minio.CopyDestOptions{
		Bucket: bucket, Object: "replaced", ReplaceMetadata: true,
		UserMetadata: map[string]string{"Origin": "replaced", "Extra": "1"}, ContentType: "text/x-new",
	}, minio.CopySrcOptions{Bucket: bucket, Object: "src/obj", MatchETag: src.ETag})
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.StatObject(ctx, bucket, "replaced", minio.StatObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.ETag != src.ETag || st.Size != int64(len(data)) || st.ContentType != "text/x-new" ||
		st.UserMetadata["Origin"] != "replaced" || st.UserMetadata["Extra"] != "1" || len(st.UserMetadata) != 2 {
		t.Errorf("replaced copy: etag %q size %d type %q meta %v", st.ETag, st.Size, st.ContentType, st.UserMetadata)
	}

	// Copy onto itself with REPLACE changes only the metadata.
	_, err = c.CopyObject(ctx, minio.CopyDestOptions{Bucket: bucket, Object: "src/obj", ReplaceMetadata: true,
		UserMetadata: map[string]string{"Self": "yes"}},
		minio.CopySrcOptions{Bucket: bucket, Object: "src/obj"})
	if err != nil {
		t.Fatalf("self copy with REPLACE: %v", err)
	}
	got, gi = mcGet(t, c, bucket, "src/obj", minio.GetObjectOptions{})
	if !bytes.Equal(got, data) || gi.UserMetadata["Self"] != "yes" || gi.UserMetadata["Origin"] != "" {
		t.Errorf("self copy: equal %v meta %v", bytes.Equal(got, data), gi.UserMetadata)
	}

	// Failing source conditions.
	_, err = c.CopyObject(ctx, minio.CopyDestOptions{Bucket: bucket, Object: "nope"},
		minio.CopySrcOptions{Bucket: bucket, Object: "src/obj", MatchETag: "0123456789abcdef0123456789abcdef"})
	mcWantErr(t, "copy with wrong MatchETag", err, "PreconditionFailed", http.StatusPreconditionFailed)
	_, err = c.CopyObject(ctx, minio.CopyDestOptions{Bucket: bucket, Object: "nope"},
		minio.CopySrcOptions{Bucket: bucket, Object: "src/obj", NoMatchETag: src.ETag})
	mcWantErr(t, "copy with matching NoMatchETag", err, "PreconditionFailed", http.StatusPreconditionFailed)
	_, err = c.CopyObject(ctx, minio.CopyDestOptions{Bucket: bucket, Object: "nope"},
		minio.CopySrcOptions{Bucket: bucket, Object: "src/obj", MatchUnmodifiedSince: time.Now().Add(-time.Hour)})
	mcWantErr(t, "copy with MatchUnmodifiedSince in the past", err, "PreconditionFailed", http.StatusPreconditionFailed)
	if _, err := c.StatObject(ctx, bucket, "nope", minio.StatObjectOptions{}); minio.ToErrorResponse(err).Code != "NoSuchKey" {
		t.Errorf("a failed copy created its destination: %v", err)
	}

	// Keys that need escaping in x-amz-copy-source.
	for _, k := range []string{"odd/ü +&?=#%.txt", "a//b", "../x"} {
		mcPut(t, c, bucket, k, []byte("odd source "+k), minio.PutObjectOptions{})
		if _, err := c.CopyObject(ctx, minio.CopyDestOptions{Bucket: bucket, Object: "copy of " + k},
			minio.CopySrcOptions{Bucket: bucket, Object: k}); err != nil {
			t.Fatalf("copy of %q: %v", k, err)
		}
		if got, _ := mcGet(t, c, bucket, "copy of "+k, minio.GetObjectOptions{}); string(got) != "odd source "+k {
			t.Errorf("copy of %q holds %q", k, got)
		}
	}

	// Missing source.
	_, err = c.CopyObject(ctx, minio.CopyDestOptions{Bucket: bucket, Object: "nope"},
		minio.CopySrcOptions{Bucket: bucket, Object: "missing"})
	mcWantErr(t, "copy of a missing source", err, "NoSuchKey", http.StatusNotFound)
}

func TestMinioConditionalGet(t *testing.T) {
	_, c, bucket := mcSetup(t)
	ctx := context.Background()
	body := []byte("conditional body")
	info := mcPut(t, c, bucket, "cond", body, minio.PutObjectOptions{})
	st, err := c.StatObject(ctx, bucket, "cond", minio.StatObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lm := st.LastModified
	const wrong = "ffffffffffffffffffffffffffffffff"

	type outcome int
	const (
		ok outcome = iota
		notModified
		failed
	)
	for _, tc := range []struct {
		name string
		set  func(*minio.GetObjectOptions) error
		want outcome
	}{
		{"If-Match right", func(o *minio.GetObjectOptions) error { return o.SetMatchETag(info.ETag) }, ok},
		{"If-Match wrong", func(o *minio.GetObjectOptions) error { return o.SetMatchETag(wrong) }, failed},
		{"If-None-Match right", func(o *minio.GetObjectOptions) error { return o.SetMatchETagExcept(info.ETag) }, notModified},
		{"If-None-Match wrong", func(o *minio.GetObjectOptions) error { return o.SetMatchETagExcept(wrong) }, ok},
		{"If-Modified-Since before", func(o *minio.GetObjectOptions) error { return o.SetModified(lm.Add(-time.Hour)) }, ok},
		{"If-Modified-Since at", func(o *minio.GetObjectOptions) error { return o.SetModified(lm) }, notModified},
		{"If-Modified-Since after", func(o *minio.GetObjectOptions) error { return o.SetModified(lm.Add(time.Hour)) }, notModified},
		{"If-Unmodified-Since before", func(o *minio.GetObjectOptions) error { return o.SetUnmodified(lm.Add(-time.Hour)) }, failed},
		{"If-Unmodified-Since at", func(o *minio.GetObjectOptions) error { return o.SetUnmodified(lm) }, ok},
		{"If-Unmodified-Since after", func(o *minio.GetObjectOptions) error { return o.SetUnmodified(lm.Add(time.Hour)) }, ok},
		// RFC 7232 precedence: a passing If-Match overrides a failing
		// If-Unmodified-Since; If-None-Match overrides If-Modified-Since.
		{"If-Match right + If-Unmodified-Since before", func(o *minio.GetObjectOptions) error {
			o.SetMatchETag(info.ETag)
			return o.SetUnmodified(lm.Add(-time.Hour))
		}, ok},
		{"If-None-Match wrong + If-Modified-Since after", func(o *minio.GetObjectOptions) error {
			o.SetMatchETagExcept(wrong)
			return o.SetModified(lm.Add(time.Hour))
		}, ok},
	} {
		for _, method := range []string{"GET", "HEAD"} {
			var opts minio.GetObjectOptions
			if err := tc.set(&opts); err != nil {
				t.Fatal(err)
			}
			var got []byte
			var err error
			if method == "GET" {
				got, _, err = mcTryGet(c, bucket, "cond", opts)
			} else {
				_, err = c.StatObject(ctx, bucket, "cond", opts)
				got = body
			}
			what := tc.name + " (" + method + ")"
			switch tc.want {
			case ok:
				if err != nil || !bytes.Equal(got, body) {
					t.Errorf("%s: %v, want the object", what, err)
				}
			case notModified:
				if er := minio.ToErrorResponse(err); er.StatusCode != http.StatusNotModified {
					t.Errorf("%s: status %d (%v), want 304", what, er.StatusCode, err)
				}
			case failed:
				if er := minio.ToErrorResponse(err); er.StatusCode != http.StatusPreconditionFailed {
					t.Errorf("%s: status %d (%v), want 412", what, er.StatusCode, err)
				} else if method == "GET" && er.Code != "PreconditionFailed" {
					t.Errorf("%s: code %q, want PreconditionFailed", what, er.Code)
				}
			}
		}
	}
}

func TestMinioOddKeys(t *testing.T) {
	srv, c, bucket := mcSetup(t)
	ctx := context.Background()
	keys := []string{
		"a//b", "a/b", "../x", "./x", "x/..", "dir/", "dir/x", "dir//", "/leading-slash",
		"ünïcødé/日本語/🙂", "space in key", " leading and trailing ", "plus+sign", "percent%20encoded",
		"query?x=1&y=2", "hash#frag", "semi;colon", "quote\"s'", "back\\slash", "tilde~star*",
		"tab\tnewline\n", "brackets[]{}()<>", "comma,equals=", "at@dollar$", "pipe|caret^`",
		strings.Repeat("k", 1024),
		strings.Repeat("é", 512), // 1024 bytes of UTF-8
	}
	for i, k := range keys {
		mcPut(t, c, bucket, k, []byte("content of key #"+string(rune('A'+i))+": "+k), minio.PutObjectOptions{})
	}
	for i, k := range keys {
		want := []byte("content of key #" + string(rune('A'+i)) + ": " + k)
		got, gi := mcGet(t, c, bucket, k, minio.GetObjectOptions{})
		if !bytes.Equal(got, want) {
			t.Errorf("key %q read back %q", k, got)
		}
		if gi.Key != k {
			t.Errorf("key %q: ObjectInfo.Key %q", k, gi.Key)
		}
	}
	var listed []string
	for o := range c.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		listed = append(listed, o.Key)
	}
	if len(listed) != len(keys) {
		t.Errorf("listed %d keys, want %d", len(listed), len(keys))
	}
	seen := map[string]bool{}
	for _, k := range listed {
		seen[k] = true
	}
	for _, k := range keys {
		if !seen[k] {
			t.Errorf("key %q missing from the listing", k)
		}
	}

	// minio-go refuses a 1025-byte key itself, so send that one signed by hand.
	if _, err := c.PutObject(ctx, bucket, strings.Repeat("k", 1025), bytes.NewReader(nil), 0, mcPutOpts()); err == nil {
		t.Error("minio-go accepted a 1025-byte key")
	}
	resp := mcSignedDo(t, srv, http.MethodPut, "/"+bucket+"/"+strings.Repeat("k", 1025), nil)
	if resp.StatusCode != http.StatusBadRequest || resp.code != "KeyTooLongError" {
		t.Errorf("PUT of a 1025-byte key: %d %s, want 400 KeyTooLongError", resp.StatusCode, resp.code)
	}

	for _, k := range keys {
		if err := c.RemoveObject(ctx, bucket, k, minio.RemoveObjectOptions{}); err != nil {
			t.Errorf("RemoveObject %q: %v", k, err)
		}
	}
	if err := c.RemoveBucket(ctx, bucket); err != nil {
		t.Errorf("bucket not empty after removing every odd key: %v", err)
	}
}

// TestMinioStreamingSignature runs minio-go's default PutObject over plain
// HTTP, which signs the body with aws-chunked streaming signatures.
func TestMinioStreamingSignature(t *testing.T) {
	_, c, bucket := mcSetup(t)
	ctx := context.Background()
	data := mcSeeded(11, 200_000)
	_, err := c.PutObject(ctx, bucket, "streamed", bytes.NewReader(data), int64(len(data)), minio.PutObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := mcGet(t, c, bucket, "streamed", minio.GetObjectOptions{})
	if !bytes.Equal(got, data) {
		t.Fatal("streamed object read back differs")
	}
}

// TestMinioUnknownSize uploads with size -1, which minio-go always sends as a
// multipart upload.
func TestMinioUnknownSize(t *testing.T) {
	_, c, bucket := mcSetup(t)
	data := mcSeeded(12, 100_000)
	_, err := c.PutObject(context.Background(), bucket, "unknown-size", bytes.NewReader(data), -1,
		minio.PutObjectOptions{DisableContentSha256: true})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := mcGet(t, c, bucket, "unknown-size", minio.GetObjectOptions{})
	if !bytes.Equal(got, data) {
		t.Fatal("object uploaded with unknown size reads back differently")
	}
}
