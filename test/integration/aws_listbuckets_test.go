package integration

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/jogstore/jog/internal/testutil"
)

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
	srv, c := awsStart(t)
	ctx := context.Background()
	var all, pa []string
	for i := range 12 {
		pa = append(pa, fmt.Sprintf("pa-%02d", i))
	}
	all = append(append(all, pa...), "pb-1", "pb-2", "q-1")
	for _, b := range []string{"q-1", "pb-2", "pa-07", "pa-00", "pa-11", "pb-1", "pa-03", "pa-01", "pa-02", "pa-04", "pa-05", "pa-06", "pa-08", "pa-09", "pa-10"} {
		awsMustCreateBucket(t, c, b)
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
	awsWantErr(t, err, http.StatusBadRequest, "InvalidArgument")
	_, err = c.ListBuckets(ctx, &s3.ListBucketsInput{ContinuationToken: aws.String("not a token!")})
	awsWantErr(t, err, http.StatusBadRequest, "InvalidArgument")

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
		req := awsRawRequest(t, srv, http.MethodGet, "/?"+query, nil)
		awsSign(t, req, nil, awsSignOpts{})
		resp, body := awsDo(t, req)
		awsWantRawErr(t, resp, body, http.StatusBadRequest, "InvalidArgument")
		if !strings.Contains(string(body), "<Message>"+msg+"</Message>") {
			t.Errorf("?%s: %s, want message %q", query, body, msg)
		}
	}

	req := awsRawRequest(t, srv, http.MethodGet, "/?max-buckets=2&prefix=pa-", nil)
	awsSign(t, req, nil, awsSignOpts{})
	resp, body := awsDo(t, req)
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
