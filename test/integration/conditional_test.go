package integration

// Conditional requests: If-Match, If-None-Match, If-(Un)Modified-Since on
// reads, conditional writes and deletes, through aws-sdk-go-v2 (minio-go's
// conditional GET and HEAD put the same headers on the wire; its copy
// conditions are in TestMinioCopy).

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/test/integration/itest"
)

// awsCond is one set of conditional headers for GET/HEAD.
type awsCond struct {
	ifMatch, ifNoneMatch               string
	ifModifiedSince, ifUnmodifiedSince time.Time
}

func TestAWSConditionalReads(t *testing.T) {
	_, c := itest.StartBucket(t, "cond")
	ctx := context.Background()
	body := []byte("conditional body")
	itest.Put(t, c, "cond", "k", body)
	h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("cond"), Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	etag, lm := aws.ToString(h.ETag), *h.LastModified
	if etag != itest.ETag(body) {
		t.Fatalf("ETag %s", etag)
	}
	const wrong = `"0123456789abcdef0123456789abcdef"`
	past, future := lm.Add(-time.Hour), lm.Add(time.Hour)

	const ok, notModified, failed = http.StatusOK, http.StatusNotModified, http.StatusPreconditionFailed
	cases := []struct {
		name string
		cond awsCond
		want int
	}{
		{"If-Match match", awsCond{ifMatch: etag}, ok},
		{"If-Match unquoted", awsCond{ifMatch: strings.Trim(etag, `"`)}, ok},
		{"If-Match star", awsCond{ifMatch: "*"}, ok},
		{"If-Match list", awsCond{ifMatch: wrong + ", " + etag}, ok},
		{"If-Match mismatch", awsCond{ifMatch: wrong}, failed},
		{"If-None-Match match", awsCond{ifNoneMatch: etag}, notModified},
		{"If-None-Match star", awsCond{ifNoneMatch: "*"}, notModified},
		{"If-None-Match mismatch", awsCond{ifNoneMatch: wrong}, ok},
		{"If-Modified-Since past", awsCond{ifModifiedSince: past}, ok},
		{"If-Modified-Since future", awsCond{ifModifiedSince: future}, notModified},
		{"If-Modified-Since exact", awsCond{ifModifiedSince: lm}, notModified},
		{"If-Unmodified-Since past", awsCond{ifUnmodifiedSince: past}, failed},
		{"If-Unmodified-Since future", awsCond{ifUnmodifiedSince: future}, ok},
		{"If-Unmodified-Since exact", awsCond{ifUnmodifiedSince: lm}, ok},
		// S3's precedence rules.
		{"If-Match true + If-Unmodified-Since false", awsCond{ifMatch: etag, ifUnmodifiedSince: past}, ok},
		{"If-Match false + If-Unmodified-Since true", awsCond{ifMatch: wrong, ifUnmodifiedSince: future}, failed},
		{"If-None-Match false + If-Modified-Since true", awsCond{ifNoneMatch: etag, ifModifiedSince: past}, notModified},
		{"If-None-Match true + If-Modified-Since false", awsCond{ifNoneMatch: wrong, ifModifiedSince: future}, ok},
		{"If-Match false + If-None-Match false", awsCond{ifMatch: wrong, ifNoneMatch: etag}, failed},
		{"If-Unmodified-Since false + If-Modified-Since false", awsCond{ifUnmodifiedSince: past, ifModifiedSince: future}, failed},
		{"all four true", awsCond{ifMatch: etag, ifNoneMatch: wrong, ifModifiedSince: past, ifUnmodifiedSince: future}, ok},
	}
	tp := func(t time.Time) *time.Time {
		if t.IsZero() {
			return nil
		}
		return &t
	}
	sp := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("cond"), Key: aws.String("k"),
				IfMatch: sp(tc.cond.ifMatch), IfNoneMatch: sp(tc.cond.ifNoneMatch),
				IfModifiedSince: tp(tc.cond.ifModifiedSince), IfUnmodifiedSince: tp(tc.cond.ifUnmodifiedSince)})
			hd, herr := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("cond"), Key: aws.String("k"),
				IfMatch: sp(tc.cond.ifMatch), IfNoneMatch: sp(tc.cond.ifNoneMatch),
				IfModifiedSince: tp(tc.cond.ifModifiedSince), IfUnmodifiedSince: tp(tc.cond.ifUnmodifiedSince)})
			switch tc.want {
			case ok:
				if err != nil {
					t.Fatalf("GET: %v, want 200", err)
				}
				got, rerr := io.ReadAll(g.Body)
				g.Body.Close()
				if rerr != nil || string(got) != string(body) {
					t.Errorf("GET body %q (%v), want %q", got, rerr, body)
				}
				if herr != nil {
					t.Fatalf("HEAD: %v, want 200", herr)
				}
				if aws.ToString(hd.ETag) != etag {
					t.Errorf("HEAD ETag %s", aws.ToString(hd.ETag))
				}
			case notModified:
				itest.WantErr(t, err, notModified, "NotModified")
				itest.WantErr(t, herr, notModified, "NotModified")
				// A 304 still names the current ETag and Last-Modified.
				if e := itest.ErrHeader(err, "ETag"); e != etag {
					t.Errorf("304 ETag %q, want %s", e, etag)
				}
				if e := itest.ErrHeader(err, "Last-Modified"); e != lm.UTC().Format(http.TimeFormat) {
					t.Errorf("304 Last-Modified %q", e)
				}
				if e := itest.ErrHeader(err, "Content-Type"); e != "" {
					t.Errorf("304 carries Content-Type %q", e)
				}
			case failed:
				itest.WantErr(t, err, failed, "PreconditionFailed")
				itest.WantErr(t, herr, failed, "PreconditionFailed")
			}
		})
	}

	// Conditions on a missing key: the key's absence wins.
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("cond"), Key: aws.String("missing"), IfMatch: aws.String(etag)})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchKey")
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("cond"), Key: aws.String("missing"), IfNoneMatch: aws.String(etag)})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchKey")

	// A failed condition with a range is still a failed condition.
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("cond"), Key: aws.String("k"), IfMatch: aws.String(wrong), Range: aws.String("bytes=0-1")})
	itest.WantErr(t, err, failed, "PreconditionFailed")
	got, g := itest.Get(t, c, "cond", "k", func(in *s3.GetObjectInput) { in.IfMatch = aws.String(etag); in.Range = aws.String("bytes=0-1") })
	if string(got) != "co" || itest.Status(g.ResultMetadata) != http.StatusPartialContent {
		t.Errorf("If-Match + Range: %d %q", itest.Status(g.ResultMetadata), got)
	}
}

