package itest

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/testutil"
)

// WantNoStrayFiles asserts that refused or replaced writes left nothing
// behind on disk: no temp files, and no more blob files than there are
// non-empty objects (zero-byte objects have no blob).
func WantNoStrayFiles(t testing.TB, srv *testutil.Server, c *s3.Client) {
	t.Helper()
	tmp, err := os.ReadDir(filepath.Join(srv.DataDir, "tmp"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tmp) != 0 {
		t.Errorf("%d temp files left behind, e.g. %s", len(tmp), tmp[0].Name())
	}
	blobs := 0
	err = filepath.WalkDir(filepath.Join(srv.DataDir, "blobs"), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			blobs++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	lb, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatal(err)
	}
	nonEmpty := 0
	for _, b := range lb.Buckets {
		p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: b.Name})
		for p.HasMorePages() {
			out, err := p.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range out.Contents {
				if aws.ToInt64(o.Size) > 0 {
					nonEmpty++
				}
			}
		}
	}
	if blobs > nonEmpty {
		t.Errorf("%d blob files for %d non-empty objects: refused or replaced writes leaked blobs", blobs, nonEmpty)
	}
}
