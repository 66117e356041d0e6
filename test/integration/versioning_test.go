package integration

// Versioning (ADR 0012): Put/GetBucketVersioning, versions written by
// PUT, copy and multipart completion, reads and deletes by version ID,
// delete markers, ListObjectVersions, DeleteObjects with versions, and
// suspended versioning, through aws-sdk-go-v2 (raw requests where the SDK
// cannot send what is tested).

import (
	"bytes"
	"context"
	"encoding/xml"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

func setVersioning(t *testing.T, c *s3.Client, bucket string, status types.BucketVersioningStatus) {
	t.Helper()
	_, err := c.PutBucketVersioning(context.Background(), &s3.PutBucketVersioningInput{Bucket: aws.String(bucket),
		VersioningConfiguration: &types.VersioningConfiguration{Status: status}})
	if err != nil {
		t.Fatalf("PutBucketVersioning(%s): %v", status, err)
	}
}

func wantVersioning(t *testing.T, c *s3.Client, bucket string, want types.BucketVersioningStatus) {
	t.Helper()
	out, err := c.GetBucketVersioning(context.Background(), &s3.GetBucketVersioningInput{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatalf("GetBucketVersioning: %v", err)
	}
	if out.Status != want || out.MFADelete != "" {
		t.Fatalf("GetBucketVersioning = %q (MFADelete %q), want %q", out.Status, out.MFADelete, want)
	}
}

// versionsOf lists every version of bucket, page by page (max-keys
// pageSize), as key@versionID with (DM) for a delete marker and * for the
// latest, in the order of the response documents: raw signed requests,
// since the SDK splits versions from delete markers and loses their
// order. The SDK's paginator must find the same entries.
func versionsOf(t *testing.T, srv *testutil.Server, c *s3.Client, bucket string, pageSize int32) []string {
	t.Helper()
	out := rawVersions(t, srv, bucket, pageSize)
	var sdk []string
	p := s3.NewListObjectVersionsPaginator(c, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), MaxKeys: aws.Int32(pageSize)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatalf("ListObjectVersions: %v", err)
		}
		for _, v := range page.Versions {
			sdk = append(sdk, aws.ToString(v.Key)+"@"+aws.ToString(v.VersionId)+map[bool]string{true: "*"}[aws.ToBool(v.IsLatest)])
		}
		for _, m := range page.DeleteMarkers {
			sdk = append(sdk, aws.ToString(m.Key)+"@"+aws.ToString(m.VersionId)+"(DM)"+map[bool]string{true: "*"}[aws.ToBool(m.IsLatest)])
		}
	}
	if got, want := slices.Sorted(slices.Values(sdk)), slices.Sorted(slices.Values(out)); !slices.Equal(got, want) {
		t.Fatalf("the SDK's paginator lists %q, the documents %q", got, want)
	}
	return out
}

// rawVersions is the bucket's ListObjectVersions, paged by pageSize, as
// versionsOf writes it, without the SDK's cross-check: for polling a
// bucket that a lifecycle worker is changing between two listings.
func rawVersions(t *testing.T, srv *testutil.Server, bucket string, pageSize int32) []string {
	t.Helper()
	var out []string
	q := url.Values{"versions": {""}, "max-keys": {strconv.Itoa(int(pageSize))}}
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatal("ListObjectVersions pages do not end")
		}
		req := itest.RawRequest(t, srv, http.MethodGet, "/"+bucket+"?"+q.Encode(), nil)
		itest.Sign(t, req, nil, itest.SignOpts{})
		resp, body := itest.Do(t, req)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("ListObjectVersions: %d %s", resp.StatusCode, body)
		}
		var res struct {
			Truncated   bool   `xml:"IsTruncated"`
			NextKey     string `xml:"NextKeyMarker"`
			NextVersion string `xml:"NextVersionIdMarker"`
			Entries     []struct {
				XMLName   xml.Name
				Key       string `xml:"Key"`
				VersionID string `xml:"VersionId"`
				IsLatest  bool   `xml:"IsLatest"`
			} `xml:",any"`
		}
		if err := xml.Unmarshal(body, &res); err != nil {
			t.Fatal(err)
		}
		for _, e := range res.Entries {
			s := e.Key + "@" + e.VersionID
			switch e.XMLName.Local {
			case "DeleteMarker":
				s += "(DM)"
			case "Version":
			default:
				continue
			}
			if e.IsLatest {
				s += "*"
			}
			out = append(out, s)
		}
		if !res.Truncated {
			break
		}
		q.Set("key-marker", res.NextKey)
		q.Set("version-id-marker", res.NextVersion)
	}
	return out
}

