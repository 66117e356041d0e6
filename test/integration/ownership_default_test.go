package integration

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// startOwnership runs the jog binary bin over a fresh data dir with the
// test keys and args added, and returns it with a root client.
func startOwnership(t *testing.T, bin string, args ...string) (*testutil.Jog, *s3.Client) {
	t.Helper()
	j := testutil.StartJog(t, bin, nil, append([]string{"--data-dir", t.TempDir(), "--fsync", "never", "--console=false",
		"--access-key", testutil.AccessKey, "--secret-key", testutil.SecretKey, "--region", testutil.Region}, args...)...)
	return j, j.Client(testutil.Region, testutil.AccessKey, testutil.SecretKey)
}

// wantOwnership checks bucket's GetBucketOwnershipControls.
func wantOwnership(t *testing.T, c *s3.Client, bucket string, want types.ObjectOwnership) {
	t.Helper()
	out, err := c.GetBucketOwnershipControls(context.Background(), &s3.GetBucketOwnershipControlsInput{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatalf("GetBucketOwnershipControls %s: %v", bucket, err)
	}
	if r := out.OwnershipControls.Rules; len(r) != 1 || r[0].ObjectOwnership != want {
		t.Errorf("%s: ownership %+v, want %s", bucket, r, want)
	}
}

// makePublic puts bucket/key and makes it public-read with PutObjectAcl,
// as an ACL-era tool does (s3cmd setacl --acl-public).
func makePublic(t *testing.T, c *s3.Client, bucket, key string) error {
	t.Helper()
	itest.Put(t, c, bucket, key, []byte("public body"))
	_, err := c.PutObjectAcl(context.Background(), &s3.PutObjectAclInput{Bucket: aws.String(bucket), Key: aws.String(key),
		ACL: types.ObjectCannedACLPublicRead})
	return err
}

// TestDefaultObjectOwnership: `jog server --default-object-ownership
// ObjectWriter` creates buckets with ACLs enabled, so PutObjectAcl
// public-read works and an anonymous GET is served; CreateBucket's
// x-amz-object-ownership header still wins; the owner's re-creation (200
// in us-east-1) does not reset a setting changed since; without the flag
// a new bucket is BucketOwnerEnforced and refuses the ACL
// (AccessControlListNotSupported), as S3's; a bad value stops the server
// at start, naming the three settings.
func TestDefaultObjectOwnership(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds jog")
	}
	ctx := context.Background()
	bin := testutil.BuildJog(t, t.TempDir())

	t.Run("ObjectWriter", func(t *testing.T) {
		j, c := startOwnership(t, bin, "--default-object-ownership=ObjectWriter")
		itest.CreateBucket(t, c, "own-default")
		wantOwnership(t, c, "own-default", types.ObjectOwnershipObjectWriter)
		if err := makePublic(t, c, "own-default", "k"); err != nil {
			t.Fatalf("PutObjectAcl public-read: %v", err)
		}
		if status, body := anonGetURL(t, j.URL+"/own-default/k"); status != 200 || string(body) != "public body" {
			t.Errorf("anonymous GET of the public object: %d %q, want 200", status, itest.Short(body))
		}
		itest.Put(t, c, "own-default", "other", []byte("private body"))
		if status, _ := anonGetURL(t, j.URL+"/own-default/other"); status != 403 {
			t.Errorf("anonymous GET of a private object: %d, want 403", status)
		}

		// The header wins over the default.
		createOwnershipBucket(t, c, "own-header", types.ObjectOwnershipBucketOwnerEnforced)
		wantOwnership(t, c, "own-header", types.ObjectOwnershipBucketOwnerEnforced)
		itest.WantErr(t, makePublic(t, c, "own-header", "k"), 400, "AccessControlListNotSupported")
		if status, _ := anonGetURL(t, j.URL+"/own-header/k"); status != 403 {
			t.Errorf("anonymous GET in the enforced bucket: %d, want 403", status)
		}
		createOwnershipBucket(t, c, "own-preferred", types.ObjectOwnershipBucketOwnerPreferred)
		wantOwnership(t, c, "own-preferred", types.ObjectOwnershipBucketOwnerPreferred)

		// Re-created by its owner (us-east-1: 200), a bucket keeps what
		// was set since.
		if _, err := c.PutBucketOwnershipControls(ctx, &s3.PutBucketOwnershipControlsInput{Bucket: aws.String("own-default"),
			OwnershipControls: &types.OwnershipControls{Rules: []types.OwnershipControlsRule{{ObjectOwnership: types.ObjectOwnershipBucketOwnerEnforced}}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("own-default")}); err != nil {
			t.Fatalf("re-creating own-default: %v", err)
		}
		wantOwnership(t, c, "own-default", types.ObjectOwnershipBucketOwnerEnforced)
	})

	t.Run("Default", func(t *testing.T) {
		j, c := startOwnership(t, bin)
		itest.CreateBucket(t, c, "own-enforced")
		wantOwnership(t, c, "own-enforced", types.ObjectOwnershipBucketOwnerEnforced)
		itest.WantErr(t, makePublic(t, c, "own-enforced", "k"), 400, "AccessControlListNotSupported")
		if status, _ := anonGetURL(t, j.URL+"/own-enforced/k"); status != 403 {
			t.Errorf("anonymous GET: %d, want 403", status)
		}
		createOwnershipBucket(t, c, "own-writer", types.ObjectOwnershipObjectWriter)
		if err := makePublic(t, c, "own-writer", "k"); err != nil {
			t.Errorf("PutObjectAcl in a bucket created ObjectWriter: %v", err)
		}
	})

	t.Run("BadValue", func(t *testing.T) {
		for _, args := range [][]string{{"--default-object-ownership", "Public"}, {"--default-object-ownership", "objectwriter"}} {
			// A server that starts anyway is killed after a minute.
			cctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			cmd := exec.CommandContext(cctx, bin, append([]string{"server", "--addr", "127.0.0.1:0", "--data-dir", filepath.Join(t.TempDir(), "d")}, args...)...)
			out, err := cmd.CombinedOutput()
			want := `--default-object-ownership "` + args[1] + `": want BucketOwnerEnforced, BucketOwnerPreferred, ObjectWriter`
			if err == nil || !strings.Contains(string(out), want) {
				t.Errorf("jog server %s: %v\n%s\nwant an error saying %s", strings.Join(args, " "), err, out, want)
			}
		}
	})
}
