package integration

// Buckets: create, head, delete, location, ListBuckets and its paging,
// through aws-sdk-go-v2 and minio-go.

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/minio/minio-go/v7"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

func TestAWSListBuckets(t *testing.T) {
	_, c := itest.Start(t)
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
		itest.CreateBucket(t, c, b)
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
	_, c := itest.Start(t)
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
		if code, status := itest.ErrInfo(err); code != "InvalidBucketName" || status != http.StatusBadRequest {
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
	_, c := itest.Start(t)
	ctx := context.Background()
	itest.CreateBucket(t, c, "dup")
	itest.Put(t, c, "dup", "k", []byte("v"))
	before, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		out, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("dup")})
		if err != nil || itest.Status(out.ResultMetadata) != http.StatusOK {
			t.Fatalf("CreateBucket of an owned bucket in us-east-1: %v", err)
		}
	}
	itest.WantObject(t, c, "dup", "k", []byte("v"))
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
	itest.WantErr(t, err, http.StatusBadRequest, "IllegalLocationConstraintException")
	_, err = c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("elsewhere")})
	itest.WantErr(t, err, http.StatusNotFound, "NotFound")
}

// TestAWSCreateBucketOwnedElsewhere: outside us-east-1, re-creating a
// bucket you own is 409 BucketAlreadyOwnedByYou, and changes nothing.
func TestAWSCreateBucketOwnedElsewhere(t *testing.T) {
	_, c := itest.Start(t, testutil.WithRegion("eu-west-1"))
	ctx := context.Background()
	cfg := &types.CreateBucketConfiguration{LocationConstraint: types.BucketLocationConstraintEuWest1}
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("dup"), CreateBucketConfiguration: cfg}); err != nil {
		t.Fatal(err)
	}
	itest.Put(t, c, "dup", "k", []byte("v"))
	for _, in := range []*s3.CreateBucketInput{
		{Bucket: aws.String("dup"), CreateBucketConfiguration: cfg},
		{Bucket: aws.String("dup")},
	} {
		_, err := c.CreateBucket(ctx, in)
		itest.WantErr(t, err, http.StatusConflict, "BucketAlreadyOwnedByYou")
	}
	itest.WantObject(t, c, "dup", "k", []byte("v"))
	out, err := c.GetBucketLocation(ctx, &s3.GetBucketLocationInput{Bucket: aws.String("dup")})
	if err != nil || out.LocationConstraint != types.BucketLocationConstraintEuWest1 {
		t.Errorf("GetBucketLocation = %v, %v", out, err)
	}
}

func TestAWSHeadBucket(t *testing.T) {
	_, c := itest.StartBucket(t, "there")
	ctx := context.Background()
	out, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("there")})
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToString(out.BucketRegion); got != testutil.Region {
		t.Errorf("HeadBucket region %q, want %q", got, testutil.Region)
	}
	_, err = c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("not-there")})
	itest.WantErr(t, err, http.StatusNotFound, "NotFound")
}

func TestAWSDeleteBucket(t *testing.T) {
	_, c := itest.StartBucket(t, "full")
	ctx := context.Background()
	itest.Put(t, c, "full", "obj", []byte("content"))

	_, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("full")})
	itest.WantErr(t, err, http.StatusConflict, "BucketNotEmpty")
	itest.WantObject(t, c, "full", "obj", []byte("content"))

	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("full"), Key: aws.String("obj")}); err != nil {
		t.Fatal(err)
	}
	out, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("full")})
	if err != nil {
		t.Fatalf("DeleteBucket of emptied bucket: %v", err)
	}
	if st := itest.Status(out.ResultMetadata); st != http.StatusNoContent {
		t.Errorf("DeleteBucket status %d, want 204", st)
	}
	_, err = c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("full")})
	itest.WantErr(t, err, http.StatusNotFound, "NotFound")
	_, err = c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("full")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	_, err = c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("never-was")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")

	// The name is free again, and the new bucket starts empty.
	itest.CreateBucket(t, c, "full")
	lo, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("full")})
	if err != nil {
		t.Fatal(err)
	}
	if len(lo.Contents) != 0 {
		t.Fatalf("recreated bucket lists %d objects", len(lo.Contents))
	}
}

func TestAWSGetBucketLocation(t *testing.T) {
	_, c := itest.StartBucket(t, "loc")
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
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
}

// A signed request to /health/... is S3, not the health endpoint: a bucket
// named "health" works like any other.
func TestAWSBucketNamedHealth(t *testing.T) {
	srv, c := itest.StartBucket(t, "health")
	itest.Put(t, c, "health", "live", []byte("not a probe"))
	itest.WantObject(t, c, "health", "live", []byte("not a probe"))
	resp, body := itest.Do(t, itest.RawRequest(t, srv, http.MethodGet, "/health/live", nil))
	if resp.StatusCode != http.StatusOK || string(body) == "not a probe" {
		t.Fatalf("unsigned /health/live: %d %q", resp.StatusCode, body)
	}
}

