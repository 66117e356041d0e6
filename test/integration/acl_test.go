package integration

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// aclBootstrap: reader has no policy at all (only ACLs and bucket
// policies can let it in); writer may PutObject but not PutObjectAcl;
// aclwriter may both.
const aclBootstrap = `{"users": [
 {"name": "reader", "accessKeys": [{"accessKeyId": "AKIAREADER0000000000", "secretAccessKey": "reader-secret-000000000000000000000000000"}]},
 {"name": "writer", "accessKeys": [{"accessKeyId": "AKIAWRITER0000000000", "secretAccessKey": "writer-secret-000000000000000000000000000"}],
  "policies": {"w": {"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:PutObject","Resource":"arn:aws:s3:::*/*"}]}}},
 {"name": "creator", "accessKeys": [{"accessKeyId": "AKIACREATOR000000000", "secretAccessKey": "creator-secret-00000000000000000000000000"}],
  "policies": {"c": {"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:CreateBucket","Resource":"*"}]}}},
 {"name": "aclwriter", "accessKeys": [{"accessKeyId": "AKIAACLWRITER0000000", "secretAccessKey": "aclwriter-secret-00000000000000000000000"}],
  "policies": {"w": {"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:PutObject","s3:PutObjectAcl"],"Resource":"arn:aws:s3:::*/*"}]}}}
]}`

var aclKeys = map[string][2]string{
	"reader":    {"AKIAREADER0000000000", "reader-secret-000000000000000000000000000"},
	"writer":    {"AKIAWRITER0000000000", "writer-secret-000000000000000000000000000"},
	"aclwriter": {"AKIAACLWRITER0000000", "aclwriter-secret-00000000000000000000000"},
	"creator":   {"AKIACREATOR000000000", "creator-secret-00000000000000000000000000"},
}

func startACL(t *testing.T) (*testutil.Server, map[string]*s3.Client) {
	t.Helper()
	return startUsers(t, aclBootstrap, aclKeys)
}

// anonGet is an unsigned GET, as a browser or curl without keys sends it.
func anonGet(t *testing.T, srv *testutil.Server, path string) (int, []byte) {
	t.Helper()
	return anonGetURL(t, srv.URL+path)
}

// anonGetURL is anonGet of a URL.
func anonGetURL(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func wantAnon(t *testing.T, srv *testutil.Server, path string, status int, body []byte) {
	t.Helper()
	got, b := anonGet(t, srv, path)
	if got != status || (body != nil && string(b) != string(body)) {
		t.Errorf("anonymous GET %s: %d %q, want %d %q", path, got, itest.Short(b), status, itest.Short(body))
	}
}

func createOwnershipBucket(t *testing.T, c *s3.Client, bucket string, own types.ObjectOwnership) {
	t.Helper()
	if _, err := c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(bucket), ObjectOwnership: own}); err != nil {
		t.Fatalf("CreateBucket %s (%s): %v", bucket, own, err)
	}
}

// grantsOf summarises an ACL as "TYPE:who:PERM" strings.
func grantsOf(grants []types.Grant) []string {
	var out []string
	for _, g := range grants {
		who := "owner"
		if g.Grantee.Type == types.TypeGroup {
			who = aws.ToString(g.Grantee.URI)
			who = who[strings.LastIndexByte(who, '/')+1:]
		}
		out = append(out, string(g.Grantee.Type)+":"+who+":"+string(g.Permission))
	}
	return out
}

func wantGrants(t *testing.T, what string, got []types.Grant, want ...string) {
	t.Helper()
	if g := grantsOf(got); strings.Join(g, " ") != strings.Join(want, " ") {
		t.Errorf("%s: grants %v, want %v", what, g, want)
	}
}

