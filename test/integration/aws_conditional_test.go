package integration

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// awsCond is one set of conditional headers for GET/HEAD.
type awsCond struct {
	ifMatch, ifNoneMatch               string
	ifModifiedSince, ifUnmodifiedSince time.Time
}

func TestAWSConditionalReads(t *testing.T) {
	_, c := awsStartBucket(t, "cond")
	ctx := context.Background()
	body := []byte("conditional body")
	awsMustPut(t, c, "cond", "k", body)
	h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("cond"), Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	etag, lm := aws.ToString(h.ETag), *h.LastModified
	if etag != awsETag(body) {
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
				awsWantErr(t, err, notModified, "NotModified")
				awsWantErr(t, herr, notModified, "NotModified")
				// A 304 still names the current ETag and Last-Modified.
				if e := awsErrHeader(err, "ETag"); e != etag {
					t.Errorf("304 ETag %q, want %s", e, etag)
				}
				if e := awsErrHeader(err, "Last-Modified"); e != lm.UTC().Format(http.TimeFormat) {
					t.Errorf("304 Last-Modified %q", e)
				}
				if e := awsErrHeader(err, "Content-Type"); e != "" {
					t.Errorf("304 carries Content-Type %q", e)
				}
			case failed:
				awsWantErr(t, err, failed, "PreconditionFailed")
				awsWantErr(t, herr, failed, "PreconditionFailed")
			}
		})
	}

	// Conditions on a missing key: the key's absence wins.
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("cond"), Key: aws.String("missing"), IfMatch: aws.String(etag)})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchKey")
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("cond"), Key: aws.String("missing"), IfNoneMatch: aws.String(etag)})
	awsWantErr(t, err, http.StatusNotFound, "NoSuchKey")

	// A failed condition with a range is still a failed condition.
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("cond"), Key: aws.String("k"), IfMatch: aws.String(wrong), Range: aws.String("bytes=0-1")})
	awsWantErr(t, err, failed, "PreconditionFailed")
	got, g := awsMustGet(t, c, "cond", "k", func(in *s3.GetObjectInput) { in.IfMatch = aws.String(etag); in.Range = aws.String("bytes=0-1") })
	if string(got) != "co" || awsStatus(g.ResultMetadata) != http.StatusPartialContent {
		t.Errorf("If-Match + Range: %d %q", awsStatus(g.ResultMetadata), got)
	}
}

func TestAWSConditionalWrites(t *testing.T) {
	srv, c := awsStartBucket(t, "condw")
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
	awsWantErr(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	awsWantObject(t, c, "condw", "once", []byte("first"))

	// After a delete the key can be created again.
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("condw"), Key: aws.String("once")}); err != nil {
		t.Fatal(err)
	}
	if err := put("once", "third", func(in *s3.PutObjectInput) { in.IfNoneMatch = aws.String("*") }); err != nil {
		t.Fatalf("create-only put after delete: %v", err)
	}
	awsWantObject(t, c, "condw", "once", []byte("third"))

	// If-Match: compare-and-swap on the ETag.
	first := awsMustPut(t, c, "condw", "cas", []byte("v1"))
	err = put("cas", "v2-wrong", func(in *s3.PutObjectInput) { in.IfMatch = aws.String(awsETag([]byte("something else"))) })
	awsWantErr(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	awsWantObject(t, c, "condw", "cas", []byte("v1"))
	if err := put("cas", "v2", func(in *s3.PutObjectInput) { in.IfMatch = first.ETag }); err != nil {
		t.Fatalf("If-Match with the current ETag: %v", err)
	}
	awsWantObject(t, c, "condw", "cas", []byte("v2"))
	// The old ETag no longer matches.
	err = put("cas", "v3", func(in *s3.PutObjectInput) { in.IfMatch = first.ETag })
	awsWantErr(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	awsWantObject(t, c, "condw", "cas", []byte("v2"))

	// If-Match on a key that does not exist: NoSuchKey, nothing created.
	err = put("absent", "x", func(in *s3.PutObjectInput) { in.IfMatch = first.ETag })
	awsWantErr(t, err, http.StatusNotFound, "NoSuchKey")
	awsWantNoObject(t, c, "condw", "absent")
	awsWantNoStrayFiles(t, srv, c)
}