func TestAWSConditionalWrites(t *testing.T) {
	srv, c := itest.StartBucket(t, "condw")
	ctx := context.Background()
	put := func(key, body string, fn func(*s3.PutObjectInput)) error {
		in := &s3.PutObjectInput{Bucket: aws.String("condw"), Key: aws.String(key), Body: strings.NewReader(body)}
		fn(in)
		_, err := c.PutObject(ctx, in)
		return err
	}

	// If-None-Match: * creates only.
	if err := put("once", "first", func(in *s3.PutObjectInput) { in.IfNoneMatch = aws.String("*") }); err != nil {
		t.Fatalf("first create-only put: %v", err)
	}
	err := put("once", "second", func(in *s3.PutObjectInput) { in.IfNoneMatch = aws.String("*") })
	itest.WantErr(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	itest.WantObject(t, c, "condw", "once", []byte("first"))

	// After a delete the key can be created again.
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("condw"), Key: aws.String("once")}); err != nil {
		t.Fatal(err)
	}
	if err := put("once", "third", func(in *s3.PutObjectInput) { in.IfNoneMatch = aws.String("*") }); err != nil {
		t.Fatalf("create-only put after delete: %v", err)
	}
	itest.WantObject(t, c, "condw", "once", []byte("third"))

	// If-Match: compare-and-swap on the ETag.
	first := itest.Put(t, c, "condw", "cas", []byte("v1"))
	err = put("cas", "v2-wrong", func(in *s3.PutObjectInput) { in.IfMatch = aws.String(itest.ETag([]byte("something else"))) })
	itest.WantErr(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	itest.WantObject(t, c, "condw", "cas", []byte("v1"))
	if err := put("cas", "v2", func(in *s3.PutObjectInput) { in.IfMatch = first.ETag }); err != nil {
		t.Fatalf("If-Match with the current ETag: %v", err)
	}
	itest.WantObject(t, c, "condw", "cas", []byte("v2"))
	// The old ETag no longer matches.
	err = put("cas", "v3", func(in *s3.PutObjectInput) { in.IfMatch = first.ETag })
	itest.WantErr(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	itest.WantObject(t, c, "condw", "cas", []byte("v2"))

	// If-Match on a key that does not exist: NoSuchKey, nothing created.
	err = put("absent", "x", func(in *s3.PutObjectInput) { in.IfMatch = first.ETag })
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchKey")
	itest.WantNoObject(t, c, "condw", "absent")
	itest.WantNoStrayFiles(t, srv, c)
}

// TestAWSConditionalIfMatchAny: If-Match: * (RFC 9110: any current
// object) on PutObject, CopyObject's destination and
// CompleteMultipartUpload succeeds when the key exists and is 412
// PreconditionFailed, creating nothing, when it does not.
func TestAWSConditionalIfMatchAny(t *testing.T) {
	srv, c := itest.StartBucket(t, "condany")
	ctx := context.Background()
	b := aws.String("condany")
	any := aws.String("*")
	itest.Put(t, c, "condany", "src", []byte("source"))

	_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("k"), Body: strings.NewReader("v1"), IfMatch: any})
	itest.WantErr(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	itest.WantNoObject(t, c, "condany", "k")
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("k"), CopySource: aws.String("condany/src"), IfMatch: any})
	itest.WantErr(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	itest.WantNoObject(t, c, "condany", "k")
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: b, Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: b, Key: aws.String("k"), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), Body: strings.NewReader("mp")})
	if err != nil {
		t.Fatal(err)
	}
	complete := &s3.CompleteMultipartUploadInput{Bucket: b, Key: aws.String("k"), UploadId: up.UploadId, IfMatch: any,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: part.ETag}}}}
	_, err = c.CompleteMultipartUpload(ctx, complete)
	itest.WantErr(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	itest.WantNoObject(t, c, "condany", "k")

	// Once the key exists, each of them succeeds.
	itest.Put(t, c, "condany", "k", []byte("v0"))
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("k"), Body: strings.NewReader("v1"), IfMatch: any}); err != nil {
		t.Fatalf("PutObject If-Match * over an existing key: %v", err)
	}
	itest.WantObject(t, c, "condany", "k", []byte("v1"))
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("k"), CopySource: aws.String("condany/src"), IfMatch: any}); err != nil {
		t.Fatalf("CopyObject If-Match * over an existing key: %v", err)
	}
	itest.WantObject(t, c, "condany", "k", []byte("source"))
	if _, err := c.CompleteMultipartUpload(ctx, complete); err != nil {
		t.Fatalf("CompleteMultipartUpload If-Match * over an existing key (the upload survived the 412): %v", err)
	}
	if got, _ := itest.Get(t, c, "condany", "k"); string(got) != "mp" {
		t.Errorf("after If-Match * complete: %q, want \"mp\"", got)
	}
	itest.WantNoStrayFiles(t, srv, c)
}

