package integration

// Versioning details found by issue 20's review: restoring a version by
// copying it onto its own key, versionId validation, lifecycle's
// x-amz-expiration on versions, and re-created buckets.

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/test/integration/itest"
)

// TestVersioningRestoreByCopy copies a previous version onto its own key:
// S3 accepts it (a named source version is not a copy onto itself) and the
// copy becomes the key's latest version, with the old version's bytes.
func TestVersioningRestoreByCopy(t *testing.T) {
	ctx := context.Background()
	_, c := itest.StartBucket(t, "restore")
	setVersioning(t, c, "restore", types.BucketVersioningStatusEnabled)
	v1 := itest.Put(t, c, "restore", "k", []byte("first")).VersionId
	v2 := itest.Put(t, c, "restore", "k", []byte("second")).VersionId
	out, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("restore"), Key: aws.String("k"),
		CopySource: aws.String("restore/k?versionId=" + aws.ToString(v1))})
	if err != nil {
		t.Fatalf("CopyObject of version 1 onto its key: %v", err)
	}
	v3 := aws.ToString(out.VersionId)
	if v3 == "" || v3 == aws.ToString(v1) || v3 == aws.ToString(v2) || aws.ToString(out.CopySourceVersionId) != aws.ToString(v1) {
		t.Fatalf("restore: version %q (copied from %q), versions before %q %q", v3, aws.ToString(out.CopySourceVersionId), aws.ToString(v1), aws.ToString(v2))
	}
	got, g := itest.Get(t, c, "restore", "k")
	if !bytes.Equal(got, []byte("first")) || aws.ToString(g.VersionId) != v3 {
		t.Fatalf("latest after restore: %q version %q, want \"first\" version %q", got, aws.ToString(g.VersionId), v3)
	}
	if got, _ := itest.Get(t, c, "restore", "k", func(in *s3.GetObjectInput) { in.VersionId = v2 }); string(got) != "second" {
		t.Fatalf("version 2 after restore: %q", got)
	}
	// Without a version it is still a copy onto itself.
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("restore"), Key: aws.String("k"), CopySource: aws.String("restore/k")})
	itest.WantErr(t, err, 400, "InvalidRequest")
}

// unknownVersion has the form of the version IDs JOG makes but names no
// version.
const unknownVersion = "00000000000000000000000000000000"

// TestVersioningVersionIDChecked sends version IDs no version can have: as
// in S3, an empty one is 400 InvalidArgument (never "the latest"), and so
// is a malformed one, for every operation that takes one; a well-formed
// unknown one is NoSuchVersion (a DeleteObject of it does nothing), and in
// DeleteObjects a bad one is that key's NoSuchVersion.
func TestVersioningVersionIDChecked(t *testing.T) {
	ctx := context.Background()
	srv, c := itest.StartBucket(t, "vid")
	b, k := aws.String("vid"), aws.String("k")
	itest.Put(t, c, "vid", "k", []byte("kept"))

	// On a bucket whose versioning was never set, DELETE ?versionId=
	// must not delete the object.
	_, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: b, Key: k, VersionId: aws.String("")})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
	itest.WantObject(t, c, "vid", "k", []byte("kept"))
	req := itest.RawRequest(t, srv, http.MethodGet, "/vid/k?versionId=", nil)
	itest.Sign(t, req, nil, itest.SignOpts{})
	resp, body := itest.Do(t, req)
	itest.WantRawErr(t, resp, body, http.StatusBadRequest, "InvalidArgument")
	if !strings.Contains(string(body), "Version id cannot be the empty string") {
		t.Fatalf("GET ?versionId=: %s", body)
	}

	setVersioning(t, c, "vid", types.BucketVersioningStatusEnabled)
	for _, v := range []string{"", "nope", "3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY", strings.ToUpper(unknownVersion[:31]) + "A"} {
		vid := aws.String(v)
		_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: b, Key: k, VersionId: vid})
		itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
		_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: b, Key: k, VersionId: vid})
		itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
		_, err = c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: b, Key: k, VersionId: vid})
		itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
		_, err = c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: b, Key: k, VersionId: vid, Tagging: &types.Tagging{TagSet: []types.Tag{}}})
		itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
		_, err = c.GetObjectLegalHold(ctx, &s3.GetObjectLegalHoldInput{Bucket: b, Key: k, VersionId: vid})
		itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
		_, err = c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: b, Key: k, VersionId: vid,
			ObjectAttributes: []types.ObjectAttributes{types.ObjectAttributesEtag}})
		itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
		_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("copy"), CopySource: aws.String("vid/k?versionId=" + v)})
		itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
	}
	itest.WantObject(t, c, "vid", "k", []byte("kept"))
	itest.WantNoObject(t, c, "vid", "copy")
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: b, Key: k, VersionId: aws.String(unknownVersion)})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchVersion")
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: b, Key: k, VersionId: aws.String(unknownVersion)}); err != nil {
		t.Fatalf("DeleteObject of an unknown version: %v", err)
	}

	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: b, Key: aws.String("mp")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: b, Key: aws.String("mp"), UploadId: up.UploadId, PartNumber: aws.Int32(1),
		CopySource: aws.String("vid/k?versionId=nope")})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")

	// DeleteObjects: raw, since the SDK leaves out an empty <VersionId>.
	doc := []byte(`<Delete><Object><Key>k</Key><VersionId>nope</VersionId></Object><Object><Key>k</Key><VersionId></VersionId></Object></Delete>`)
	req = itest.RawRequest(t, srv, http.MethodPost, "/vid?delete", doc)
	itest.Sign(t, req, doc, itest.SignOpts{})
	resp, body = itest.Do(t, req)
	if resp.StatusCode != http.StatusOK || strings.Count(string(body), "<Code>NoSuchVersion</Code>") != 2 || strings.Contains(string(body), "<Deleted>") {
		t.Fatalf("DeleteObjects of bad version IDs: %d %s", resp.StatusCode, body)
	}
	itest.WantObject(t, c, "vid", "k", []byte("kept"))
}