// awsBucketNames flattens a ListBuckets page.
func awsBucketNames(out *s3.ListBucketsOutput) []string {
	var names []string
	for _, b := range out.Buckets {
		names = append(names, aws.ToString(b.Name))
	}
	return names
}

// awsListBucketPages walks the SDK's ListBuckets paginator and returns the
// names of each page.
func awsListBucketPages(t *testing.T, c *s3.Client, in *s3.ListBucketsInput) [][]string {
	t.Helper()
	p := s3.NewListBucketsPaginator(c, in)
	var pages [][]string
	for p.HasMorePages() {
		if len(pages) > 100 {
			t.Fatal("ListBuckets paging does not end")
		}
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatalf("ListBuckets page %d: %v", len(pages), err)
		}
		if aws.ToString(out.Prefix) != aws.ToString(in.Prefix) {
			t.Errorf("page %d: Prefix echoed %q, sent %q", len(pages), aws.ToString(out.Prefix), aws.ToString(in.Prefix))
		}
		pages = append(pages, awsBucketNames(out))
	}
	return pages
}

func TestAWSListBucketsPaging(t *testing.T) {
	srv, c := itest.Start(t)
	ctx := context.Background()
	var all, pa []string
	for i := range 12 {
		pa = append(pa, fmt.Sprintf("pa-%02d", i))
	}
	all = append(append(all, pa...), "pb-1", "pb-2", "q-1")
	for _, b := range []string{"q-1", "pb-2", "pa-07", "pa-00", "pa-11", "pb-1", "pa-03", "pa-01", "pa-02", "pa-04", "pa-05", "pa-06", "pa-08", "pa-09", "pa-10"} {
		itest.CreateBucket(t, c, b)
	}

	// No parameter: every bucket, one page, no token.
	out, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatal(err)
	}
	if got := awsBucketNames(out); !slices.Equal(got, all) || out.ContinuationToken != nil || out.Prefix != nil {
		t.Fatalf("ListBuckets: %q token %v prefix %v, want %q and neither", got, out.ContinuationToken, out.Prefix, all)
	}

	for _, tc := range []struct {
		in    s3.ListBucketsInput
		want  []string
		pages int
	}{
		{s3.ListBucketsInput{MaxBuckets: aws.Int32(4)}, all, 4},
		{s3.ListBucketsInput{MaxBuckets: aws.Int32(1)}, all, 15},
		{s3.ListBucketsInput{MaxBuckets: aws.Int32(15)}, all, 1}, // exactly all: no token
		{s3.ListBucketsInput{MaxBuckets: aws.Int32(10000)}, all, 1},
		{s3.ListBucketsInput{MaxBuckets: aws.Int32(5), Prefix: aws.String("pa-")}, pa, 3},
		{s3.ListBucketsInput{MaxBuckets: aws.Int32(2), Prefix: aws.String("pb")}, []string{"pb-1", "pb-2"}, 1},
		{s3.ListBucketsInput{Prefix: aws.String("pa-1")}, []string{"pa-10", "pa-11"}, 1},
		{s3.ListBucketsInput{Prefix: aws.String("nothing")}, nil, 1},
		{s3.ListBucketsInput{BucketRegion: aws.String(testutil.Region)}, all, 1},
		{s3.ListBucketsInput{BucketRegion: aws.String(strings.ToUpper(testutil.Region)), MaxBuckets: aws.Int32(7), Prefix: aws.String("p")}, all[:14], 2},
	} {
		in := tc.in
		pages := awsListBucketPages(t, c, &in)
		var got []string
		for _, p := range pages {
			got = append(got, p...)
		}
		name := fmt.Sprintf("max %v prefix %q region %q", aws.ToInt32(tc.in.MaxBuckets), aws.ToString(tc.in.Prefix), aws.ToString(tc.in.BucketRegion))
		if !slices.Equal(got, tc.want) || len(pages) != tc.pages {
			t.Errorf("%s: %d pages %q, want %d pages of %q", name, len(pages), pages, tc.pages, tc.want)
		}
		for i, p := range pages[:len(pages)-1] {
			if len(p) != int(aws.ToInt32(tc.in.MaxBuckets)) {
				t.Errorf("%s: page %d holds %d buckets, not a full page", name, i, len(p))
			}
		}
	}

	// A page of a paged listing describes its buckets.
	out, err = c.ListBuckets(ctx, &s3.ListBucketsInput{MaxBuckets: aws.Int32(2), Prefix: aws.String("pb")})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range out.Buckets {
		if aws.ToString(b.BucketRegion) != testutil.Region || b.CreationDate == nil || b.CreationDate.IsZero() {
			t.Errorf("bucket %q: region %q created %v", aws.ToString(b.Name), aws.ToString(b.BucketRegion), b.CreationDate)
		}
	}

	// A token goes on after the bucket it names, even once that is gone.
	out, err = c.ListBuckets(ctx, &s3.ListBucketsInput{MaxBuckets: aws.Int32(2), Prefix: aws.String("pa-")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("pa-01")}); err != nil {
		t.Fatal(err)
	}
	out, err = c.ListBuckets(ctx, &s3.ListBucketsInput{MaxBuckets: aws.Int32(2), Prefix: aws.String("pa-"), ContinuationToken: out.ContinuationToken})
	if err != nil {
		t.Fatal(err)
	}
	if got := awsBucketNames(out); !slices.Equal(got, []string{"pa-02", "pa-03"}) {
		t.Errorf("after a token naming a deleted bucket: %q", got)
	}

	// Refused: another region and a token that is not one.
	_, err = c.ListBuckets(ctx, &s3.ListBucketsInput{BucketRegion: aws.String("eu-west-3")})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
	_, err = c.ListBuckets(ctx, &s3.ListBucketsInput{ContinuationToken: aws.String("not a token!")})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")

	awsListBucketsRaw(t, srv)
}

