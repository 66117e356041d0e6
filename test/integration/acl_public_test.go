package integration

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/test/integration/itest"
)

func putBlock(t *testing.T, c *s3.Client, bucket string, cfg types.PublicAccessBlockConfiguration) {
	t.Helper()
	if _, err := c.PutPublicAccessBlock(context.Background(), &s3.PutPublicAccessBlockInput{Bucket: aws.String(bucket),
		PublicAccessBlockConfiguration: &cfg}); err != nil {
		t.Fatalf("PutPublicAccessBlock %s: %v", bucket, err)
	}
}

const publicGetPolicy = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::%s/*"}]}`

// TestPublicAccessBlock: each of the four settings does what S3's does,
// and Get/Delete answer as S3.
func TestPublicAccessBlock(t *testing.T) {
	srv, cl := startACL(t)
	ctx := context.Background()
	root := cl["root"]

	t.Run("GetDelete", func(t *testing.T) {
		itest.CreateBucket(t, root, "pab-crud")
		b := aws.String("pab-crud")
		_, err := root.GetPublicAccessBlock(ctx, &s3.GetPublicAccessBlockInput{Bucket: b})
		itest.WantErr(t, err, 404, "NoSuchPublicAccessBlockConfiguration")
		putBlock(t, root, "pab-crud", types.PublicAccessBlockConfiguration{BlockPublicAcls: aws.Bool(true), RestrictPublicBuckets: aws.Bool(true)})
		got, err := root.GetPublicAccessBlock(ctx, &s3.GetPublicAccessBlockInput{Bucket: b})
		if err != nil {
			t.Fatal(err)
		}
		c := got.PublicAccessBlockConfiguration
		if !aws.ToBool(c.BlockPublicAcls) || aws.ToBool(c.IgnorePublicAcls) || aws.ToBool(c.BlockPublicPolicy) || !aws.ToBool(c.RestrictPublicBuckets) {
			t.Errorf("GetPublicAccessBlock: %+v", c)
		}
		if _, err := root.DeletePublicAccessBlock(ctx, &s3.DeletePublicAccessBlockInput{Bucket: b}); err != nil {
			t.Fatal(err)
		}
		_, err = root.GetPublicAccessBlock(ctx, &s3.GetPublicAccessBlockInput{Bucket: b})
		itest.WantErr(t, err, 404, "NoSuchPublicAccessBlockConfiguration")
		doc := []byte("<PublicAccessBlockConfiguration><BlockPublicAcls>maybe</BlockPublicAcls></PublicAccessBlockConfiguration>")
		req := itest.RawRequest(t, srv, "PUT", "/pab-crud?publicAccessBlock", doc)
		itest.Sign(t, req, doc, itest.SignOpts{})
		resp, body := itest.Do(t, req)
		itest.WantRawErr(t, resp, body, 400, "MalformedXML")
		_, err = root.GetPublicAccessBlock(ctx, &s3.GetPublicAccessBlockInput{Bucket: b})
		itest.WantErr(t, err, 404, "NoSuchPublicAccessBlockConfiguration")
	})

	t.Run("BlockPublicAcls", func(t *testing.T) {
		createOwnershipBucket(t, root, "pab-bpa", types.ObjectOwnershipObjectWriter)
		b := aws.String("pab-bpa")
		itest.Put(t, root, "pab-bpa", "k", []byte("v"))
		putBlock(t, root, "pab-bpa", types.PublicAccessBlockConfiguration{BlockPublicAcls: aws.Bool(true)})
		_, err := root.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("pub"), Body: strings.NewReader("x"), ACL: types.ObjectCannedACLPublicRead})
		itest.WantErr(t, err, 403, "AccessDenied")
		itest.WantNoObject(t, root, "pab-bpa", "pub")
		_, err = root.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: b, Key: aws.String("k"), ACL: types.ObjectCannedACLAuthenticatedRead})
		itest.WantErr(t, err, 403, "AccessDenied")
		_, err = root.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: b, ACL: types.BucketCannedACLPublicRead})
		itest.WantErr(t, err, 403, "AccessDenied")
		wantAnon(t, srv, "/pab-bpa/k", 403, nil)
		wantAnon(t, srv, "/pab-bpa", 403, nil)
		// Private ACLs are still taken.
		itest.Put(t, root, "pab-bpa", "priv", []byte("p"), func(in *s3.PutObjectInput) { in.ACL = types.ObjectCannedACLPrivate })
	})

	t.Run("IgnorePublicAcls", func(t *testing.T) {
		createOwnershipBucket(t, root, "pab-ipa", types.ObjectOwnershipObjectWriter)
		b := aws.String("pab-ipa")
		itest.Put(t, root, "pab-ipa", "pub", []byte("pub"), func(in *s3.PutObjectInput) { in.ACL = types.ObjectCannedACLPublicRead })
		if _, err := root.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: b, ACL: types.BucketCannedACLPublicRead}); err != nil {
			t.Fatal(err)
		}
		wantAnon(t, srv, "/pab-ipa/pub", 200, []byte("pub"))
		wantAnon(t, srv, "/pab-ipa", 200, nil)
		putBlock(t, root, "pab-ipa", types.PublicAccessBlockConfiguration{IgnorePublicAcls: aws.Bool(true)})
		wantAnon(t, srv, "/pab-ipa/pub", 403, nil)
		wantAnon(t, srv, "/pab-ipa", 403, nil)
		// Public ACLs may still be set (that is BlockPublicAcls), and count
		// again once the block goes.
		itest.Put(t, root, "pab-ipa", "pub2", []byte("pub2"), func(in *s3.PutObjectInput) { in.ACL = types.ObjectCannedACLPublicRead })
		wantAnon(t, srv, "/pab-ipa/pub2", 403, nil)
		if _, err := root.DeletePublicAccessBlock(ctx, &s3.DeletePublicAccessBlockInput{Bucket: b}); err != nil {
			t.Fatal(err)
		}
		wantAnon(t, srv, "/pab-ipa/pub2", 200, []byte("pub2"))
	})

	t.Run("BlockPublicPolicy", func(t *testing.T) {
		itest.CreateBucket(t, root, "pab-bpp")
		b := aws.String("pab-bpp")
		old := `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:DeleteBucket","Resource":"arn:aws:s3:::pab-bpp"}]}`
		if _, err := root.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: b, Policy: aws.String(old)}); err != nil {
			t.Fatal(err)
		}
		putBlock(t, root, "pab-bpp", types.PublicAccessBlockConfiguration{BlockPublicPolicy: aws.Bool(true)})
		_, err := root.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: b, Policy: aws.String(strings.ReplaceAll(publicGetPolicy, "%s", "pab-bpp"))})
		itest.WantErr(t, err, 403, "AccessDenied")
		got, err := root.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: b})
		if err != nil || aws.ToString(got.Policy) != old {
			t.Errorf("policy after a refused public one: %v %v", aws.ToString(got.Policy), err)
		}
		itest.Put(t, root, "pab-bpp", "k", []byte("v"))
		wantAnon(t, srv, "/pab-bpp/k", 403, nil)
		// A policy that is not public is taken.
		narrow := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::000000000000:root"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::pab-bpp/*"}]}`
		if _, err := root.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: b, Policy: aws.String(narrow)}); err != nil {
			t.Errorf("a non-public policy under BlockPublicPolicy: %v", err)
		}
	})

	t.Run("RestrictPublicBuckets", func(t *testing.T) {
		createOwnershipBucket(t, root, "pab-rpb", types.ObjectOwnershipObjectWriter)
		b := aws.String("pab-rpb")
		itest.Put(t, root, "pab-rpb", "k", []byte("v"))
		// The bucket is shut to the public while its policy is public:
		// its ACLs do not let anonymous requests in either.
		itest.Put(t, root, "pab-rpb", "acl", []byte("a"), func(in *s3.PutObjectInput) { in.ACL = types.ObjectCannedACLPublicRead })
		if _, err := root.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: b, Policy: aws.String(strings.ReplaceAll(publicGetPolicy, "%s", "pab-rpb"))}); err != nil {
			t.Fatal(err)
		}
		wantAnon(t, srv, "/pab-rpb/k", 200, []byte("v"))
		wantAnon(t, srv, "/pab-rpb/acl", 200, []byte("a"))
		putBlock(t, root, "pab-rpb", types.PublicAccessBlockConfiguration{RestrictPublicBuckets: aws.Bool(true)})
		wantAnon(t, srv, "/pab-rpb/k", 403, nil)
		wantAnon(t, srv, "/pab-rpb/acl", 403, nil)
		// Principals of the account keep the access the policy gives them.
		itest.WantObject(t, cl["reader"], "pab-rpb", "k", []byte("v"))
		if _, err := root.DeletePublicAccessBlock(ctx, &s3.DeletePublicAccessBlockInput{Bucket: b}); err != nil {
			t.Fatal(err)
		}
		wantAnon(t, srv, "/pab-rpb/k", 200, []byte("v"))
	})

	// curl without keys reads a public-read object, and is refused a
	// private one.
	t.Run("curl", func(t *testing.T) {
		if _, err := exec.LookPath("curl"); err != nil {
			t.Skip("no curl")
		}
		createOwnershipBucket(t, root, "pab-curl", types.ObjectOwnershipObjectWriter)
		itest.Put(t, root, "pab-curl", "pub", []byte("curl me"), func(in *s3.PutObjectInput) { in.ACL = types.ObjectCannedACLPublicRead })
		itest.Put(t, root, "pab-curl", "priv", []byte("no"))
		out, err := exec.Command("curl", "-sS", "-f", srv.URL+"/pab-curl/pub").Output()
		if err != nil || string(out) != "curl me" {
			t.Errorf("curl public-read object: %q %v", out, err)
		}
		out, _ = exec.Command("curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", srv.URL+"/pab-curl/priv").Output()
		if string(out) != "403" {
			t.Errorf("curl private object: %s, want 403", out)
		}
	})
}
