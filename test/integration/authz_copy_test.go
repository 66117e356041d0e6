package integration

import (
	"context"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

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