// TestLifecycleRulesGoWithBucket deletes a bucket whose lifecycle rules a
// PUT has read (and the server cached), then creates it again: its new
// objects get no x-amz-expiration from the old bucket's rules.
func TestLifecycleRulesGoWithBucket(t *testing.T) {
	ctx := context.Background()
	_, c := itest.StartBucket(t, "again")
	if err := lcPut(ctx, c, "again", []types.LifecycleRule{{ID: aws.String("old"), Status: types.ExpirationStatusEnabled,
		Filter: &types.LifecycleRuleFilter{Prefix: aws.String("")}, Expiration: &types.LifecycleExpiration{Days: aws.Int32(1)}}}); err != nil {
		t.Fatal(err)
	}
	if put := itest.Put(t, c, "again", "k", []byte("x")); !strings.Contains(aws.ToString(put.Expiration), `rule-id="old"`) {
		t.Fatalf("PUT under the rule: x-amz-expiration %q", aws.ToString(put.Expiration))
	}
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("again"), Key: aws.String("k")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("again")}); err != nil {
		t.Fatal(err)
	}
	itest.CreateBucket(t, c, "again")
	if put := itest.Put(t, c, "again", "k", []byte("x")); put.Expiration != nil {
		t.Fatalf("PUT in the re-created bucket: x-amz-expiration %q", *put.Expiration)
	}
}

// TestLifecycleExpirationRuleIDEncoded: the rule ID in x-amz-expiration is
// URL-encoded, so a quote in it cannot end the header's quoted value.
func TestLifecycleExpirationRuleIDEncoded(t *testing.T) {
	ctx := context.Background()
	_, c := itest.StartBucket(t, "ruleid")
	if err := lcPut(ctx, c, "ruleid", []types.LifecycleRule{{ID: aws.String(`say "bye", now`), Status: types.ExpirationStatusEnabled,
		Filter: &types.LifecycleRuleFilter{Prefix: aws.String("")}, Expiration: &types.LifecycleExpiration{Days: aws.Int32(1)}}}); err != nil {
		t.Fatal(err)
	}
	put := itest.Put(t, c, "ruleid", "k", []byte("x"))
	if got := aws.ToString(put.Expiration); !strings.HasSuffix(got, `, rule-id="say+%22bye%22%2C+now"`) {
		t.Fatalf("x-amz-expiration %q", got)
	}
}

