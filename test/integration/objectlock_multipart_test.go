package integration

// Object lock on multipart uploads: the lock headers of
// CreateMultipartUpload are checked as PutObject's, kept with the upload
// and set on the version CompleteMultipartUpload creates.

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/test/integration/itest"
)

// lockedUpload creates an upload of bucket/key with in's lock fields set,
// sends one part (with a CRC32 checksum) and completes it; it returns the
// version created.
func lockedUpload(t *testing.T, c *s3.Client, bucket, key string, set func(*s3.CreateMultipartUploadInput)) string {
	t.Helper()
	ctx := context.Background()
	in := &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumAlgorithm: types.ChecksumAlgorithmCrc32}
	set(in)
	cu, err := c.CreateMultipartUpload(ctx, in)
	if err != nil {
		t.Fatalf("CreateMultipartUpload(%s): %v", key, err)
	}
	p, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: cu.UploadId,
		PartNumber: aws.Int32(1), Body: strings.NewReader(key), ChecksumAlgorithm: types.ChecksumAlgorithmCrc32})
	if err != nil {
		t.Fatalf("UploadPart(%s): %v", key, err)
	}
	done, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key),
		UploadId: cu.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{
			{PartNumber: aws.Int32(1), ETag: p.ETag, ChecksumCRC32: p.ChecksumCRC32}}}})
	if err != nil {
		t.Fatalf("CompleteMultipartUpload(%s): %v", key, err)
	}
	return aws.ToString(done.VersionId)
}

func TestObjectLockMultipart(t *testing.T) {
	ctx := context.Background()
	srv, c := itest.Start(t)
	createLockBucket(t, c, "mpl")
	itest.CreateBucket(t, c, "mpplain")
	hour := time.Now().Add(time.Hour).UTC().Truncate(time.Second)

	gov := lockedUpload(t, c, "mpl", "gov", func(in *s3.CreateMultipartUploadInput) {
		in.ObjectLockMode, in.ObjectLockRetainUntilDate = types.ObjectLockModeGovernance, aws.Time(hour)
	})
	comp := lockedUpload(t, c, "mpl", "comp", func(in *s3.CreateMultipartUploadInput) {
		in.ObjectLockMode, in.ObjectLockRetainUntilDate = types.ObjectLockModeCompliance, aws.Time(hour)
	})
	hold := lockedUpload(t, c, "mpl", "hold", func(in *s3.CreateMultipartUploadInput) {
		in.ObjectLockLegalHoldStatus = types.ObjectLockLegalHoldStatusOn
	})
	h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("mpl"), Key: aws.String("gov"), VersionId: aws.String(gov)})
	if err != nil || h.ObjectLockMode != types.ObjectLockModeGovernance || !aws.ToTime(h.ObjectLockRetainUntilDate).Equal(hour) {
		t.Fatalf("HeadObject(gov) lock = %v %v, %v; want GOVERNANCE until %v", h.ObjectLockMode, h.ObjectLockRetainUntilDate, err, hour)
	}
	lh, err := c.GetObjectLegalHold(ctx, &s3.GetObjectLegalHoldInput{Bucket: aws.String("mpl"), Key: aws.String("hold")})
	if err != nil || lh.LegalHold.Status != types.ObjectLockLegalHoldStatusOn {
		t.Fatalf("GetObjectLegalHold(hold) = %+v, %v; want ON", lh, err)
	}

	// Locked as a PutObject would be: no delete by version without
	// bypass; COMPLIANCE and the legal hold not even with it.
	for _, v := range []struct{ key, version string }{{"gov", gov}, {"comp", comp}, {"hold", hold}} {
		itest.WantErr(t, deleteVersion(c, "mpl", v.key, v.version, false), http.StatusForbidden, "AccessDenied")
		wantVersionThere(t, c, "mpl", v.key, v.version)
	}
	itest.WantErr(t, deleteVersion(c, "mpl", "comp", comp, true), http.StatusForbidden, "AccessDenied")
	itest.WantErr(t, deleteVersion(c, "mpl", "hold", hold, true), http.StatusForbidden, "AccessDenied")
	wantVersionThere(t, c, "mpl", "comp", comp)
	wantVersionThere(t, c, "mpl", "hold", hold)
	if err := deleteVersion(c, "mpl", "gov", gov, true); err != nil {
		t.Fatalf("DeleteObject(gov) with bypass: %v", err)
	}

	// Refusals at CreateMultipartUpload leave no upload behind.
	create := func(bucket string, set func(*s3.CreateMultipartUploadInput)) error {
		in := &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("refused")}
		set(in)
		_, err := c.CreateMultipartUpload(ctx, in)
		return err
	}
	itest.WantErr(t, create("mpplain", func(in *s3.CreateMultipartUploadInput) {
		in.ObjectLockMode, in.ObjectLockRetainUntilDate = types.ObjectLockModeGovernance, aws.Time(hour)
	}), http.StatusBadRequest, "InvalidRequest")
	itest.WantErr(t, create("mpl", func(in *s3.CreateMultipartUploadInput) {
		in.ObjectLockMode, in.ObjectLockRetainUntilDate = types.ObjectLockModeGovernance, aws.Time(time.Now().Add(-time.Hour))
	}), http.StatusBadRequest, "InvalidArgument")
	itest.WantErr(t, create("mpl", func(in *s3.CreateMultipartUploadInput) { in.ObjectLockMode = types.ObjectLockModeGovernance }),
		http.StatusBadRequest, "InvalidArgument")
	itest.WantErr(t, create("mpl", func(in *s3.CreateMultipartUploadInput) { in.ObjectLockMode = "FOREVER" }),
		http.StatusBadRequest, "InvalidArgument")
	for _, b := range []string{"mpl", "mpplain"} {
		lu, err := c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String(b)})
		if err != nil || len(lu.Uploads) != 0 {
			t.Fatalf("uploads of %s after refusals: %+v, %v", b, lu.Uploads, err)
		}
	}

	// A part of an upload to be locked needs Content-MD5 or a checksum,
	// as S3: a raw UploadPart with neither is refused and stores nothing.
	cu, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("mpl"), Key: aws.String("raw"),
		ObjectLockLegalHoldStatus: types.ObjectLockLegalHoldStatusOn})
	if err != nil {
		t.Fatal(err)
	}
	part := "/mpl/raw?partNumber=1&uploadId=" + url.QueryEscape(aws.ToString(cu.UploadId))
	req := itest.RawRequest(t, srv, http.MethodPut, part, []byte("raw"))
	itest.Sign(t, req, []byte("raw"), itest.SignOpts{})
	resp, body := itest.Do(t, req)
	itest.WantRawErr(t, resp, body, http.StatusBadRequest, "InvalidRequest")
	lp, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String("mpl"), Key: aws.String("raw"), UploadId: cu.UploadId})
	if err != nil || len(lp.Parts) != 0 {
		t.Fatalf("parts after the refused UploadPart: %+v, %v", lp.Parts, err)
	}
	req = itest.RawRequest(t, srv, http.MethodPut, part, []byte("raw"))
	req.Header.Set("Content-Md5", "vdFmrzpj975pbdF6IYpv+w==") // MD5("raw")
	itest.Sign(t, req, []byte("raw"), itest.SignOpts{})
	if resp, body := itest.Do(t, req); resp.StatusCode != http.StatusOK {
		t.Fatalf("UploadPart with Content-MD5: %d %s", resp.StatusCode, body)
	}
}
