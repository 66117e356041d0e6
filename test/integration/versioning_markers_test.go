package integration

// Reads that meet a delete marker: 404 when it is the latest version, 405
// when a versionId names it, each with x-amz-delete-marker: true, the
// marker's x-amz-version-id and its Last-Modified, as S3 answers
// (GetObject's API reference: "If the specified version in the request is
// a delete marker, the response returns a 405 Method Not Allowed error and
// the Last-Modified: timestamp response header"). Through aws-sdk-go-v2 and
// raw requests.

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/jogstore/jog/test/integration/itest"
)

func TestDeleteMarkerAnswers(t *testing.T) {
	srv, c := itest.StartBucket(t, "marks")
	ctx := context.Background()
	setVersioning(t, c, "marks", types.BucketVersioningStatusEnabled)
	itest.Put(t, c, "marks", "k", []byte("data"))
	del, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("marks"), Key: aws.String("k")})
	if err != nil || !aws.ToBool(del.DeleteMarker) {
		t.Fatalf("DELETE = %+v, %v; want a delete marker", del, err)
	}
	marker := aws.ToString(del.VersionId)
	lv, err := c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String("marks")})
	if err != nil || len(lv.DeleteMarkers) != 1 || aws.ToString(lv.DeleteMarkers[0].VersionId) != marker {
		t.Fatalf("ListObjectVersions: delete markers %+v, %v", lv.DeleteMarkers, err)
	}
	want := aws.ToTime(lv.DeleteMarkers[0].LastModified).UTC().Format(http.TimeFormat)

	check := func(what string, status int, code, lastModified, deleteMarker, version string) {
		t.Helper()
		if lastModified != want || deleteMarker != "true" || version != marker {
			t.Errorf("%s (%d %s): Last-Modified %q, x-amz-delete-marker %q, x-amz-version-id %q; want %q, true, %q",
				what, status, code, lastModified, deleteMarker, version, want, marker)
		}
	}
	sdkCheck := func(what string, err error, status int, code string) {
		t.Helper()
		itest.WantErr(t, err, status, code)
		check(what, status, code, itest.ErrHeader(err, "Last-Modified"), itest.ErrHeader(err, "X-Amz-Delete-Marker"), itest.ErrHeader(err, "X-Amz-Version-Id"))
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("marks"), Key: aws.String("k")})
	sdkCheck("SDK GET of the latest", err, http.StatusNotFound, "NoSuchKey")
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("marks"), Key: aws.String("k")})
	sdkCheck("SDK HEAD of the latest", err, http.StatusNotFound, "NotFound")
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("marks"), Key: aws.String("k"), VersionId: aws.String(marker)})
	sdkCheck("SDK GET by versionId", err, http.StatusMethodNotAllowed, "MethodNotAllowed")
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("marks"), Key: aws.String("k"), VersionId: aws.String(marker)})
	sdkCheck("SDK HEAD by versionId", err, http.StatusMethodNotAllowed, "MethodNotAllowed")

	for _, c := range []struct {
		method, query string
		status        int
		code          string
	}{
		{http.MethodGet, "", http.StatusNotFound, "NoSuchKey"},
		{http.MethodHead, "", http.StatusNotFound, ""},
		{http.MethodGet, "?versionId=" + url.QueryEscape(marker), http.StatusMethodNotAllowed, "MethodNotAllowed"},
		{http.MethodHead, "?versionId=" + url.QueryEscape(marker), http.StatusMethodNotAllowed, ""},
	} {
		req := itest.RawRequest(t, srv, c.method, "/marks/k"+c.query, nil)
		itest.Sign(t, req, nil, itest.SignOpts{})
		resp, body := itest.Do(t, req)
		what := "raw " + c.method + " /marks/k" + c.query
		if c.code != "" {
			itest.WantRawErr(t, resp, body, c.status, c.code)
		} else if resp.StatusCode != c.status || len(body) != 0 {
			t.Errorf("%s: %d with %d body bytes, want %d and none", what, resp.StatusCode, len(body), c.status)
		}
		check(what, resp.StatusCode, c.code, resp.Header.Get("Last-Modified"), resp.Header.Get("X-Amz-Delete-Marker"), resp.Header.Get("X-Amz-Version-Id"))
		if _, err := time.Parse(http.TimeFormat, resp.Header.Get("Last-Modified")); err != nil {
			t.Errorf("%s: Last-Modified %q is not an HTTP date: %v", what, resp.Header.Get("Last-Modified"), err)
		}
	}

	// A 404 that is no delete marker's carries no Last-Modified.
	req := itest.RawRequest(t, srv, http.MethodGet, "/marks/none", nil)
	itest.Sign(t, req, nil, itest.SignOpts{})
	resp, body := itest.Do(t, req)
	itest.WantRawErr(t, resp, body, http.StatusNotFound, "NoSuchKey")
	if lm, dm := resp.Header.Get("Last-Modified"), resp.Header.Get("X-Amz-Delete-Marker"); lm != "" || dm != "" {
		t.Errorf("GET of a key never written: Last-Modified %q, x-amz-delete-marker %q", lm, dm)
	}
}