// TestVersioningUploadPartCopySourceVersion: UploadPartCopy answers a
// source version as CopyObject does: one that is not there is 404
// NoSuchVersion, a delete marker 400 InvalidRequest.
func TestVersioningUploadPartCopySourceVersion(t *testing.T) {
	ctx := context.Background()
	_, c := itest.StartBucket(t, "upc")
	setVersioning(t, c, "upc", types.BucketVersioningStatusEnabled)
	itest.Put(t, c, "upc", "src", []byte("source"))
	del, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("upc"), Key: aws.String("src")})
	if err != nil || !aws.ToBool(del.DeleteMarker) {
		t.Fatalf("DeleteObject: %+v, %v", del, err)
	}
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("upc"), Key: aws.String("mp")})
	if err != nil {
		t.Fatal(err)
	}
	partCopy := func(version string) error {
		_, err := c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: aws.String("upc"), Key: aws.String("mp"), UploadId: up.UploadId,
			PartNumber: aws.Int32(1), CopySource: aws.String("upc/src?versionId=" + version)})
		return err
	}
	itest.WantErr(t, partCopy(unknownVersion), http.StatusNotFound, "NoSuchVersion")
	itest.WantErr(t, partCopy(aws.ToString(del.VersionId)), http.StatusBadRequest, "InvalidRequest")
	// CopyObject answers the same.
	for v, want := range map[string]string{unknownVersion: "NoSuchVersion", aws.ToString(del.VersionId): "InvalidRequest"} {
		_, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("upc"), Key: aws.String("copy"), CopySource: aws.String("upc/src?versionId=" + v)})
		if itest.Code(err) != want {
			t.Errorf("CopyObject from %s: %v, want %s", v, err, want)
		}
	}
	parts, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String("upc"), Key: aws.String("mp"), UploadId: up.UploadId})
	if err != nil || len(parts.Parts) != 0 {
		t.Fatalf("ListParts after refused copies: %+v, %v", parts, err)
	}
}

// TestLifecycleExpirationCurrentOnly: an Expiration rule expires current
// versions only, so x-amz-expiration comes with GET and HEAD of the latest
// version (by ID or not), never of a noncurrent one.
func TestLifecycleExpirationCurrentOnly(t *testing.T) {
	ctx := context.Background()
	_, c := itest.StartBucket(t, "lcnc")
	setVersioning(t, c, "lcnc", types.BucketVersioningStatusEnabled)
	if err := lcPut(ctx, c, "lcnc", []types.LifecycleRule{{ID: aws.String("all"), Status: types.ExpirationStatusEnabled,
		Filter: &types.LifecycleRuleFilter{Prefix: aws.String("")}, Expiration: &types.LifecycleExpiration{Days: aws.Int32(1)}}}); err != nil {
		t.Fatal(err)
	}
	v1 := itest.Put(t, c, "lcnc", "k", []byte("one")).VersionId
	v2 := itest.Put(t, c, "lcnc", "k", []byte("two")).VersionId
	for _, tc := range []struct {
		version *string
		want    bool
	}{{nil, true}, {v2, true}, {v1, false}} {
		_, g := itest.Get(t, c, "lcnc", "k", func(in *s3.GetObjectInput) { in.VersionId = tc.version })
		h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("lcnc"), Key: aws.String("k"), VersionId: tc.version})
		if err != nil {
			t.Fatal(err)
		}
		if (g.Expiration != nil) != tc.want || (h.Expiration != nil) != tc.want {
			t.Errorf("version %q: GET x-amz-expiration %q, HEAD %q; want one: %v", aws.ToString(tc.version),
				aws.ToString(g.Expiration), aws.ToString(h.Expiration), tc.want)
		}
	}
}

// TestCreateBucketAgainAskingObjectLock: in us-east-1 re-creating a bucket
// the caller owns answers 200 and changes nothing, so asking for object
// lock on a bucket without it is 409 BucketAlreadyOwnedByYou, not a 200
// that did not enable it. Asking again for what the bucket has is 200.
func TestCreateBucketAgainAskingObjectLock(t *testing.T) {
	ctx := context.Background()
	_, c := itest.StartBucket(t, "plain")
	_, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("plain"), ObjectLockEnabledForBucket: aws.Bool(true)})
	itest.WantErr(t, err, http.StatusConflict, "BucketAlreadyOwnedByYou")
	if _, err := c.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: aws.String("plain")}); err == nil {
		t.Fatal("the refused re-creation enabled object lock")
	}
	wantVersioning(t, c, "plain", "")

	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("locked"), ObjectLockEnabledForBucket: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	for _, lock := range []*bool{aws.Bool(true), nil} {
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("locked"), ObjectLockEnabledForBucket: lock}); err != nil {
			t.Fatalf("re-creating the object lock bucket (lock %v): %v", aws.ToBool(lock), err)
		}
	}
}
