package integration

// CopyObject: metadata directives, copy onto itself, source conditions,
// encoded keys, through aws-sdk-go-v2 and minio-go.

import (
	"bytes"
	"context"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/minio/minio-go/v7"

	"github.com/jogstore/jog/test/integration/itest"
)

// awsCopySource is the URL-encoded x-amz-copy-source of bucket/key.
func awsCopySource(bucket, key string) *string {
	return aws.String(bucket + "/" + url.PathEscape(key))
}

func TestAWSCopyObjectMetadataDirective(t *testing.T) {
	srv, c := itest.StartBucket(t, "src")
	itest.CreateBucket(t, c, "dst")
	ctx := context.Background()
	body := itest.RandBytes(1, 1<<20+7)
	srcMeta := map[string]string{"origin": "source", "n": "1"}
	itest.Put(t, c, "src", "obj", body, func(in *s3.PutObjectInput) {
		in.ContentType = aws.String("image/png")
		in.CacheControl = aws.String("public")
		in.ContentDisposition = aws.String("inline")
		in.Metadata = srcMeta
	})

	// Default (COPY): bytes, headers and metadata are the source's, even
	// when the request carries other headers.
	before := time.Now().Add(-time.Second)
	out, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("dst"), Key: aws.String("copy"),
		CopySource: aws.String("src/obj"), ContentType: aws.String("text/ignored"),
		Metadata: map[string]string{"ignored": "yes"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.CopyObjectResult == nil || aws.ToString(out.CopyObjectResult.ETag) != itest.ETag(body) {
		t.Fatalf("CopyObjectResult %+v, want ETag %s", out.CopyObjectResult, itest.ETag(body))
	}
	if lm := out.CopyObjectResult.LastModified; lm == nil || lm.Before(before) || lm.After(time.Now().Add(time.Second)) {
		t.Errorf("CopyObjectResult.LastModified %v", lm)
	}
	itest.WantObject(t, c, "dst", "copy", body)
	_, g := itest.Get(t, c, "dst", "copy")
	if aws.ToString(g.ContentType) != "image/png" || aws.ToString(g.CacheControl) != "public" ||
		aws.ToString(g.ContentDisposition) != "inline" || !maps.Equal(g.Metadata, srcMeta) {
		t.Errorf("COPY directive: Content-Type %q Cache-Control %q Content-Disposition %q meta %v",
			aws.ToString(g.ContentType), aws.ToString(g.CacheControl), aws.ToString(g.ContentDisposition), g.Metadata)
	}

	// Explicit COPY behaves the same.
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("dst"), Key: aws.String("copy2"),
		CopySource: aws.String("/src/obj"), MetadataDirective: types.MetadataDirectiveCopy}); err != nil {
		t.Fatal(err)
	}
	if _, g = itest.Get(t, c, "dst", "copy2"); !maps.Equal(g.Metadata, srcMeta) || aws.ToString(g.ContentType) != "image/png" {
		t.Errorf("explicit COPY: %q %v", aws.ToString(g.ContentType), g.Metadata)
	}

	// REPLACE: only the request's headers and metadata.
	newMeta := map[string]string{"fresh": "value"}
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("dst"), Key: aws.String("replaced"),
		CopySource: aws.String("src/obj"), MetadataDirective: types.MetadataDirectiveReplace,
		ContentType: aws.String("application/x-new"), Metadata: newMeta}); err != nil {
		t.Fatal(err)
	}
	itest.WantObject(t, c, "dst", "replaced", body)
	_, g = itest.Get(t, c, "dst", "replaced")
	if aws.ToString(g.ContentType) != "application/x-new" || g.CacheControl != nil || g.ContentDisposition != nil || !maps.Equal(g.Metadata, newMeta) {
		t.Errorf("REPLACE directive: Content-Type %q Cache-Control %v Content-Disposition %v meta %v",
			aws.ToString(g.ContentType), g.CacheControl, g.ContentDisposition, g.Metadata)
	}

	// The source is untouched by all of this.
	itest.WantObject(t, c, "src", "obj", body)
	if _, g = itest.Get(t, c, "src", "obj"); !maps.Equal(g.Metadata, srcMeta) {
		t.Errorf("source metadata changed: %v", g.Metadata)
	}

	// Replacing the source later does not affect the copy.
	itest.Put(t, c, "src", "obj", []byte("new source"))
	itest.WantObject(t, c, "dst", "copy", body)

	// REPLACE metadata obeys the same 2 KiB limit as PUT.
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("dst"), Key: aws.String("copy"),
		CopySource: aws.String("src/obj"), MetadataDirective: types.MetadataDirectiveReplace,
		Metadata: map[string]string{"big": strings.Repeat("m", 2100)}})
	itest.WantErr(t, err, http.StatusBadRequest, "MetadataTooLarge")
	itest.WantObject(t, c, "dst", "copy", body)

	// An unknown directive is refused.
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("dst"), Key: aws.String("bad"),
		CopySource: aws.String("src/obj"), MetadataDirective: "MERGE"})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
	itest.WantNoObject(t, c, "dst", "bad")

	// Zero-byte sources copy too.
	itest.Put(t, c, "src", "empty", nil)
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("dst"), Key: aws.String("empty"), CopySource: aws.String("src/empty")}); err != nil {
		t.Fatal(err)
	}
	itest.WantObject(t, c, "dst", "empty", []byte{})
	itest.WantNoStrayFiles(t, srv, c)
}

