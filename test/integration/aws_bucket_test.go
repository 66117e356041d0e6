package integration

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/jogstore/jog/internal/testutil"
)

func TestAWSListBuckets(t *testing.T) {
	_, c := awsStart(t)
	ctx := context.Background()

	out, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Buckets) != 0 {
		t.Fatalf("fresh server lists %d buckets, want 0", len(out.Buckets))
	}
	if out.Owner == nil || aws.ToString(out.Owner.ID) == "" {
		t.Fatalf("ListBuckets without owner: %+v", out.Owner)
	}

	before := time.Now().Add(-time.Second)
	for _, b := range []string{"zeta", "alpha", "mid.dle", "0digits"} {
		awsMustCreateBucket(t, c, b)
	}
	after := time.Now().Add(time.Second)
	out, err = c.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range out.Buckets {
		names = append(names, aws.ToString(b.Name))
		if b.CreationDate == nil || b.CreationDate.Before(before) || b.CreationDate.After(after) {
			t.Errorf("bucket %s: CreationDate %v not in [%v, %v]", aws.ToString(b.Name), b.CreationDate, before, after)
		}
	}
	if got, want := strings.Join(names, ","), "0digits,alpha,mid.dle,zeta"; got != want {
		t.Fatalf("ListBuckets = %s, want %s", got, want)
	}
}

func TestAWSCreateBucketNames(t *testing.T) {
	_, c := awsStart(t)
	ctx := context.Background()

	invalid := []string{
		"ab",                      // too short
		strings.Repeat("a", 64),   // too long
		"MyBucket",                // uppercase
		"my_bucket",               // underscore
		"192.168.5.4",             // IP address
		"my..bucket",              // adjacent dots
		"my.-bucket",              // dot next to hyphen
		"xn--bucket",              // reserved prefix
		"-bucket",                 // must start with letter/digit
		"bucket-",                 // must end with letter/digit
		"bucket.",                 // must end with letter/digit
		"sthree-bucket",           // reserved prefix
		"bucket-s3alias",          // reserved suffix
		"buck%et",                 // bad character
		"bucket name",             // space
		"b\u00e9cket",             // non-ASCII
		strings.Repeat("ab.", 22), // 66 chars
	}
	for _, name := range invalid {
		_, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)})
		if err == nil {
			t.Errorf("CreateBucket(%q) succeeded, want InvalidBucketName", name)
			continue
		}
		if code, status := awsErrInfo(err); code != "InvalidBucketName" || status != http.StatusBadRequest {
			t.Errorf("CreateBucket(%q): got %d %q (%v), want 400 InvalidBucketName", name, status, code, err)
		}
	}
	out, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Buckets) != 0 {
		t.Fatalf("refused creations left %d buckets behind", len(out.Buckets))
	}

	valid := []string{"abc", strings.Repeat("a", 63), "my.bucket.name", "1-2", "192.168.5", "a-b-c"}
	for _, name := range valid {
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
			t.Errorf("CreateBucket(%q): %v", name, err)
			continue
		}
		if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(name)}); err != nil {
			t.Errorf("HeadBucket(%q) after create: %v", name, err)
		}
	}
}

// TestAWSCreateBucketDuplicateAndLocation: in us-east-1 re-creating a
// bucket you own answers 200, as S3 does there "for legacy
// compatibility" (the BucketAlreadyOwnedByYou error's documentation),
// and changes nothing.
func TestAWSCreateBucketDuplicateAndLocation(t *testing.T) {
	_, c := awsStart(t)
	ctx := context.Background()
	awsMustCreateBucket(t, c, "dup")
	awsMustPut(t, c, "dup", "k", []byte("v"))
	before, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		out, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("dup")})
		if err != nil || awsStatus(out.ResultMetadata) != http.StatusOK {
			t.Fatalf("CreateBucket of an owned bucket in us-east-1: %v", err)
		}
	}
	awsWantObject(t, c, "dup", "k", []byte("v"))
	after, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Buckets) != 1 || !aws.ToTime(after.Buckets[0].CreationDate).Equal(aws.ToTime(before.Buckets[0].CreationDate)) {
		t.Errorf("buckets after re-creating: %+v, before: %+v", after.Buckets, before.Buckets)
	}

	// A location constraint equal to the server's region is accepted.
	_, err = c.CreateBucket(ctx, &s3.CreateBucketInput{
		Bucket: aws.String("here"),
		CreateBucketConfiguration: &types.CreateBucketConfiguration{
			LocationConstraint: types.BucketLocationConstraint(testutil.Region),
		},
	})
	if err != nil {
		t.Fatalf("CreateBucket with LocationConstraint %s: %v", testutil.Region, err)
	}
	if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("here")}); err != nil {
		t.Fatal(err)
	}

	// Any other region is refused and creates nothing.
	_, err = c.CreateBucket(ctx, &s3.CreateBucketInput{
		Bucket: aws.String("elsewhere"),
		CreateBucketConfiguration: &types.CreateBucketConfiguration{
			LocationConstraint: types.BucketLocationConstraintEuWest1,
		},
	})
	awsWantErr(t, err, http.StatusBadRequest, "IllegalLocationConstraintException")
	_, err = c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("elsewhere")})
	awsWantErr(t, err, http.StatusNotFound, "NotFound")
}