// TestACLDisabledByDefault: a new bucket is BucketOwnerEnforced: public
// ACLs are refused (AccessControlListNotSupported) and change nothing,
// the owner's full control is accepted, reads answer it.
func TestACLDisabledByDefault(t *testing.T) {
	srv, cl := startACL(t)
	ctx := context.Background()
	root := cl["root"]
	itest.CreateBucket(t, root, "plain")
	b := aws.String("plain")

	oc, err := root.GetBucketOwnershipControls(ctx, &s3.GetBucketOwnershipControlsInput{Bucket: b})
	if err != nil || oc.OwnershipControls.Rules[0].ObjectOwnership != types.ObjectOwnershipBucketOwnerEnforced {
		t.Fatalf("GetBucketOwnershipControls of a new bucket: %+v %v", oc, err)
	}
	_, err = root.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("pub"), Body: strings.NewReader("x"), ACL: types.ObjectCannedACLPublicRead})
	itest.WantErr(t, err, 400, "AccessControlListNotSupported")
	itest.WantNoObject(t, root, "plain", "pub")
	_, err = root.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("g"), Body: strings.NewReader("x"),
		GrantRead: aws.String(`uri="http://acs.amazonaws.com/groups/global/AllUsers"`)})
	itest.WantErr(t, err, 400, "AccessControlListNotSupported")
	itest.WantNoObject(t, root, "plain", "g")

	_, err = root.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: b, ACL: types.BucketCannedACLPublicRead})
	itest.WantErr(t, err, 400, "AccessControlListNotSupported")
	acl, err := root.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: b})
	if err != nil {
		t.Fatal(err)
	}
	wantGrants(t, "GetBucketAcl after a refused public-read", acl.Grants, "CanonicalUser:owner:FULL_CONTROL")
	wantAnon(t, srv, "/plain", 403, nil)

	itest.Put(t, root, "plain", "bofc", []byte("ok"), func(in *s3.PutObjectInput) { in.ACL = types.ObjectCannedACLBucketOwnerFullControl })
	oacl, err := root.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: b, Key: aws.String("bofc")})
	if err != nil {
		t.Fatal(err)
	}
	wantGrants(t, "GetObjectAcl", oacl.Grants, "CanonicalUser:owner:FULL_CONTROL")
	if aws.ToString(oacl.Owner.ID) != aws.ToString(acl.Owner.ID) || aws.ToString(acl.Owner.ID) == "" {
		t.Errorf("object owner %q, bucket owner %q", aws.ToString(oacl.Owner.ID), aws.ToString(acl.Owner.ID))
	}
	_, err = root.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: b, Key: aws.String("bofc"), ACL: types.ObjectCannedACLPublicReadWrite})
	itest.WantErr(t, err, 400, "AccessControlListNotSupported")
	wantAnon(t, srv, "/plain/bofc", 403, nil)

	// CreateBucket with a public ACL and no ownership: BucketOwnerEnforced.
	_, err = root.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("pubcreate"), ACL: types.BucketCannedACLPublicRead})
	itest.WantErr(t, err, 400, "InvalidBucketAclWithObjectOwnership")
	if _, err := root.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("pubcreate")}); err == nil {
		t.Error("the refused CreateBucket created the bucket")
	}
}

// TestACLObjectWriterObjects: where ACLs are enabled, a public-read
// object is served to unsigned requests, a private one is not; copies and
// multipart uploads take the ACL of their own request; x-amz-acl on a
// write needs s3:PutObjectAcl.
func TestACLObjectWriterObjects(t *testing.T) {
	srv, cl := startACL(t)
	ctx := context.Background()
	root := cl["root"]
	createOwnershipBucket(t, root, "owb", types.ObjectOwnershipObjectWriter)
	b := aws.String("owb")
	itest.Put(t, root, "owb", "public", []byte("hello world"), func(in *s3.PutObjectInput) { in.ACL = types.ObjectCannedACLPublicRead })
	itest.Put(t, root, "owb", "private", []byte("secret"))

	wantAnon(t, srv, "/owb/public", 200, []byte("hello world"))
	wantAnon(t, srv, "/owb/private", 403, nil)
	wantAnon(t, srv, "/owb", 403, nil) // object ACLs grant no listing
	_, err := cl["anonymous"].PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("anon"), Body: strings.NewReader("x")})
	itest.WantErr(t, err, 403, "AccessDenied")
	itest.WantNoObject(t, root, "owb", "anon")
	// The ACL grants no more than reading the object: not its tags, not its ACL.
	wantAnon(t, srv, "/owb/public?tagging", 403, nil)
	wantAnon(t, srv, "/owb/public?acl", 403, nil)

	acl, err := root.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: b, Key: aws.String("public")})
	if err != nil {
		t.Fatal(err)
	}
	wantGrants(t, "public-read object", acl.Grants, "CanonicalUser:owner:FULL_CONTROL", "Group:AllUsers:READ")

	// A copy does not inherit the source's ACL.
	if _, err := root.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("copy"), CopySource: aws.String("owb/public")}); err != nil {
		t.Fatal(err)
	}
	wantAnon(t, srv, "/owb/copy", 403, nil)
	if _, err := root.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("pubcopy"), CopySource: aws.String("owb/private"),
		ACL: types.ObjectCannedACLPublicRead}); err != nil {
		t.Fatal(err)
	}
	wantAnon(t, srv, "/owb/pubcopy", 200, []byte("secret"))

	// A multipart upload keeps CreateMultipartUpload's ACL to completion.
	up, err := root.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: b, Key: aws.String("mpu"), ACL: types.ObjectCannedACLPublicRead})
	if err != nil {
		t.Fatal(err)
	}
	part, err := root.UploadPart(ctx, &s3.UploadPartInput{Bucket: b, Key: aws.String("mpu"), UploadId: up.UploadId, PartNumber: aws.Int32(1), Body: strings.NewReader("parts")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := root.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: b, Key: aws.String("mpu"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{ETag: part.ETag, PartNumber: aws.Int32(1)}}}}); err != nil {
		t.Fatal(err)
	}
	wantAnon(t, srv, "/owb/mpu", 200, []byte("parts"))

	// PutObjectAcl private takes the public read away.
	if _, err := root.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: b, Key: aws.String("public"), ACL: types.ObjectCannedACLPrivate}); err != nil {
		t.Fatal(err)
	}
	wantAnon(t, srv, "/owb/public", 403, nil)

	// x-amz-acl on a write needs s3:PutObjectAcl too.
	_, err = cl["writer"].PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("w"), Body: strings.NewReader("x"), ACL: types.ObjectCannedACLPublicRead})
	itest.WantErr(t, err, 403, "AccessDenied")
	itest.WantNoObject(t, root, "owb", "w")
	itest.Put(t, cl["writer"], "owb", "w2", []byte("x")) // without an ACL s3:PutObject is enough
	itest.Put(t, cl["aclwriter"], "owb", "w3", []byte("w3"), func(in *s3.PutObjectInput) { in.ACL = types.ObjectCannedACLPublicRead })
	wantAnon(t, srv, "/owb/w3", 200, []byte("w3"))
}

