package integration

// Object tagging: Put/Get/DeleteObjectTagging, x-amz-tagging on PutObject,
// CopyObject (x-amz-tagging-directive) and CreateMultipartUpload, and
// x-amz-tagging-count on GET and HEAD.

import (
	"bytes"
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/test/integration/itest"
)

func objectTags(t *testing.T, c *s3.Client, bucket, key, version string) []string {
	t.Helper()
	in := &s3.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String(key)}
	if version != "" {
		in.VersionId = aws.String(version)
	}
	out, err := c.GetObjectTagging(context.Background(), in)
	if err != nil {
		t.Fatalf("GetObjectTagging(%s, %q): %v", key, version, err)
	}
	return tagPairs(out.TagSet)
}

func wantObjectTags(t *testing.T, c *s3.Client, bucket, key, version string, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if got := objectTags(t, c, bucket, key, version); !reflect.DeepEqual(got, want) {
		t.Fatalf("tags of %s %q = %v, want %v", key, version, got, want)
	}
}

// wantTagCount checks x-amz-tagging-count on GET and HEAD (0: absent).
func wantTagCount(t *testing.T, c *s3.Client, bucket, key string, want int32) {
	t.Helper()
	_, g := itest.Get(t, c, bucket, key)
	h, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToInt32(g.TagCount) != want || aws.ToInt32(h.TagCount) != want {
		t.Fatalf("%s: tag count GET %d, HEAD %d, want %d", key, aws.ToInt32(g.TagCount), aws.ToInt32(h.TagCount), want)
	}
}

func TestObjectTagging(t *testing.T) {
	_, c := itest.StartBucket(t, "otags")
	ctx := context.Background()
	b, k := aws.String("otags"), aws.String("obj")
	itest.Put(t, c, "otags", "obj", []byte("data"))
	wantObjectTags(t, c, "otags", "obj", "")
	wantTagCount(t, c, "otags", "obj", 0)

	want := tagSet("team", "data eng", "path", "a/b:c@d", "empty", "")
	if _, err := c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: b, Key: k, Tagging: &types.Tagging{TagSet: want}}); err != nil {
		t.Fatalf("PutObjectTagging: %v", err)
	}
	wantObjectTags(t, c, "otags", "obj", "", "empty=", "path=a/b:c@d", "team=data eng")
	wantTagCount(t, c, "otags", "obj", 3)
	itest.WantObject(t, c, "otags", "obj", []byte("data"))

	for _, tc := range []struct {
		name string
		tags []types.Tag
		code string
	}{
		{"11 tags", manyTags(11), "BadRequest"},
		{"duplicate key", tagSet("a", "1", "a", "2"), "InvalidTag"},
		{"aws: key", tagSet("aws:k", "v"), "InvalidTag"},
		{"long key", tagSet(strings.Repeat("k", 129), "v"), "InvalidTag"},
		{"long value", tagSet("k", strings.Repeat("v", 257)), "InvalidTag"},
		{"bad character", tagSet("k<", "v"), "InvalidTag"},
	} {
		_, err := c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: b, Key: k, Tagging: &types.Tagging{TagSet: tc.tags}})
		itest.WantErr(t, err, http.StatusBadRequest, tc.code)
		wantObjectTags(t, c, "otags", "obj", "", "empty=", "path=a/b:c@d", "team=data eng")
	}
	if _, err := c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: b, Key: k, Tagging: &types.Tagging{TagSet: manyTags(10)}}); err != nil {
		t.Fatalf("PutObjectTagging of 10: %v", err)
	}
	wantTagCount(t, c, "otags", "obj", 10)

	if _, err := c.DeleteObjectTagging(ctx, &s3.DeleteObjectTaggingInput{Bucket: b, Key: k}); err != nil {
		t.Fatalf("DeleteObjectTagging: %v", err)
	}
	wantObjectTags(t, c, "otags", "obj", "")
	wantTagCount(t, c, "otags", "obj", 0)

	missing := aws.String("missing")
	_, err := c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: b, Key: missing})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchKey")
	_, err = c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: b, Key: missing, Tagging: &types.Tagging{TagSet: want}})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchKey")
	_, err = c.DeleteObjectTagging(ctx, &s3.DeleteObjectTaggingInput{Bucket: b, Key: missing})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchKey")
	itest.WantNoObject(t, c, "otags", "missing")
	_, err = c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String("nope"), Key: k})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
}

