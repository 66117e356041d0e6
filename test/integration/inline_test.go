package integration

import (
	"bytes"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestInlineObjects: with --inline-max 4096, objects up to 4096 bytes live
// in the database and larger ones in blob files. Data, ranges, copies and
// overwrites across the threshold read back byte-exact, and a restart with
// inlining off still serves them.
func TestInlineObjects(t *testing.T) {
	const bucket = "inline"
	srv, c := itest.StartBucket(t, bucket, testutil.WithInlineMax(4096), testutil.WithPackMax(0))
	dir := srv.DataDir
	small, edge, big := itest.RandBytes(1, 1000), itest.RandBytes(2, 4096), itest.RandBytes(3, 4097)

	itest.Put(t, c, bucket, "small", small)
	itest.Put(t, c, bucket, "edge", edge)
	if n := len(blobFiles(t, dir)); n != 0 {
		t.Errorf("%d blob files after two objects of ≤ 4096 bytes, want 0", n)
	}
	itest.Put(t, c, bucket, "big", big)
	if n := len(blobFiles(t, dir)); n != 1 {
		t.Errorf("%d blob files after a 4097-byte object, want 1", n)
	}

	for key, want := range map[string][]byte{"small": small, "edge": edge, "big": big} {
		itest.WantObject(t, c, bucket, key, want)
	}
	got, _ := itest.Get(t, c, bucket, "small", func(in *s3.GetObjectInput) { in.Range = aws.String("bytes=100-199") })
	if !bytes.Equal(got, small[100:200]) {
		t.Errorf("range of an inline object: %s", itest.Short(got))
	}
	got, _ = itest.Get(t, c, bucket, "small", func(in *s3.GetObjectInput) { in.Range = aws.String("bytes=-10") })
	if !bytes.Equal(got, small[990:]) {
		t.Errorf("suffix range of an inline object: %s", itest.Short(got))
	}

	// Copies: inline → inline, and an inline object overwritten by a big
	// one and back, across the threshold.
	if _, err := c.CopyObject(t.Context(), &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("small-copy"),
		CopySource: aws.String(bucket + "/small")}); err != nil {
		t.Fatal(err)
	}
	itest.WantObject(t, c, bucket, "small-copy", small)
	itest.Put(t, c, bucket, "small", big)
	itest.WantObject(t, c, bucket, "small", big)
	itest.Put(t, c, bucket, "small", small)
	itest.WantObject(t, c, bucket, "small", small)
	if n := len(blobFiles(t, dir)); n != 1 {
		t.Errorf("%d blob files after overwrites across the threshold, want 1 (the second big one's blob freed)", n)
	}

	srv.Stop()
	srv = testutil.StartServer(t, testutil.WithDataDir(dir), testutil.WithInlineMax(0))
	c = itest.AWSClient(t, srv)
	itest.WantObject(t, c, bucket, "small", small)
	itest.WantObject(t, c, bucket, "edge", edge)
	itest.WantObject(t, c, bucket, "big", big)
}