// TestListVersionsVersionMarker: a version-id-marker must name a version of
// the key-marker key (S3: 400 InvalidArgument "Invalid version id
// specified"), and needs a key-marker ("A version-id marker cannot be
// specified without a key marker."); the null version marks a position
// like any other.
func TestListVersionsVersionMarker(t *testing.T) {
	_, c := itest.StartBucket(t, "vmark")
	ctx := context.Background()
	itest.Put(t, c, "vmark", "k", []byte("null version"))
	setVersioning(t, c, "vmark", types.BucketVersioningStatusEnabled)
	v1 := aws.ToString(itest.Put(t, c, "vmark", "k", []byte("v1")).VersionId)
	z := aws.ToString(itest.Put(t, c, "vmark", "z", []byte("z")).VersionId)

	list := func(keyMarker, versionMarker string) ([]string, error) {
		out, err := c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String("vmark"),
			KeyMarker: aws.String(keyMarker), VersionIdMarker: aws.String(versionMarker)})
		if err != nil {
			return nil, err
		}
		var got []string
		for _, v := range out.Versions {
			got = append(got, aws.ToString(v.Key)+"@"+aws.ToString(v.VersionId))
		}
		return got, nil
	}
	for _, c := range []struct {
		versionMarker string
		want          []string
	}{
		{v1, []string{"k@null", "z@" + z}},
		{"null", []string{"z@" + z}},
	} {
		if got, err := list("k", c.versionMarker); err != nil || !slices.Equal(got, c.want) {
			t.Errorf("after k@%s: %q, %v; want %q", c.versionMarker, got, err, c.want)
		}
	}
	wantMsg := func(what string, err error, msg string) {
		t.Helper()
		itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
		var ae smithy.APIError
		if errors.As(err, &ae) && ae.ErrorMessage() != msg {
			t.Errorf("%s: message %q, want %q", what, ae.ErrorMessage(), msg)
		}
	}
	// Another key's version, one that never was, a malformed one.
	for _, vm := range []string{z, "0123456789abcdef0123456789abcdef", "not-a-version"} {
		_, err := list("k", vm)
		wantMsg("version marker "+vm+" of no version of k", err, "Invalid version id specified")
	}
	// A removed version no longer marks a position.
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("vmark"), Key: aws.String("k"), VersionId: aws.String(v1)}); err != nil {
		t.Fatal(err)
	}
	_, err := list("k", v1)
	wantMsg("version marker of a removed version", err, "Invalid version id specified")
	_, err = c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String("vmark"), VersionIdMarker: aws.String("null")})
	wantMsg("version marker without key marker", err, "A version-id marker cannot be specified without a key marker.")
}

// TestDeleteObjectsRepeatedEntry: a DeleteObjects naming one entry (key,
// version ID, conditions) several times deletes it once and answers it
// once, as S3 does (and MinIO): on a versioned bucket one delete marker,
// not one per repetition. Entries that differ — the key and a version of
// it — are each done.
func TestDeleteObjectsRepeatedEntry(t *testing.T) {
	srv, c := itest.StartBucket(t, "dups")
	ctx := context.Background()
	setVersioning(t, c, "dups", types.BucketVersioningStatusEnabled)
	v1 := aws.ToString(itest.Put(t, c, "dups", "k", []byte("one")).VersionId)
	v2 := aws.ToString(itest.Put(t, c, "dups", "k", []byte("two")).VersionId)
	key := types.ObjectIdentifier{Key: aws.String("k")}
	version := types.ObjectIdentifier{Key: aws.String("k"), VersionId: aws.String(v1)}
	out, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("dups"), Delete: &types.Delete{
		Objects: []types.ObjectIdentifier{key, version, key, key, version}}})
	if err != nil {
		t.Fatalf("DeleteObjects: %v", err)
	}
	if len(out.Errors) != 0 || len(out.Deleted) != 2 {
		t.Fatalf("DeleteObjects answered %d deleted and errors %+v, want 2 deleted (each entry once)", len(out.Deleted), out.Errors)
	}
	marker := aws.ToString(out.Deleted[0].DeleteMarkerVersionId)
	if !aws.ToBool(out.Deleted[0].DeleteMarker) || marker == "" || aws.ToString(out.Deleted[1].VersionId) != v1 {
		t.Errorf("DeleteObjects answered %+v, %+v: want a delete marker for k, then version %s", out.Deleted[0], out.Deleted[1], v1)
	}
	if got, want := versionsOf(t, srv, c, "dups", 1000), []string{"k@" + marker + "(DM)*", "k@" + v2}; !slices.Equal(got, want) {
		t.Errorf("versions = %q, want %q: one delete marker", got, want)
	}
}