func TestVersioningConfiguration(t *testing.T) {
	srv, c := itest.StartBucket(t, "ver")
	ctx := context.Background()
	wantVersioning(t, c, "ver", "")
	setVersioning(t, c, "ver", types.BucketVersioningStatusEnabled)
	wantVersioning(t, c, "ver", types.BucketVersioningStatusEnabled)
	setVersioning(t, c, "ver", types.BucketVersioningStatusSuspended)
	wantVersioning(t, c, "ver", types.BucketVersioningStatusSuspended)

	_, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String("ver"),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled, MFADelete: types.MFADeleteEnabled}})
	itest.WantErr(t, err, http.StatusNotImplemented, "NotImplemented")
	wantVersioning(t, c, "ver", types.BucketVersioningStatusSuspended)

	for _, doc := range []string{
		"<VersioningConfiguration><Status>Off</Status></VersioningConfiguration>",
		"<VersioningConfiguration></VersioningConfiguration>", // never back to unversioned
		"<VersioningConfiguration><Status>Enabled",
		"<Other><Status>Enabled</Status></Other>",
	} {
		req := itest.RawRequest(t, srv, http.MethodPut, "/ver?versioning", []byte(doc))
		itest.Sign(t, req, []byte(doc), itest.SignOpts{})
		resp, body := itest.Do(t, req)
		itest.WantRawErr(t, resp, body, http.StatusBadRequest, "MalformedXML")
		wantVersioning(t, c, "ver", types.BucketVersioningStatusSuspended)
	}
	_, err = c.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: aws.String("nope")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	_, err = c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String("nope"),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
}

func TestVersioningUnversionedBucketSendsNoVersion(t *testing.T) {
	srv, c := itest.StartBucket(t, "plain")
	out := itest.Put(t, c, "plain", "k", []byte("one"))
	if out.VersionId != nil {
		t.Errorf("PUT on a never-versioned bucket: x-amz-version-id %q", aws.ToString(out.VersionId))
	}
	_, got := itest.Get(t, c, "plain", "k")
	if got.VersionId != nil {
		t.Errorf("GET on a never-versioned bucket: x-amz-version-id %q", aws.ToString(got.VersionId))
	}
	// A copy of the null version onto its own key replaces it with itself:
	// the bytes stay readable.
	if _, err := c.CopyObject(context.Background(), &s3.CopyObjectInput{Bucket: aws.String("plain"), Key: aws.String("k"),
		CopySource: aws.String("plain/k?versionId=null")}); err != nil {
		t.Fatalf("copy of the null version onto itself: %v", err)
	}
	itest.WantObject(t, c, "plain", "k", []byte("one"))
	big := bytes.Repeat([]byte("big "), 64<<10) // in a blob file, not inline
	itest.Put(t, c, "plain", "big", big)
	if _, err := c.CopyObject(context.Background(), &s3.CopyObjectInput{Bucket: aws.String("plain"), Key: aws.String("big"),
		CopySource: aws.String("plain/big?versionId=null")}); err != nil {
		t.Fatalf("copy of the null version onto itself: %v", err)
	}
	itest.WantObject(t, c, "plain", "big", big)
	if _, err := c.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String("plain"), Key: aws.String("big")}); err != nil {
		t.Fatal(err)
	}
	del, err := c.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String("plain"), Key: aws.String("k")})
	if err != nil || del.VersionId != nil || aws.ToBool(del.DeleteMarker) {
		t.Errorf("DELETE on a never-versioned bucket = %+v, %v", del, err)
	}
	if v := versionsOf(t, srv, c, "plain", 10); len(v) != 0 {
		t.Errorf("versions after the delete = %q", v)
	}
}