// TestAWSConditionalDeletes: DeleteObject honours x-amz-if-match-size and
// x-amz-if-match-last-modified-time (alone, together and with If-Match),
// and DeleteObjects each object's ETag, Size and LastModifiedTime, as the
// S3 API reference documents them: a mismatch is 412 PreconditionFailed
// (a per-key error) and deletes nothing; a missing key passes size and
// time (204); malformed values are 400.
func TestAWSConditionalDeletes(t *testing.T) {
	srv, c := itest.StartBucket(t, "conddel")
	ctx := context.Background()
	b := aws.String("conddel")
	body := []byte("twelve bytes")
	itest.Put(t, c, "conddel", "k", body)
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: b, Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	mtime := aws.ToTime(head.LastModified)
	for name, in := range map[string]*s3.DeleteObjectInput{
		"size 11":                {IfMatchSize: aws.Int64(11)},
		"size 0":                 {IfMatchSize: aws.Int64(0)},
		"time a second later":    {IfMatchLastModifiedTime: aws.Time(mtime.Add(time.Second))},
		"time a day earlier":     {IfMatchLastModifiedTime: aws.Time(mtime.Add(-24 * time.Hour))},
		"right size, wrong time": {IfMatchSize: aws.Int64(12), IfMatchLastModifiedTime: aws.Time(mtime.Add(time.Hour))},
		"right size, wrong ETag": {IfMatchSize: aws.Int64(12), IfMatch: aws.String(itest.ETag([]byte("other")))},
	} {
		in.Bucket, in.Key = b, aws.String("k")
		_, err := c.DeleteObject(ctx, in)
		itest.WantErr(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
		if t.Failed() {
			t.Fatalf("case %s", name)
		}
	}
	itest.WantObject(t, c, "conddel", "k", body)
	out, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: b, Key: aws.String("k"),
		IfMatchSize: aws.Int64(12), IfMatchLastModifiedTime: aws.Time(mtime), IfMatch: aws.String(itest.ETag(body))})
	if err != nil || itest.Status(out.ResultMetadata) != http.StatusNoContent {
		t.Fatalf("DeleteObject with every condition right: %v", err)
	}
	itest.WantNoObject(t, c, "conddel", "k")
	for _, in := range []*s3.DeleteObjectInput{{IfMatchSize: aws.Int64(12)}, {IfMatchLastModifiedTime: aws.Time(mtime)}} {
		in.Bucket, in.Key = b, aws.String("k")
		if out, err := c.DeleteObject(ctx, in); err != nil || itest.Status(out.ResultMetadata) != http.StatusNoContent {
			t.Errorf("DeleteObject of a missing key with a size or time condition: %v", err)
		}
	}
	// If-Match: * deletes an existing object; on a missing key it fails.
	itest.Put(t, c, "conddel", "any", body)
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: b, Key: aws.String("any"), IfMatch: aws.String("*")}); err != nil {
		t.Fatalf("DeleteObject If-Match *: %v", err)
	}
	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: b, Key: aws.String("any"), IfMatch: aws.String("*")})
	itest.WantErr(t, err, http.StatusPreconditionFailed, "PreconditionFailed")

	// Malformed header values: 400 InvalidArgument, nothing deleted.
	itest.Put(t, c, "conddel", "k", body)
	for _, h := range [][2]string{
		{"X-Amz-If-Match-Size", "twelve"}, {"X-Amz-If-Match-Size", "-1"}, {"X-Amz-If-Match-Size", "1.5"},
		{"X-Amz-If-Match-Last-Modified-Time", "yesterday"},
	} {
		req := itest.RawRequest(t, srv, http.MethodDelete, "/conddel/k", nil)
		req.Header.Set(h[0], h[1])
		itest.Sign(t, req, nil, itest.SignOpts{})
		resp, rb := itest.Do(t, req)
		itest.WantRawErr(t, resp, rb, http.StatusBadRequest, "InvalidArgument")
	}
	itest.WantObject(t, c, "conddel", "k", body)

	// DeleteObjects: per-object conditions, from a listing's values.
	for _, k := range []string{"a", "b", "c", "d"} {
		itest.Put(t, c, "conddel", k, body)
	}
	list, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: b})
	if err != nil {
		t.Fatal(err)
	}
	lm := map[string]time.Time{}
	for _, o := range list.Contents {
		lm[aws.ToString(o.Key)] = aws.ToTime(o.LastModified)
	}
	res, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: b, Delete: &types.Delete{Objects: []types.ObjectIdentifier{
		{Key: aws.String("a"), Size: aws.Int64(12), LastModifiedTime: aws.Time(lm["a"]), ETag: aws.String(itest.ETag(body))},
		{Key: aws.String("b"), Size: aws.Int64(13)},
		{Key: aws.String("c"), LastModifiedTime: aws.Time(lm["c"].Add(-time.Minute))},
		{Key: aws.String("d"), ETag: aws.String("*")},
		{Key: aws.String("gone"), Size: aws.Int64(1)},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	var deleted, failed []string
	for _, d := range res.Deleted {
		deleted = append(deleted, aws.ToString(d.Key))
	}
	for _, e := range res.Errors {
		failed = append(failed, aws.ToString(e.Key)+":"+aws.ToString(e.Code))
	}
	if strings.Join(deleted, " ") != "a d gone" || strings.Join(failed, " ") != "b:PreconditionFailed c:PreconditionFailed" {
		t.Errorf("DeleteObjects: deleted %q, errors %q", deleted, failed)
	}
	itest.WantNoObject(t, c, "conddel", "a")
	itest.WantObject(t, c, "conddel", "b", body)
	itest.WantObject(t, c, "conddel", "c", body)
	itest.WantNoObject(t, c, "conddel", "d")

	// A malformed Size or LastModifiedTime refuses the whole request.
	for _, obj := range []string{"<Size>twelve</Size>", "<Size>-1</Size>", "<LastModifiedTime>yesterday</LastModifiedTime>"} {
		x := []byte("<Delete><Object><Key>k</Key></Object><Object><Key>b</Key>" + obj + "</Object></Delete>")
		req := itest.RawRequest(t, srv, http.MethodPost, "/conddel?delete", x)
		itest.Sign(t, req, x, itest.SignOpts{})
		resp, rb := itest.Do(t, req)
		itest.WantRawErr(t, resp, rb, http.StatusBadRequest, "MalformedXML")
	}
	itest.WantObject(t, c, "conddel", "k", body)
	itest.WantObject(t, c, "conddel", "b", body)
}
