package integration

import (
	"context"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/test/integration/itest"
)

// TestAuthzCopySourceTags: a copy's source action is decided on the
// source's tags (s3:ExistingObjectTag), as S3 does: a user allowed
// GetObject only on objects tagged class=public copies a tagged source
// and is refused an untagged one, which creates nothing.
func TestAuthzCopySourceTags(t *testing.T) {
	srv, root, rootS3 := startIAMServer(t, "src", "dst")
	ctx := context.Background()
	itest.Put(t, rootS3, "src", "public", []byte("open"), func(in *s3.PutObjectInput) { in.Tagging = aws.String("class=public") })
	itest.Put(t, rootS3, "src", "secret", []byte("closed"), func(in *s3.PutObjectInput) { in.Tagging = aws.String("class=secret") })
	itest.Put(t, rootS3, "src", "untagged", []byte("plain"))
	user := s3UserClient(t, srv, root, "copier", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::src/*","Condition":{"StringEquals":{"s3:ExistingObjectTag/class":"public"}}},
		{"Effect":"Allow","Action":"s3:PutObject","Resource":"arn:aws:s3:::dst/*"}]}`)

	if _, err := user.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("dst"), Key: aws.String("a"), CopySource: aws.String("src/public")}); err != nil {
		t.Fatalf("copy of a public source: %v", err)
	}
	if b, _ := itest.Get(t, rootS3, "dst", "a"); string(b) != "open" {
		t.Fatalf("copied %q", b)
	}
	for _, key := range []string{"untagged", "secret"} {
		_, err := user.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("dst"), Key: aws.String(key), CopySource: aws.String("src/" + key)})
		itest.WantErr(t, err, http.StatusForbidden, "AccessDenied")
		if _, err := rootS3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("dst"), Key: aws.String(key)}); err == nil {
			t.Fatalf("a refused copy of %s created dst/%s", key, key)
		}
	}
	// The same rule for GetObject itself.
	_, err := user.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("src"), Key: aws.String("untagged")})
	itest.WantErr(t, err, http.StatusForbidden, "AccessDenied")
}

// TestAuthzDeleteObjectsTags: each DeleteObjects key is decided on its
// own tags (s3:ExistingObjectTag), as DeleteObject is: a Deny on
// protected objects refuses those keys in a batch as it refuses them one
// by one, and leaves them in place (a review finding: the batch used to
// skip the condition and delete them).
func TestAuthzDeleteObjectsTags(t *testing.T) {
	srv, root, rootS3 := startIAMServer(t, "tagged")
	ctx := context.Background()
	itest.Put(t, rootS3, "tagged", "protected", []byte("keep"), func(in *s3.PutObjectInput) { in.Tagging = aws.String("class=protected") })
	itest.Put(t, rootS3, "tagged", "plain", []byte("drop"))
	itest.Put(t, rootS3, "tagged", "other", []byte("drop"), func(in *s3.PutObjectInput) { in.Tagging = aws.String("class=scratch") })
	user := s3UserClient(t, srv, root, "cleaner", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"s3:DeleteObject","Resource":"arn:aws:s3:::tagged/*"},
		{"Effect":"Deny","Action":"s3:DeleteObject","Resource":"arn:aws:s3:::tagged/*","Condition":{"StringEquals":{"s3:ExistingObjectTag/class":"protected"}}}]}`)

	_, err := user.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("tagged"), Key: aws.String("protected")})
	itest.WantErr(t, err, http.StatusForbidden, "AccessDenied")
	out, err := user.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("tagged"), Delete: &s3types.Delete{Objects: []s3types.ObjectIdentifier{
		{Key: aws.String("protected")}, {Key: aws.String("plain")}, {Key: aws.String("other")}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Errors) != 1 || aws.ToString(out.Errors[0].Key) != "protected" || aws.ToString(out.Errors[0].Code) != "AccessDenied" || len(out.Deleted) != 2 {
		t.Fatalf("DeleteObjects: deleted %d, errors %+v", len(out.Deleted), out.Errors)
	}
	itest.WantObject(t, rootS3, "tagged", "protected", []byte("keep"))
	for _, k := range []string{"plain", "other"} {
		if _, err := rootS3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("tagged"), Key: aws.String(k)}); err == nil {
			t.Fatalf("%s was not deleted", k)
		}
	}
}