func TestVersioningObjects(t *testing.T) {
	srv, c := itest.StartBucket(t, "ver")
	ctx := context.Background()
	b := aws.String("ver")
	setVersioning(t, c, "ver", types.BucketVersioningStatusEnabled)
	one, two := []byte("version one"), []byte("version two!")
	v1 := aws.ToString(itest.Put(t, c, "ver", "dir/k", one).VersionId)
	v2 := aws.ToString(itest.Put(t, c, "ver", "dir/k", two).VersionId)
	if v1 == "" || v2 == "" || v1 == v2 || v1 == "null" || v2 <= v1 {
		t.Fatalf("version IDs %q, %q: want distinct, increasing, not null", v1, v2)
	}
	itest.WantObject(t, c, "ver", "dir/k", two)
	got, out := itest.Get(t, c, "ver", "dir/k", func(in *s3.GetObjectInput) { in.VersionId = aws.String(v1) })
	if !bytes.Equal(got, one) || aws.ToString(out.VersionId) != v1 {
		t.Fatalf("GET versionId=v1 = %q (version %q)", got, aws.ToString(out.VersionId))
	}
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: b, Key: aws.String("dir/k")})
	if err != nil || aws.ToString(head.VersionId) != v2 || aws.ToInt64(head.ContentLength) != int64(len(two)) {
		t.Fatalf("HEAD = %+v, %v", head, err)
	}
	attrs, err := c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: b, Key: aws.String("dir/k"), VersionId: aws.String(v1),
		ObjectAttributes: []types.ObjectAttributes{types.ObjectAttributesObjectSize}})
	if err != nil || aws.ToInt64(attrs.ObjectSize) != int64(len(one)) || aws.ToString(attrs.VersionId) != v1 {
		t.Fatalf("GetObjectAttributes(v1) = %+v, %v", attrs, err)
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: b, Key: aws.String("dir/k"), VersionId: aws.String(unknownVersion)})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchVersion")

	// A delete writes a delete marker; the versions stay.
	del, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: b, Key: aws.String("dir/k")})
	if err != nil || !aws.ToBool(del.DeleteMarker) || aws.ToString(del.VersionId) == "" {
		t.Fatalf("DELETE = %+v, %v; want a delete marker", del, err)
	}
	dm := aws.ToString(del.VersionId)
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: b, Key: aws.String("dir/k")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchKey")
	if itest.ErrHeader(err, "X-Amz-Delete-Marker") != "true" || itest.ErrHeader(err, "X-Amz-Version-Id") != dm {
		t.Errorf("GET under a delete marker: x-amz-delete-marker %q, x-amz-version-id %q",
			itest.ErrHeader(err, "X-Amz-Delete-Marker"), itest.ErrHeader(err, "X-Amz-Version-Id"))
	}
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: b, Key: aws.String("dir/k")})
	itest.WantErr(t, err, http.StatusNotFound, "NotFound")
	if itest.ErrHeader(err, "X-Amz-Delete-Marker") != "true" {
		t.Errorf("HEAD under a delete marker: no x-amz-delete-marker")
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: b, Key: aws.String("dir/k"), VersionId: aws.String(dm)})
	itest.WantErr(t, err, http.StatusMethodNotAllowed, "MethodNotAllowed")
	if itest.ErrHeader(err, "X-Amz-Delete-Marker") != "true" || itest.ErrHeader(err, "X-Amz-Version-Id") != dm {
		t.Errorf("GET of a delete marker: headers %q %q", itest.ErrHeader(err, "X-Amz-Delete-Marker"), itest.ErrHeader(err, "X-Amz-Version-Id"))
	}
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: b, Key: aws.String("dir/k"), VersionId: aws.String(dm)})
	itest.WantErr(t, err, http.StatusMethodNotAllowed, "MethodNotAllowed")
	list, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: b})
	if err != nil || len(list.Contents) != 0 {
		t.Fatalf("ListObjectsV2 under a delete marker = %+v, %v", list.Contents, err)
	}
	if got, want := versionsOf(t, srv, c, "ver", 1000), []string{"dir/k@" + dm + "(DM)*", "dir/k@" + v2, "dir/k@" + v1}; !slices.Equal(got, want) {
		t.Fatalf("versions = %q\nwant %q", got, want)
	}
	lv, err := c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: b})
	if err != nil || len(lv.DeleteMarkers) != 1 || aws.ToString(lv.DeleteMarkers[0].Owner.DisplayName) != testutil.AccessKey {
		t.Fatalf("ListObjectVersions: delete markers %+v, %v; want one owned by the requester", lv.DeleteMarkers, err)
	}
	// A delete marker cannot be a copy source.
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("copy"), CopySource: aws.String("ver/dir/k?versionId=" + dm)})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidRequest")
	itest.WantNoObject(t, c, "ver", "copy")

	// Deleting the marker by its ID brings v2 back; deleting v2, v1.
	del, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: b, Key: aws.String("dir/k"), VersionId: aws.String(dm)})
	if err != nil || !aws.ToBool(del.DeleteMarker) || aws.ToString(del.VersionId) != dm {
		t.Fatalf("DELETE of the marker = %+v, %v", del, err)
	}
	itest.WantObject(t, c, "ver", "dir/k", two)
	del, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: b, Key: aws.String("dir/k"), VersionId: aws.String(v2)})
	if err != nil || aws.ToBool(del.DeleteMarker) || aws.ToString(del.VersionId) != v2 {
		t.Fatalf("DELETE of v2 = %+v, %v", del, err)
	}
	itest.WantObject(t, c, "ver", "dir/k", one)

	// Copy from a version: the source's and the new version's IDs.
	cp, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("copy"), CopySource: aws.String("ver/dir/k?versionId=" + v1)})
	if err != nil || aws.ToString(cp.CopySourceVersionId) != v1 || aws.ToString(cp.VersionId) == "" || aws.ToString(cp.VersionId) == v1 {
		t.Fatalf("CopyObject = %+v, %v", cp, err)
	}
	itest.WantObject(t, c, "ver", "copy", one)
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("copy2"), CopySource: aws.String("ver/dir/k?versionId=" + v2)})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchVersion")
	itest.WantNoObject(t, c, "ver", "copy2")

	// Multipart completion creates a version; a part copied from a version
	// names it.
	mu, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: b, Key: aws.String("dir/k")})
	if err != nil {
		t.Fatal(err)
	}
	pc, err := c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: b, Key: aws.String("dir/k"), UploadId: mu.UploadId,
		PartNumber: aws.Int32(2), CopySource: aws.String("ver/dir/k?versionId=" + v1)})
	if err != nil || aws.ToString(pc.CopySourceVersionId) != v1 {
		t.Fatalf("UploadPartCopy from v1 = %+v, %v", pc, err)
	}
	part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: b, Key: aws.String("dir/k"), UploadId: mu.UploadId,
		PartNumber: aws.Int32(1), Body: bytes.NewReader(two)})
	if err != nil {
		t.Fatal(err)
	}
	complete := &s3.CompleteMultipartUploadInput{Bucket: b, Key: aws.String("dir/k"), UploadId: mu.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: part.ETag}}}}
	done, err := c.CompleteMultipartUpload(ctx, complete)
	if err != nil || aws.ToString(done.VersionId) == "" || aws.ToString(done.VersionId) == v1 {
		t.Fatalf("CompleteMultipartUpload = %+v, %v", done, err)
	}
	again, err := c.CompleteMultipartUpload(ctx, complete) // a retry answers the same
	if err != nil || aws.ToString(again.ETag) != aws.ToString(done.ETag) || aws.ToString(again.VersionId) != aws.ToString(done.VersionId) {
		t.Fatalf("retried CompleteMultipartUpload = %+v, %v", again, err)
	}
	if got, out := itest.Get(t, c, "ver", "dir/k"); !bytes.Equal(got, two) || aws.ToString(out.VersionId) != aws.ToString(done.VersionId) {
		t.Fatalf("GET after the completion = %q, version %q", got, aws.ToString(out.VersionId))
	}
	if got, want := versionsOf(t, srv, c, "ver", 1), []string{"copy@" + aws.ToString(cp.VersionId) + "*",
		"dir/k@" + aws.ToString(done.VersionId) + "*", "dir/k@" + v1}; !slices.Equal(got, want) {
		t.Fatalf("versions = %q\nwant %q", got, want)
	}
	// Restoring a version is a copy onto its own key naming the version
	// (S3's documented way); without a version ID it is a copy onto
	// itself, refused.
	restored, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("dir/k"), CopySource: aws.String("ver/dir/k?versionId=" + v1)})
	if err != nil || aws.ToString(restored.CopySourceVersionId) != v1 || aws.ToString(restored.VersionId) == "" ||
		aws.ToString(restored.VersionId) == v1 || aws.ToString(restored.VersionId) == aws.ToString(done.VersionId) {
		t.Fatalf("CopyObject of v1 onto its key = %+v, %v", restored, err)
	}
	if got, out := itest.Get(t, c, "ver", "dir/k"); !bytes.Equal(got, one) || aws.ToString(out.VersionId) != aws.ToString(restored.VersionId) {
		t.Fatalf("GET after the restore = %q, version %q", got, aws.ToString(out.VersionId))
	}
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("dir/k"), CopySource: aws.String("ver/dir/k")})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidRequest")
	if got := versionsOf(t, srv, c, "ver", 1000); len(got) != 4 {
		t.Fatalf("versions after the restore = %q, want 4", got)
	}
	_, err = c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: b})
	itest.WantErr(t, err, http.StatusConflict, "BucketNotEmpty")
}