// TestAWSCreateBucketOwnedElsewhere: outside us-east-1, re-creating a
// bucket you own is 409 BucketAlreadyOwnedByYou, and changes nothing.
func TestAWSCreateBucketOwnedElsewhere(t *testing.T) {
	_, c := awsStart(t, testutil.WithRegion("eu-west-1"))
	ctx := context.Background()
	cfg := &types.CreateBucketConfiguration{LocationConstraint: types.BucketLocationConstraintEuWest1}
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("dup"), CreateBucketConfiguration: cfg}); err != nil {
		t.Fatal(err)
	}
	awsMustPut(t, c, "dup", "k", []byte("v"))
	for _, in := range []*s3.CreateBucketInput{
		{Bucket: aws.String("dup"), CreateBucketConfiguration: cfg},
		{Bucket: aws.String("dup")},
	} {
		_, err := c.CreateBucket(ctx, in)
		awsWantErr(t, err, http.StatusConflict, "BucketAlreadyOwnedByYou")
	}
	awsWantObject(t, c, "dup", "k", []byte("v"))
	out, err := c.GetBucketLocation(ctx, &s3.GetBucketLocationInput{Bucket: aws.String("dup")})
	if err != nil || out.LocationConstraint != types.BucketLocationConstraintEuWest1 {
		t.Errorf("GetBucketLocation = %v, %v", out, err)
	}
}

func TestAWSHeadBucket(t *testing.T) {
	_, c := awsStartBucket(t, "there")
	ctx := context.Background()
	out, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("there")})
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToString(out.BucketRegion); got != testutil.Region {
		t.Errorf("HeadBucket region %q, want %q", got, testutil.Region)
	}
	_, err = c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("not-there")})
	awsWantErr(t, err, http.StatusNotFound, "NotFound")
}

func TestAWSDeleteBucket(t *testing.T) {
	_, c := awsStartBucket(t, "full")
	ctx := context.Background()
	awsMustPut(t, c, "full", "obj", []byte("content"))

	_, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("full")})
	awsWantErr(t, err, http.StatusConflict, "BucketNotEmpty")
	awsWantObject(t, c, "full", "obj", []byte("content"))

	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("full"), Key: aws.String("obj")}); err != nil {
		t.Fatal(err)
	}
	out, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("full")})
	if err != nil {
		t.Fatalf("DeleteBucket of emptied bucket: %v", err)
	}
	if st := awsStatus(out.ResultMetadata); st != http.StatusNoContent {
		t.Errorf("DeleteBucket status %d, want 204", st)
	}
	_, err = c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("full")})
	awsWantErr(t, err, http.StatusNotFound, "NotFound")
	_, err = c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("full")})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	_, err = c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("never-was")})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchBucket")

	// The name is free again, and the new bucket starts empty.
	awsMustCreateBucket(t, c, "full")
	lo, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("full")})
	if err != nil {
		t.Fatal(err)
	}
	if len(lo.Contents) != 0 {
		t.Fatalf("recreated bucket lists %d objects", len(lo.Contents))
	}
}

func TestAWSGetBucketLocation(t *testing.T) {
	_, c := awsStartBucket(t, "loc")
	ctx := context.Background()
	out, err := c.GetBucketLocation(ctx, &s3.GetBucketLocationInput{Bucket: aws.String("loc")})
	if err != nil {
		t.Fatal(err)
	}
	// S3 reports us-east-1 as the empty constraint.
	if out.LocationConstraint != "" {
		t.Errorf("LocationConstraint %q, want empty for us-east-1", out.LocationConstraint)
	}
	_, err = c.GetBucketLocation(ctx, &s3.GetBucketLocationInput{Bucket: aws.String("nope")})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchBucket")
}

// A signed request to /health/... is S3, not the health endpoint: a bucket
// named "health" works like any other.
func TestAWSBucketNamedHealth(t *testing.T) {
	srv, c := awsStartBucket(t, "health")
	awsMustPut(t, c, "health", "live", []byte("not a probe"))
	awsWantObject(t, c, "health", "live", []byte("not a probe"))
	resp, body := awsDo(t, awsRawRequest(t, srv, http.MethodGet, "/health/live", nil))
	if resp.StatusCode != http.StatusOK || string(body) == "not a probe" {
		t.Fatalf("unsigned /health/live: %d %q", resp.StatusCode, body)
	}
}