func TestAWSCopyObjectOntoItself(t *testing.T) {
	_, c := itest.StartBucket(t, "self")
	ctx := context.Background()
	itest.Put(t, c, "self", "k", []byte("same bytes"), func(in *s3.PutObjectInput) {
		in.Metadata = map[string]string{"v": "1"}
	})
	_, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("self"), Key: aws.String("k"), CopySource: aws.String("self/k")})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidRequest")
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("self"), Key: aws.String("k"), CopySource: aws.String("self/k"),
		MetadataDirective: types.MetadataDirectiveCopy})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidRequest")
	if _, g := itest.Get(t, c, "self", "k"); g.Metadata["v"] != "1" {
		t.Fatalf("refused self-copy changed metadata: %v", g.Metadata)
	}

	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("self"), Key: aws.String("k"), CopySource: aws.String("self/k"),
		MetadataDirective: types.MetadataDirectiveReplace, Metadata: map[string]string{"v": "2"}}); err != nil {
		t.Fatalf("self-copy with REPLACE: %v", err)
	}
	itest.WantObject(t, c, "self", "k", []byte("same bytes"))
	if _, g := itest.Get(t, c, "self", "k"); !maps.Equal(g.Metadata, map[string]string{"v": "2"}) {
		t.Fatalf("self-copy with REPLACE: metadata %v", g.Metadata)
	}
}