// TestACLBucketGrants: a public-read bucket ACL lets anonymous requests
// list; authenticated-read lets any signed user (without policies) in but
// not anonymous ones; a public-read-write bucket takes anonymous writes.
func TestACLBucketGrants(t *testing.T) {
	srv, cl := startACL(t)
	ctx := context.Background()
	root := cl["root"]
	createOwnershipBucket(t, root, "pbb", types.ObjectOwnershipBucketOwnerPreferred)
	b := aws.String("pbb")
	itest.Put(t, root, "pbb", "k", []byte("v"))
	wantAnon(t, srv, "/pbb", 403, nil)
	if _, err := root.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: b, ACL: types.BucketCannedACLPublicRead}); err != nil {
		t.Fatal(err)
	}
	if code, body := anonGet(t, srv, "/pbb?list-type=2"); code != 200 || !strings.Contains(string(body), "<Key>k</Key>") {
		t.Errorf("anonymous ListObjectsV2 of a public-read bucket: %d %s", code, body)
	}
	wantAnon(t, srv, "/pbb/k", 403, nil) // the bucket's READ is not its objects'

	if _, err := root.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: b, ACL: types.BucketCannedACLAuthenticatedRead}); err != nil {
		t.Fatal(err)
	}
	wantAnon(t, srv, "/pbb", 403, nil)
	if _, err := cl["reader"].ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: b}); err != nil {
		t.Errorf("reader, without policies, on an authenticated-read bucket: %v", err)
	}
	itest.Put(t, root, "pbb", "authobj", []byte("auth"), func(in *s3.PutObjectInput) { in.ACL = types.ObjectCannedACLAuthenticatedRead })
	itest.WantObject(t, cl["reader"], "pbb", "authobj", []byte("auth"))
	wantAnon(t, srv, "/pbb/authobj", 403, nil)
	_, err := cl["reader"].GetObject(ctx, &s3.GetObjectInput{Bucket: b, Key: aws.String("k")})
	itest.WantErr(t, err, 403, "AccessDenied")

	if _, err := root.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: b, ACL: types.BucketCannedACLPublicReadWrite}); err != nil {
		t.Fatal(err)
	}
	anon := cl["anonymous"]
	if _, err := anon.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("dropped"), Body: strings.NewReader("anon")}); err != nil {
		t.Errorf("anonymous PutObject into a public-read-write bucket: %v", err)
	}
	itest.WantObject(t, root, "pbb", "dropped", []byte("anon"))
	// WRITE does not grant the bucket's ACL.
	_, err = anon.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: b, ACL: types.BucketCannedACLPrivate})
	itest.WantErr(t, err, 403, "AccessDenied")
	acl, _ := root.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: b})
	wantGrants(t, "after a refused anonymous PutBucketAcl", acl.Grants,
		"CanonicalUser:owner:FULL_CONTROL", "Group:AllUsers:READ", "Group:AllUsers:WRITE")
}