func TestVersioningSuspended(t *testing.T) {
	srv, c := itest.StartBucket(t, "sus")
	ctx := context.Background()
	b := aws.String("sus")
	itest.Put(t, c, "sus", "k", []byte("null before versioning"))
	setVersioning(t, c, "sus", types.BucketVersioningStatusEnabled)
	v1 := aws.ToString(itest.Put(t, c, "sus", "k", []byte("v1")).VersionId)
	setVersioning(t, c, "sus", types.BucketVersioningStatusSuspended)
	if out := itest.Put(t, c, "sus", "k", []byte("null now")); aws.ToString(out.VersionId) != "null" {
		t.Errorf("PUT on a suspended bucket: version %q, want null", aws.ToString(out.VersionId))
	}
	if got, want := versionsOf(t, srv, c, "sus", 1000), []string{"k@null*", "k@" + v1}; !slices.Equal(got, want) {
		t.Fatalf("versions = %q, want %q (the null version replaced)", got, want)
	}
	del, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: b, Key: aws.String("k")})
	if err != nil || !aws.ToBool(del.DeleteMarker) || aws.ToString(del.VersionId) != "null" {
		t.Fatalf("DELETE on a suspended bucket = %+v, %v", del, err)
	}
	if got, want := versionsOf(t, srv, c, "sus", 1000), []string{"k@null(DM)*", "k@" + v1}; !slices.Equal(got, want) {
		t.Fatalf("versions = %q, want %q", got, want)
	}
	itest.WantNoObject(t, c, "sus", "k")
	got, _ := itest.Get(t, c, "sus", "k", func(in *s3.GetObjectInput) { in.VersionId = aws.String(v1) })
	if string(got) != "v1" {
		t.Fatalf("GET v1 = %q", got)
	}
}