func TestAWSCopyObjectSourceConditions(t *testing.T) {
	srv, c := itest.StartBucket(t, "copycond")
	ctx := context.Background()
	body := []byte("source for conditional copies")
	itest.Put(t, c, "copycond", "src", body)
	h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("copycond"), Key: aws.String("src")})
	if err != nil {
		t.Fatal(err)
	}
	etag, lm := aws.ToString(h.ETag), *h.LastModified
	wrong := itest.ETag([]byte("other"))
	past, future := lm.Add(-time.Hour), lm.Add(time.Hour)

	cases := []struct {
		name string
		set  func(*s3.CopyObjectInput)
		ok   bool
	}{
		{"if-match right", func(in *s3.CopyObjectInput) { in.CopySourceIfMatch = aws.String(etag) }, true},
		{"if-match wrong", func(in *s3.CopyObjectInput) { in.CopySourceIfMatch = aws.String(wrong) }, false},
		{"if-none-match matching", func(in *s3.CopyObjectInput) { in.CopySourceIfNoneMatch = aws.String(etag) }, false},
		{"if-none-match other", func(in *s3.CopyObjectInput) { in.CopySourceIfNoneMatch = aws.String(wrong) }, true},
		{"if-modified-since past", func(in *s3.CopyObjectInput) { in.CopySourceIfModifiedSince = aws.Time(past) }, true},
		{"if-modified-since future", func(in *s3.CopyObjectInput) { in.CopySourceIfModifiedSince = aws.Time(future) }, false},
		{"if-unmodified-since past", func(in *s3.CopyObjectInput) { in.CopySourceIfUnmodifiedSince = aws.Time(past) }, false},
		{"if-unmodified-since future", func(in *s3.CopyObjectInput) { in.CopySourceIfUnmodifiedSince = aws.Time(future) }, true},
		{"if-match true + if-unmodified-since false", func(in *s3.CopyObjectInput) {
			in.CopySourceIfMatch, in.CopySourceIfUnmodifiedSince = aws.String(etag), aws.Time(past)
		}, true},
		{"if-none-match false + if-modified-since true", func(in *s3.CopyObjectInput) {
			in.CopySourceIfNoneMatch, in.CopySourceIfModifiedSince = aws.String(etag), aws.Time(past)
		}, false},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dst := "dst-" + strings.ReplaceAll(tc.name, " ", "_")
			in := &s3.CopyObjectInput{Bucket: aws.String("copycond"), Key: aws.String(dst), CopySource: aws.String("copycond/src")}
			tc.set(in)
			_, err := c.CopyObject(ctx, in)
			if tc.ok {
				if err != nil {
					t.Fatalf("case %d: %v", i, err)
				}
				itest.WantObject(t, c, "copycond", dst, body)
				return
			}
			itest.WantErr(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
			itest.WantNoObject(t, c, "copycond", dst)
		})
	}

	// A failed source condition leaves an existing destination alone.
	itest.Put(t, c, "copycond", "existing", []byte("keep me"))
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("copycond"), Key: aws.String("existing"),
		CopySource: aws.String("copycond/src"), CopySourceIfMatch: aws.String(wrong)})
	itest.WantErr(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	itest.WantObject(t, c, "copycond", "existing", []byte("keep me"))

	// Destination write conditions apply as well.
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("copycond"), Key: aws.String("existing"),
		CopySource: aws.String("copycond/src"), IfNoneMatch: aws.String("*")})
	itest.WantErr(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	itest.WantObject(t, c, "copycond", "existing", []byte("keep me"))
	itest.WantNoStrayFiles(t, srv, c)
}

func TestAWSCopyObjectEncodedKeys(t *testing.T) {
	_, c := itest.StartBucket(t, "enc")
	ctx := context.Background()
	keys := []string{
		"with space", "日本語 キー/ファイル.txt", "a+b", "what?.txt", "q?versionId=x",
		"percent%20literal", "amp&eq=hash#frag", "semi;colon,comma", "tilde~star*", "dir/sub dir/ +?%",
	}
	for _, k := range keys {
		itest.Put(t, c, "enc", k, []byte("content of "+k))
	}
	for _, k := range keys {
		dst := "copy-" + k
		if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("enc"), Key: aws.String(dst), CopySource: awsCopySource("enc", k)}); err != nil {
			t.Errorf("copy %q: %v", k, err)
			continue
		}
		itest.WantObject(t, c, "enc", dst, []byte("content of "+k))
		// Fully percent-encoded (QueryEscape-style with %20 for spaces,
		// %2B for plus) names the same key.
		full := "/enc/" + strings.ReplaceAll(url.QueryEscape(k), "+", "%20")
		dst2 := "copy2-" + k
		if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("enc"), Key: aws.String(dst2), CopySource: aws.String(full)}); err != nil {
			t.Errorf("copy %q via %q: %v", k, full, err)
			continue
		}
		itest.WantObject(t, c, "enc", dst2, []byte("content of "+k))
	}
	// "+" in a copy source is a plus, not a space.
	itest.Put(t, c, "enc", "a b", []byte("space"))
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("enc"), Key: aws.String("plus-copy"), CopySource: aws.String("enc/a+b")}); err != nil {
		t.Fatal(err)
	}
	itest.WantObject(t, c, "enc", "plus-copy", []byte("content of a+b"))
	// An unencoded "?" starts the query of the copy source: "what" does
	// not exist.
	_, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("enc"), Key: aws.String("q-copy"), CopySource: aws.String("enc/what?.txt")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchKey")
	// versionId=null names the current (unversioned) object.
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("enc"), Key: aws.String("null-copy"),
		CopySource: aws.String("enc/with%20space?versionId=null")}); err != nil {
		t.Fatalf("copy with versionId=null: %v", err)
	}
	itest.WantObject(t, c, "enc", "null-copy", []byte("content of with space"))
	// A malformed copy source is refused.
	for _, src := range []string{"enc", "enc/", "/enc", "enc/%zz"} {
		_, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("enc"), Key: aws.String("bad"), CopySource: aws.String(src)})
		itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
	}
	itest.WantNoObject(t, c, "enc", "bad")
}