// TestACLGrantXML: Put/Get Bucket/Object Acl round-trip grant XML and
// x-amz-grant-* headers; bad grants are refused as S3 refuses them and
// change nothing.
func TestACLGrantXML(t *testing.T) {
	srv, cl := startACL(t)
	ctx := context.Background()
	root := cl["root"]
	createOwnershipBucket(t, root, "gxb", types.ObjectOwnershipObjectWriter)
	b := aws.String("gxb")
	cur, err := root.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: b})
	if err != nil {
		t.Fatal(err)
	}
	owner := cur.Owner
	policy := &types.AccessControlPolicy{Owner: owner, Grants: []types.Grant{
		{Grantee: &types.Grantee{Type: types.TypeCanonicalUser, ID: owner.ID}, Permission: types.PermissionFullControl},
		{Grantee: &types.Grantee{Type: types.TypeGroup, URI: aws.String("http://acs.amazonaws.com/groups/global/AllUsers")}, Permission: types.PermissionReadAcp},
		{Grantee: &types.Grantee{Type: types.TypeGroup, URI: aws.String("http://acs.amazonaws.com/groups/global/AuthenticatedUsers")}, Permission: types.PermissionRead},
	}}
	if _, err := root.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: b, AccessControlPolicy: policy}); err != nil {
		t.Fatal(err)
	}
	got, err := root.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: b})
	if err != nil {
		t.Fatal(err)
	}
	wantGrants(t, "bucket grant XML", got.Grants, "CanonicalUser:owner:FULL_CONTROL", "Group:AllUsers:READ_ACP", "Group:AuthenticatedUsers:READ")
	// READ_ACP to AllUsers: anonymous GetBucketAcl works, listing does not.
	wantAnon(t, srv, "/gxb?acl", 200, nil)
	wantAnon(t, srv, "/gxb", 403, nil)

	bad := []struct {
		name string
		in   *s3.PutBucketAclInput
		code string
	}{
		{"e-mail grantee", &s3.PutBucketAclInput{Bucket: b, AccessControlPolicy: &types.AccessControlPolicy{Owner: owner, Grants: []types.Grant{
			{Grantee: &types.Grantee{Type: types.TypeAmazonCustomerByEmail, EmailAddress: aws.String("a@example.com")}, Permission: types.PermissionRead}}}},
			"UnresolvableGrantByEmailAddress"},
		{"bad permission", &s3.PutBucketAclInput{Bucket: b, AccessControlPolicy: &types.AccessControlPolicy{Owner: owner, Grants: []types.Grant{
			{Grantee: &types.Grantee{Type: types.TypeCanonicalUser, ID: owner.ID}, Permission: "EVERYTHING"}}}}, "MalformedACLError"},
		{"unknown group", &s3.PutBucketAclInput{Bucket: b, GrantRead: aws.String(`uri="http://acs.amazonaws.com/groups/global/Nobody"`)}, "InvalidArgument"},
		{"e-mail header", &s3.PutBucketAclInput{Bucket: b, GrantRead: aws.String(`emailAddress="a@example.com"`)}, "UnresolvableGrantByEmailAddress"},
		{"canned and grants", &s3.PutBucketAclInput{Bucket: b, ACL: types.BucketCannedACLPrivate, GrantRead: aws.String(`id="` + aws.ToString(owner.ID) + `"`)}, "InvalidRequest"},
	}
	for _, c := range bad {
		_, err := root.PutBucketAcl(ctx, c.in)
		if code := itest.Code(err); code != c.code {
			t.Errorf("PutBucketAcl with %s: %v, want %s", c.name, err, c.code)
		}
	}
	got, _ = root.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: b})
	wantGrants(t, "after refused PutBucketAcl", got.Grants, "CanonicalUser:owner:FULL_CONTROL", "Group:AllUsers:READ_ACP", "Group:AuthenticatedUsers:READ")

	// Object ACLs by header, per version.
	if _, err := root.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: b,
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	v1 := itest.Put(t, root, "gxb", "obj", []byte("one")).VersionId
	itest.Put(t, root, "gxb", "obj", []byte("two"))
	if _, err := root.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: b, Key: aws.String("obj"), VersionId: v1,
		GrantRead: aws.String(`uri="http://acs.amazonaws.com/groups/global/AllUsers"`), GrantFullControl: aws.String(`id="` + aws.ToString(owner.ID) + `"`)}); err != nil {
		t.Fatal(err)
	}
	o1, err := root.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: b, Key: aws.String("obj"), VersionId: v1})
	if err != nil {
		t.Fatal(err)
	}
	wantGrants(t, "version 1", o1.Grants, "CanonicalUser:owner:FULL_CONTROL", "Group:AllUsers:READ")
	o2, _ := root.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: b, Key: aws.String("obj")})
	wantGrants(t, "the latest version", o2.Grants, "CanonicalUser:owner:FULL_CONTROL")
	wantAnon(t, srv, "/gxb/obj?versionId="+aws.ToString(v1), 200, []byte("one"))
	wantAnon(t, srv, "/gxb/obj", 403, nil)
	_, err = root.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: b, Key: aws.String("missing"), ACL: types.ObjectCannedACLPublicRead})
	itest.WantErr(t, err, 404, "NoSuchKey")
}