func TestVersioningDeleteObjects(t *testing.T) {
	srv, c := itest.StartBucket(t, "vdel")
	ctx := context.Background()
	b := aws.String("vdel")
	setVersioning(t, c, "vdel", types.BucketVersioningStatusEnabled)
	a1 := aws.ToString(itest.Put(t, c, "vdel", "a", []byte("a1")).VersionId)
	itest.Put(t, c, "vdel", "a", []byte("a2"))
	itest.Put(t, c, "vdel", "b", []byte("b1"))
	out, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: b, Delete: &types.Delete{Objects: []types.ObjectIdentifier{
		{Key: aws.String("a"), VersionId: aws.String(a1)}, {Key: aws.String("b")},
	}}})
	if err != nil || len(out.Errors) != 0 || len(out.Deleted) != 2 {
		t.Fatalf("DeleteObjects = %+v, %v", out, err)
	}
	byKey := map[string]types.DeletedObject{}
	for _, d := range out.Deleted {
		byKey[aws.ToString(d.Key)] = d
	}
	if d := byKey["a"]; aws.ToString(d.VersionId) != a1 || aws.ToBool(d.DeleteMarker) || d.DeleteMarkerVersionId != nil {
		t.Errorf("deleted a = %+v", d)
	}
	marker := byKey["b"].DeleteMarkerVersionId
	if d := byKey["b"]; !aws.ToBool(d.DeleteMarker) || aws.ToString(marker) == "" || d.VersionId != nil {
		t.Errorf("deleted b = %+v", d)
	}
	itest.WantObject(t, c, "vdel", "a", []byte("a2"))
	itest.WantNoObject(t, c, "vdel", "b")
	if got := versionsOf(t, srv, c, "vdel", 1000); len(got) != 3 {
		t.Errorf("versions = %q, want a's one and b's two", got)
	}
	// Removing the marker by its ID: S3 reports DeleteMarker and, as
	// DeleteMarkerVersionId, the version deleted (DeletedObject's
	// documentation).
	out, err = c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: b, Delete: &types.Delete{Objects: []types.ObjectIdentifier{
		{Key: aws.String("b"), VersionId: marker},
	}}})
	if err != nil || len(out.Errors) != 0 || len(out.Deleted) != 1 {
		t.Fatalf("DeleteObjects of the marker = %+v, %v", out, err)
	}
	if d := out.Deleted[0]; aws.ToString(d.VersionId) != aws.ToString(marker) || !aws.ToBool(d.DeleteMarker) ||
		aws.ToString(d.DeleteMarkerVersionId) != aws.ToString(marker) {
		t.Errorf("deleted marker of b = key %q version %q marker %v marker version %q", aws.ToString(d.Key), aws.ToString(d.VersionId),
			aws.ToBool(d.DeleteMarker), aws.ToString(d.DeleteMarkerVersionId))
	}
	itest.WantObject(t, c, "vdel", "b", []byte("b1"))
}

