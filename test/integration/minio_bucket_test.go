package integration

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/jogstore/jog/internal/testutil"
)

func TestMinioBuckets(t *testing.T) {
	srv := testutil.StartServer(t)
	c := srv.MinioClient(t)
	ctx := context.Background()

	if ok, err := c.BucketExists(ctx, "mc-buckets"); err != nil || ok {
		t.Fatalf("BucketExists before create = %v, %v; want false, nil", ok, err)
	}
	for _, b := range []string{"mc-buckets", "mc-buckets-2", "mc.dotted.bucket"} {
		if err := c.MakeBucket(ctx, b, minio.MakeBucketOptions{}); err != nil {
			t.Fatalf("MakeBucket %s: %v", b, err)
		}
	}
	// us-east-1 answers 200 to re-creating a bucket you own, as S3 does.
	if err := c.MakeBucket(ctx, "mc-buckets", minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("MakeBucket twice in us-east-1: %v", err)
	}
	// minio-go signs a MakeBucket for another region with that region's
	// scope, which this us-east-1 endpoint refuses as S3 does.
	mcWantErr(t, "MakeBucket in another region",
		c.MakeBucket(ctx, "mc-elsewhere", minio.MakeBucketOptions{Region: "eu-west-1"}),
		"AuthorizationHeaderMalformed", http.StatusBadRequest)

	if ok, err := c.BucketExists(ctx, "mc-buckets"); err != nil || !ok {
		t.Fatalf("BucketExists after create = %v, %v; want true, nil", ok, err)
	}
	if loc, err := c.GetBucketLocation(ctx, "mc-buckets"); err != nil || loc != "us-east-1" {
		t.Fatalf("GetBucketLocation = %q, %v; want us-east-1", loc, err)
	}

	list, err := c.ListBuckets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range list {
		names = append(names, b.Name)
		if b.CreationDate.IsZero() {
			t.Errorf("bucket %s has no creation date", b.Name)
		}
	}
	if want := []string{"mc-buckets", "mc-buckets-2", "mc.dotted.bucket"}; !slices.Equal(names, want) {
		t.Fatalf("ListBuckets = %v, want %v", names, want)
	}

	// A bucket with an object cannot be removed; once emptied it can.
	mcPut(t, c, "mc-buckets", "obj", []byte("x"), minio.PutObjectOptions{})
	mcWantErr(t, "RemoveBucket not empty", c.RemoveBucket(ctx, "mc-buckets"), "BucketNotEmpty", http.StatusConflict)
	if err := c.RemoveObject(ctx, "mc-buckets", "obj", minio.RemoveObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"mc-buckets", "mc-buckets-2", "mc.dotted.bucket"} {
		if err := c.RemoveBucket(ctx, b); err != nil {
			t.Fatalf("RemoveBucket %s: %v", b, err)
		}
	}
	mcWantErr(t, "RemoveBucket missing", c.RemoveBucket(ctx, "mc-buckets"), "NoSuchBucket", http.StatusNotFound)
	if ok, err := c.BucketExists(ctx, "mc-buckets"); err != nil || ok {
		t.Fatalf("BucketExists after remove = %v, %v; want false, nil", ok, err)
	}
	if list, err := c.ListBuckets(ctx); err != nil || len(list) != 0 {
		t.Fatalf("ListBuckets after removal = %v, %v; want none", list, err)
	}

	// Operations on a missing bucket.
	_, err = c.PutObject(ctx, "mc-nope", "k", nil, 0, mcPutOpts())
	mcWantErr(t, "PutObject into missing bucket", err, "NoSuchBucket", http.StatusNotFound)
	// HEAD answers carry no body, so minio-go can only guess the code of a
	// 404 from the request (it says NoSuchKey); the status is what counts.
	_, err = c.StatObject(ctx, "mc-nope", "k", minio.StatObjectOptions{})
	if er := minio.ToErrorResponse(err); er.StatusCode != http.StatusNotFound {
		t.Fatalf("StatObject in missing bucket: %v, want 404", err)
	}
	_, _, err = mcTryGet(c, "mc-nope", "k", minio.GetObjectOptions{})
	mcWantErr(t, "GetObject in missing bucket", err, "NoSuchBucket", http.StatusNotFound)
	for o := range c.ListObjects(ctx, "mc-nope", minio.ListObjectsOptions{}) {
		mcWantErr(t, "ListObjects of missing bucket", o.Err, "NoSuchBucket", http.StatusNotFound)
	}
	// Client-side validation rejects bad names before the server sees them;
	// the server's own check is covered by the aws suite.
}
