package integration

// Deletes: DeleteObject (plain and conditional) and DeleteObjects,
// through aws-sdk-go-v2 and minio-go's RemoveObject/RemoveObjects.

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/minio/minio-go/v7"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

func TestAWSDeleteObject(t *testing.T) {
	_, c := itest.StartBucket(t, "del")
	ctx := context.Background()
	itest.Put(t, c, "del", "k", []byte("x"))
	itest.Put(t, c, "del", "keep", []byte("kept"))

	for i := range 3 { // existing, then already gone: always 204
		out, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("del"), Key: aws.String("k")})
		if err != nil {
			t.Fatalf("delete #%d: %v", i, err)
		}
		if st := itest.Status(out.ResultMetadata); st != http.StatusNoContent {
			t.Fatalf("delete #%d: status %d, want 204", i, st)
		}
		itest.WantNoObject(t, c, "del", "k")
	}
	out, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("del"), Key: aws.String("never-existed")})
	if err != nil || itest.Status(out.ResultMetadata) != http.StatusNoContent {
		t.Fatalf("delete of a never-existing key: %v", err)
	}
	itest.WantObject(t, c, "del", "keep", []byte("kept"))
}

func TestAWSDeleteObjects(t *testing.T) {
	srv, c := itest.StartBucket(t, "multi")
	ctx := context.Background()
	keys := []string{"a", "b", "c/d", "e f", "x&y<z>", "日本"}
	for _, k := range keys {
		itest.Put(t, c, "multi", k, []byte("v:"+k))
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
		itest.WantNoObject(t, c, "multi", k)
	}
	itest.WantObject(t, c, "multi", "b", []byte("v:b"))

	// Quiet: nothing reported on success.
	out, err = c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("multi"),
		Delete: &types.Delete{Objects: ids("b", "e f", "missing-3"), Quiet: aws.Bool(true)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Deleted) != 0 || len(out.Errors) != 0 {
		t.Errorf("quiet mode reported %d deleted, %d errors", len(out.Deleted), len(out.Errors))
	}
	itest.WantNoObject(t, c, "multi", "b")
	itest.WantNoObject(t, c, "multi", "e f")
	itest.WantObject(t, c, "multi", "c/d", []byte("v:c/d"))

	// A conditional delete (ETag) that fails is reported per key.
	itest.Put(t, c, "multi", "guarded", []byte("g"))
	out, err = c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("multi"),
		Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String("guarded"), ETag: aws.String(`"00000000000000000000000000000000"`)}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Errors) != 1 || aws.ToString(out.Errors[0].Key) != "guarded" || aws.ToString(out.Errors[0].Code) != "PreconditionFailed" {
		t.Errorf("conditional delete with wrong ETag: deleted %v, errors %+v", out.Deleted, out.Errors)
	}
	itest.WantObject(t, c, "multi", "guarded", []byte("g"))

	// Over 1000 keys: refused as a whole, nothing deleted.
	var many []string
	for i := range 1001 {
		many = append(many, fmt.Sprintf("k%04d", i))
	}
	many[500] = "c/d"
	_, err = c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("multi"), Delete: &types.Delete{Objects: ids(many...)}})
	itest.WantErr(t, err, http.StatusBadRequest, "MalformedXML")
	itest.WantObject(t, c, "multi", "c/d", []byte("v:c/d"))

	// Exactly 1000 is fine.
	out, err = c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("multi"), Delete: &types.Delete{Objects: ids(many[:1000]...)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Deleted) != 1000 {
		t.Errorf("1000-key delete reported %d deleted", len(out.Deleted))
	}
	itest.WantNoObject(t, c, "multi", "c/d")
	itest.WantNoStrayFiles(t, srv, c)
}

func TestAWSDeleteObjectConditional(t *testing.T) {
	_, c := itest.StartBucket(t, "conddel")
	ctx := context.Background()
	put := itest.Put(t, c, "conddel", "k", []byte("guarded"))
	_, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("conddel"), Key: aws.String("k"), IfMatch: aws.String(itest.ETag([]byte("other")))})
	itest.WantErr(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	itest.WantObject(t, c, "conddel", "k", []byte("guarded"))
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("conddel"), Key: aws.String("k"), IfMatch: put.ETag}); err != nil {
		t.Fatalf("delete with the current ETag: %v", err)
	}
	itest.WantNoObject(t, c, "conddel", "k")
	// A conditional delete of a missing key is not silently "done".
	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("conddel"), Key: aws.String("k"), IfMatch: put.ETag})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchKey")
}

func TestMinioRemove(t *testing.T) {
	_, c, bucket := itest.StartMinio(t, testutil.WithoutFsync())
	ctx := context.Background()
	itest.MinioPut(t, c, bucket, "one", []byte("1"), minio.PutObjectOptions{})
	if err := c.RemoveObject(ctx, bucket, "one", minio.RemoveObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := c.StatObject(ctx, bucket, "one", minio.StatObjectOptions{})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchKey")
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
			itest.MinioPut(t, c, bucket, k, []byte(k), minio.PutObjectOptions{})
		}
	}
	for _, k := range []string{"odd/<&>\"'", "odd/ü +%", "odd//x", "odd/../y", "odd/tab\tnl\n"} {
		keys = append(keys, k)
		itest.MinioPut(t, c, bucket, k, []byte(k), minio.PutObjectOptions{})
	}
	itest.MinioPut(t, c, bucket, "keep", []byte("keep"), minio.PutObjectOptions{})
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