func TestVersioningListVersions(t *testing.T) {
	srv, c := itest.StartBucket(t, "lvers")
	ctx := context.Background()
	setVersioning(t, c, "lvers", types.BucketVersioningStatusEnabled)
	for _, k := range []string{"a", "a/1", "a/2", "b c/d", "é"} {
		for range 2 {
			itest.Put(t, c, "lvers", k, []byte(k))
		}
	}
	all := versionsOf(t, srv, c, "lvers", 1000)
	if len(all) != 10 {
		t.Fatalf("versions = %q", all)
	}
	for _, size := range []int32{1, 3} {
		if got := versionsOf(t, srv, c, "lvers", size); !slices.Equal(got, all) {
			t.Errorf("walk by %d = %q\nwant %q", size, got, all)
		}
	}
	out, err := c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String("lvers"), Delimiter: aws.String("/"),
		EncodingType: types.EncodingTypeUrl})
	if err != nil {
		t.Fatal(err)
	}
	var keys, prefixes []string
	for _, v := range out.Versions {
		keys = append(keys, aws.ToString(v.Key))
	}
	for _, p := range out.CommonPrefixes {
		prefixes = append(prefixes, aws.ToString(p.Prefix))
	}
	// aws-sdk-go-v2 hands encoded names over as they came.
	if !slices.Equal(keys, []string{"a", "a", "%C3%A9", "%C3%A9"}) || !slices.Equal(prefixes, []string{"a/", "b+c/"}) ||
		out.EncodingType != types.EncodingTypeUrl {
		t.Errorf("delimited listing: keys %q prefixes %q", keys, prefixes)
	}
	_, err = c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String("nope")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	_, err = c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String("lvers"), VersionIdMarker: aws.String("x")})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
}