// awsListBucketsRaw sends what the SDK will not: max-buckets out of range
// or not a number, and reads the elements of a page in S3's order.
func awsListBucketsRaw(t *testing.T, srv *testutil.Server) {
	for query, msg := range map[string]string{
		"max-buckets=0":           "Argument max-buckets must be an integer between 1 and 10000.",
		"max-buckets=10001":       "Argument max-buckets must be an integer between 1 and 10000.",
		"max-buckets=-1":          "Argument max-buckets must be an integer between 1 and 10000.",
		"max-buckets=abc":         "Provided max-buckets not an integer or within integer range",
		"max-buckets=":            "Provided max-buckets not an integer or within integer range",
		"max-buckets=99999999999": "Provided max-buckets not an integer or within integer range",
		"bucket-region=mars-1":    "Requests with bucket-region specified must be made to the corresponding regional endpoint",
	} {
		req := itest.RawRequest(t, srv, http.MethodGet, "/?"+query, nil)
		itest.Sign(t, req, nil, itest.SignOpts{})
		resp, body := itest.Do(t, req)
		itest.WantRawErr(t, resp, body, http.StatusBadRequest, "InvalidArgument")
		if !strings.Contains(string(body), "<Message>"+msg+"</Message>") {
			t.Errorf("?%s: %s, want message %q", query, body, msg)
		}
	}

	req := itest.RawRequest(t, srv, http.MethodGet, "/?max-buckets=2&prefix=pa-", nil)
	itest.Sign(t, req, nil, itest.SignOpts{})
	resp, body := itest.Do(t, req)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("paged ListBuckets: %d %s", resp.StatusCode, body)
	}
	last := -1
	for _, elem := range []string{"<Owner>", "<Buckets>", "<ContinuationToken>", "<Prefix>pa-</Prefix>", "</ListAllMyBucketsResult>"} {
		i := strings.Index(string(body), elem)
		if i <= last {
			t.Fatalf("paged ListBuckets: %s missing or out of order in %s", elem, body)
		}
		last = i
	}
}

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
	itest.WantErr(t, c.MakeBucket(ctx, "mc-elsewhere", minio.MakeBucketOptions{Region: "eu-west-1"}),
		http.StatusBadRequest, "AuthorizationHeaderMalformed")

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
	itest.MinioPut(t, c, "mc-buckets", "obj", []byte("x"), minio.PutObjectOptions{})
	itest.WantErr(t, c.RemoveBucket(ctx, "mc-buckets"), http.StatusConflict, "BucketNotEmpty")
	if err := c.RemoveObject(ctx, "mc-buckets", "obj", minio.RemoveObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"mc-buckets", "mc-buckets-2", "mc.dotted.bucket"} {
		if err := c.RemoveBucket(ctx, b); err != nil {
			t.Fatalf("RemoveBucket %s: %v", b, err)
		}
	}
	itest.WantErr(t, c.RemoveBucket(ctx, "mc-buckets"), http.StatusNotFound, "NoSuchBucket")
	if ok, err := c.BucketExists(ctx, "mc-buckets"); err != nil || ok {
		t.Fatalf("BucketExists after remove = %v, %v; want false, nil", ok, err)
	}
	if list, err := c.ListBuckets(ctx); err != nil || len(list) != 0 {
		t.Fatalf("ListBuckets after removal = %v, %v; want none", list, err)
	}

	// Operations on a missing bucket.
	_, err = c.PutObject(ctx, "mc-nope", "k", nil, 0, itest.MinioPutOpts())
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	// HEAD answers carry no body, so minio-go can only guess the code of a
	// 404 from the request (it says NoSuchKey); the status is what counts.
	_, err = c.StatObject(ctx, "mc-nope", "k", minio.StatObjectOptions{})
	if er := minio.ToErrorResponse(err); er.StatusCode != http.StatusNotFound {
		t.Fatalf("StatObject in missing bucket: %v, want 404", err)
	}
	_, _, err = itest.MinioTryGet(c, "mc-nope", "k", minio.GetObjectOptions{})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	for o := range c.ListObjects(ctx, "mc-nope", minio.ListObjectsOptions{}) {
		itest.WantErr(t, o.Err, http.StatusNotFound, "NoSuchBucket")
	}
	// Client-side validation rejects bad names before the server sees them;
	// the server's own check is covered by the aws suite.
}