// TestACLOwnershipChanges: ACLs cannot be disabled while the bucket ACL
// grants others; once disabled, object ACLs stop counting; deleted
// controls answer OwnershipControlsNotFoundError and enable ACLs.
func TestACLOwnershipChanges(t *testing.T) {
	srv, cl := startACL(t)
	ctx := context.Background()
	root := cl["root"]
	createOwnershipBucket(t, root, "own", types.ObjectOwnershipObjectWriter)
	b := aws.String("own")
	itest.Put(t, root, "own", "pub", []byte("p"), func(in *s3.PutObjectInput) { in.ACL = types.ObjectCannedACLPublicRead })
	if _, err := root.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: b, ACL: types.BucketCannedACLPublicRead}); err != nil {
		t.Fatal(err)
	}
	enforce := &s3.PutBucketOwnershipControlsInput{Bucket: b, OwnershipControls: &types.OwnershipControls{
		Rules: []types.OwnershipControlsRule{{ObjectOwnership: types.ObjectOwnershipBucketOwnerEnforced}}}}
	_, err := root.PutBucketOwnershipControls(ctx, enforce)
	itest.WantErr(t, err, 400, "InvalidBucketAclWithObjectOwnership")
	oc, _ := root.GetBucketOwnershipControls(ctx, &s3.GetBucketOwnershipControlsInput{Bucket: b})
	if oc == nil || oc.OwnershipControls.Rules[0].ObjectOwnership != types.ObjectOwnershipObjectWriter {
		t.Fatalf("ownership after a refused change: %+v", oc)
	}
	wantAnon(t, srv, "/own/pub", 200, []byte("p"))

	if _, err := root.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: b, ACL: types.BucketCannedACLPrivate}); err != nil {
		t.Fatal(err)
	}
	if _, err := root.PutBucketOwnershipControls(ctx, enforce); err != nil {
		t.Fatal(err)
	}
	wantAnon(t, srv, "/own/pub", 403, nil)
	acl, _ := root.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: b, Key: aws.String("pub")})
	wantGrants(t, "object ACL under BucketOwnerEnforced", acl.Grants, "CanonicalUser:owner:FULL_CONTROL")

	if _, err := root.DeleteBucketOwnershipControls(ctx, &s3.DeleteBucketOwnershipControlsInput{Bucket: b}); err != nil {
		t.Fatal(err)
	}
	_, err = root.GetBucketOwnershipControls(ctx, &s3.GetBucketOwnershipControlsInput{Bucket: b})
	itest.WantErr(t, err, 404, "OwnershipControlsNotFoundError")
	// Without controls ACLs are enabled again, the stored ones with them.
	wantAnon(t, srv, "/own/pub", 200, []byte("p"))

	_, err = root.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("badown"), ObjectOwnership: "Nobody"})
	itest.WantErr(t, err, 400, "InvalidArgument")

	// CreateBucket with an ownership or an ACL needs the actions that set
	// them (s3:PutBucketOwnershipControls, s3:PutBucketAcl) besides.
	creator := cl["creator"]
	_, err = creator.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("c-own"), ObjectOwnership: types.ObjectOwnershipObjectWriter})
	itest.WantErr(t, err, 403, "AccessDenied")
	_, err = creator.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("c-acl"), ACL: types.BucketCannedACLPrivate})
	itest.WantErr(t, err, 403, "AccessDenied")
	for _, bkt := range []string{"c-own", "c-acl"} {
		if _, err := root.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bkt)}); err == nil {
			t.Errorf("a refused CreateBucket created %s", bkt)
		}
	}
	itest.CreateBucket(t, creator, "c-plain")
}