func TestObjectTaggingOnWrites(t *testing.T) {
	_, c := itest.StartBucket(t, "wtags")
	ctx := context.Background()
	b := aws.String("wtags")

	itest.Put(t, c, "wtags", "put", []byte("x"), func(in *s3.PutObjectInput) { in.Tagging = aws.String("b=2&a=x%20y&c=") })
	wantObjectTags(t, c, "wtags", "put", "", "a=x y", "b=2", "c=")
	wantTagCount(t, c, "wtags", "put", 3)

	// A refused x-amz-tagging stores nothing.
	for _, tc := range []struct{ header, code string }{
		{"a=1&a=2", "InvalidArgument"},
		{"aws:k=v", "InvalidTag"},
		{"k%3C=v", "InvalidTag"},
		{strings.Repeat("k", 129) + "=v", "InvalidTag"},
		{"a=1&b=1&c=1&d=1&e=1&f=1&g=1&h=1&i=1&j=1&k=1", "BadRequest"},
	} {
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("put"), Body: bytes.NewReader([]byte("new")), Tagging: aws.String(tc.header)})
		itest.WantErr(t, err, http.StatusBadRequest, tc.code)
		itest.WantObject(t, c, "wtags", "put", []byte("x"))
		wantObjectTags(t, c, "wtags", "put", "", "a=x y", "b=2", "c=")
	}
	// Overwriting without x-amz-tagging leaves the new version untagged.
	itest.Put(t, c, "wtags", "put", []byte("y"))
	wantObjectTags(t, c, "wtags", "put", "")
	itest.Put(t, c, "wtags", "src", []byte("src"), func(in *s3.PutObjectInput) { in.Tagging = aws.String("from=src") })

	// Copy: COPY (the default) keeps the source's tags, REPLACE takes x-amz-tagging.
	copyTo := func(dst string, fn func(*s3.CopyObjectInput)) {
		t.Helper()
		in := &s3.CopyObjectInput{Bucket: b, Key: aws.String(dst), CopySource: aws.String("wtags/src")}
		fn(in)
		if _, err := c.CopyObject(ctx, in); err != nil {
			t.Fatalf("CopyObject to %s: %v", dst, err)
		}
	}
	copyTo("copy-default", func(in *s3.CopyObjectInput) {})
	wantObjectTags(t, c, "wtags", "copy-default", "", "from=src")
	copyTo("copy-copy", func(in *s3.CopyObjectInput) {
		in.TaggingDirective, in.Tagging = types.TaggingDirectiveCopy, aws.String("ignored=1")
	})
	wantObjectTags(t, c, "wtags", "copy-copy", "", "from=src")
	copyTo("copy-replace", func(in *s3.CopyObjectInput) {
		in.TaggingDirective, in.Tagging = types.TaggingDirectiveReplace, aws.String("to=dst&n=2")
	})
	wantObjectTags(t, c, "wtags", "copy-replace", "", "n=2", "to=dst")
	copyTo("copy-replace-none", func(in *s3.CopyObjectInput) { in.TaggingDirective = types.TaggingDirectiveReplace })
	wantObjectTags(t, c, "wtags", "copy-replace-none", "")
	_, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("copy-bad"), CopySource: aws.String("wtags/src"),
		TaggingDirective: types.TaggingDirectiveReplace, Tagging: aws.String("a=1&a=2")})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
	itest.WantNoObject(t, c, "wtags", "copy-bad")

	// Multipart: the tags given at creation are the object's at completion.
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: b, Key: aws.String("mp"), Tagging: aws.String("mp=yes")})
	if err != nil {
		t.Fatal(err)
	}
	part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: b, Key: aws.String("mp"), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), Body: bytes.NewReader([]byte("part"))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: b, Key: aws.String("mp"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: part.ETag}}}}); err != nil {
		t.Fatal(err)
	}
	wantObjectTags(t, c, "wtags", "mp", "", "mp=yes")
	wantTagCount(t, c, "wtags", "mp", 1)
	_, err = c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: b, Key: aws.String("mp-bad"), Tagging: aws.String("=v")})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidTag")
	ups, err := c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: b})
	if err != nil || len(ups.Uploads) != 0 {
		t.Fatalf("uploads after a refused CreateMultipartUpload: %v, %v", ups, err)
	}
}