func TestMinioCopy(t *testing.T) {
	_, c, bucket := itest.StartMinio(t)
	ctx := context.Background()
	if err := c.MakeBucket(ctx, bucket+"-dst", minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	data := itest.RandBytes(3, 300_000)
	src := itest.MinioPut(t, c, bucket, "src/obj", data, minio.PutObjectOptions{
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
	got, gi := itest.MinioGet(t, c, bucket+"-dst", "copied", minio.GetObjectOptions{})
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
	got, gi = itest.MinioGet(t, c, bucket, "src/obj", minio.GetObjectOptions{})
	if !bytes.Equal(got, data) || gi.UserMetadata["Self"] != "yes" || gi.UserMetadata["Origin"] != "" {
		t.Errorf("self copy: equal %v meta %v", bytes.Equal(got, data), gi.UserMetadata)
	}

	// Failing source conditions.
	_, err = c.CopyObject(ctx, minio.CopyDestOptions{Bucket: bucket, Object: "nope"},
		minio.CopySrcOptions{Bucket: bucket, Object: "src/obj", MatchETag: "0123456789abcdef0123456789abcdef"})
	itest.WantErr(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	_, err = c.CopyObject(ctx, minio.CopyDestOptions{Bucket: bucket, Object: "nope"},
		minio.CopySrcOptions{Bucket: bucket, Object: "src/obj", NoMatchETag: src.ETag})
	itest.WantErr(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	_, err = c.CopyObject(ctx, minio.CopyDestOptions{Bucket: bucket, Object: "nope"},
		minio.CopySrcOptions{Bucket: bucket, Object: "src/obj", MatchUnmodifiedSince: time.Now().Add(-time.Hour)})
	itest.WantErr(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	if _, err := c.StatObject(ctx, bucket, "nope", minio.StatObjectOptions{}); minio.ToErrorResponse(err).Code != "NoSuchKey" {
		t.Errorf("a failed copy created its destination: %v", err)
	}

	// Keys that need escaping in x-amz-copy-source.
	for _, k := range []string{"odd/ü +&?=#%.txt", "a//b", "../x"} {
		itest.MinioPut(t, c, bucket, k, []byte("odd source "+k), minio.PutObjectOptions{})
		if _, err := c.CopyObject(ctx, minio.CopyDestOptions{Bucket: bucket, Object: "copy of " + k},
			minio.CopySrcOptions{Bucket: bucket, Object: k}); err != nil {
			t.Fatalf("copy of %q: %v", k, err)
		}
		if got, _ := itest.MinioGet(t, c, bucket, "copy of "+k, minio.GetObjectOptions{}); string(got) != "odd source "+k {
			t.Errorf("copy of %q holds %q", k, got)
		}
	}

	// Missing source.
	_, err = c.CopyObject(ctx, minio.CopyDestOptions{Bucket: bucket, Object: "nope"},
		minio.CopySrcOptions{Bucket: bucket, Object: "missing"})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchKey")
}