func TestObjectTaggingVersions(t *testing.T) {
	_, c := itest.StartBucket(t, "vtags")
	ctx := context.Background()
	b, k := aws.String("vtags"), aws.String("k")
	setVersioning(t, c, "vtags", types.BucketVersioningStatusEnabled)
	v1 := aws.ToString(itest.Put(t, c, "vtags", "k", []byte("1"), func(in *s3.PutObjectInput) { in.Tagging = aws.String("v=1") }).VersionId)
	v2 := aws.ToString(itest.Put(t, c, "vtags", "k", []byte("2"), func(in *s3.PutObjectInput) { in.Tagging = aws.String("v=2") }).VersionId)
	wantObjectTags(t, c, "vtags", "k", v1, "v=1")
	wantObjectTags(t, c, "vtags", "k", v2, "v=2")
	wantObjectTags(t, c, "vtags", "k", "", "v=2")

	out, err := c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: b, Key: k, VersionId: aws.String(v1),
		Tagging: &types.Tagging{TagSet: tagSet("v", "one")}})
	if err != nil || aws.ToString(out.VersionId) != v1 {
		t.Fatalf("PutObjectTagging of v1: %v (version %q)", err, aws.ToString(out.VersionId))
	}
	wantObjectTags(t, c, "vtags", "k", v1, "v=one")
	wantObjectTags(t, c, "vtags", "k", v2, "v=2")
	if _, err := c.DeleteObjectTagging(ctx, &s3.DeleteObjectTaggingInput{Bucket: b, Key: k, VersionId: aws.String(v2)}); err != nil {
		t.Fatal(err)
	}
	wantObjectTags(t, c, "vtags", "k", v2)
	wantObjectTags(t, c, "vtags", "k", v1, "v=one")

	_, err = c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: b, Key: k, VersionId: aws.String(unknownVersion)})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchVersion")

	// Behind a delete marker: the latest is gone (404), the marker by ID
	// is not an object (405); older versions keep their tags.
	del, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: b, Key: k})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: b, Key: k})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchKey")
	_, err = c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: b, Key: k, VersionId: del.VersionId,
		Tagging: &types.Tagging{TagSet: tagSet("a", "1")}})
	itest.WantErr(t, err, http.StatusMethodNotAllowed, "MethodNotAllowed")
	wantObjectTags(t, c, "vtags", "k", v1, "v=one")
}

// TestObjectTaggingExpiration: x-amz-expiration follows a rule filtering on
// the version's tags.
func TestObjectTaggingExpiration(t *testing.T) {
	_, c := itest.StartBucket(t, "etags")
	ctx := context.Background()
	if err := lcPut(ctx, c, "etags", []types.LifecycleRule{{ID: aws.String("tmp"), Status: types.ExpirationStatusEnabled,
		Filter:     &types.LifecycleRuleFilter{Tag: &types.Tag{Key: aws.String("tmp"), Value: aws.String("yes")}},
		Expiration: &types.LifecycleExpiration{Days: aws.Int32(1)}}}); err != nil {
		t.Fatal(err)
	}
	tagged := itest.Put(t, c, "etags", "a", []byte("a"), func(in *s3.PutObjectInput) { in.Tagging = aws.String("tmp=yes") })
	if !strings.Contains(aws.ToString(tagged.Expiration), `rule-id="tmp"`) {
		t.Errorf("PutObject of a tagged object: x-amz-expiration %q", aws.ToString(tagged.Expiration))
	}
	if plain := itest.Put(t, c, "etags", "b", []byte("b")); plain.Expiration != nil {
		t.Errorf("PutObject of an untagged object: x-amz-expiration %q", aws.ToString(plain.Expiration))
	}
	h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("etags"), Key: aws.String("a")})
	if err != nil || !strings.Contains(aws.ToString(h.Expiration), `rule-id="tmp"`) {
		t.Errorf("HeadObject: x-amz-expiration %q, %v", aws.ToString(h.Expiration), err)
	}
}
