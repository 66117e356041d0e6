package integration

// Tagging: Put/Get/DeleteBucketTagging through aws-sdk-go-v2, S3's limits
// on tag sets, and refusals that leave the stored tags as they were.

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/test/integration/itest"
)

func tagSet(kv ...string) []types.Tag {
	var out []types.Tag
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, types.Tag{Key: aws.String(kv[i]), Value: aws.String(kv[i+1])})
	}
	return out
}

func tagPairs(tags []types.Tag) []string {
	out := []string{}
	for _, t := range tags {
		out = append(out, aws.ToString(t.Key)+"="+aws.ToString(t.Value))
	}
	return out
}

func manyTags(n int) []types.Tag {
	var kv []string
	for i := range n {
		kv = append(kv, fmt.Sprint("k", i), "v")
	}
	return tagSet(kv...)
}

func TestBucketTagging(t *testing.T) {
	_, c := itest.StartBucket(t, "tags")
	ctx := context.Background()
	b := aws.String("tags")
	get := func() []string {
		t.Helper()
		out, err := c.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: b})
		if err != nil {
			t.Fatalf("GetBucketTagging: %v", err)
		}
		return tagPairs(out.TagSet)
	}

	_, err := c.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: b})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchTagSet")

	want := tagSet("team", "data eng", "cost-centre", "4/2:@+=._", "é", "")
	if _, err := c.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: b, Tagging: &types.Tagging{TagSet: want}}); err != nil {
		t.Fatalf("PutBucketTagging: %v", err)
	}
	if got := get(); !reflect.DeepEqual(got, tagPairs(want)) {
		t.Fatalf("GetBucketTagging = %v, want %v", got, tagPairs(want))
	}

	// Refusals leave the tags as they were.
	for _, tc := range []struct {
		name string
		tags []types.Tag
		code string
	}{
		{"51 tags", manyTags(51), "BadRequest"},
		{"duplicate key", tagSet("a", "1", "a", "2"), "InvalidTag"},
		{"aws: key", tagSet("AWS:k", "v"), "InvalidTag"},
		{"long key", tagSet(strings.Repeat("k", 129), "v"), "InvalidTag"},
		{"long value", tagSet("k", strings.Repeat("v", 257)), "InvalidTag"},
		{"empty key", tagSet("", "v"), "InvalidTag"},
		{"bad character", tagSet("k", "a&b"), "InvalidTag"},
	} {
		_, err := c.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: b, Tagging: &types.Tagging{TagSet: tc.tags}})
		itest.WantErr(t, err, http.StatusBadRequest, tc.code)
		if got := get(); !reflect.DeepEqual(got, tagPairs(want)) {
			t.Fatalf("%s: tags became %v", tc.name, got)
		}
	}

	// 50 tags, and limits counted in Unicode characters.
	fifty := manyTags(50)
	fifty[0] = types.Tag{Key: aws.String(strings.Repeat("é", 128)), Value: aws.String(strings.Repeat("ü", 256))}
	if _, err := c.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: b, Tagging: &types.Tagging{TagSet: fifty}}); err != nil {
		t.Fatalf("PutBucketTagging of 50: %v", err)
	}
	if got := get(); !reflect.DeepEqual(got, tagPairs(fifty)) {
		t.Fatalf("GetBucketTagging = %d tags, want the 50 put", len(got))
	}

	if _, err := c.DeleteBucketTagging(ctx, &s3.DeleteBucketTaggingInput{Bucket: b}); err != nil {
		t.Fatalf("DeleteBucketTagging: %v", err)
	}
	_, err = c.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: b})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchTagSet")
	if _, err := c.DeleteBucketTagging(ctx, &s3.DeleteBucketTaggingInput{Bucket: b}); err != nil {
		t.Fatalf("DeleteBucketTagging without tags: %v", err)
	}

	// An empty TagSet is a tag set: Get answers it empty.
	if _, err := c.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: b, Tagging: &types.Tagging{TagSet: []types.Tag{}}}); err != nil {
		t.Fatalf("PutBucketTagging of none: %v", err)
	}
	if got := get(); len(got) != 0 {
		t.Fatalf("GetBucketTagging = %v, want none", got)
	}

	nope := aws.String("nope")
	_, err = c.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: nope})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	_, err = c.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: nope, Tagging: &types.Tagging{TagSet: want}})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	_, err = c.DeleteBucketTagging(ctx, &s3.DeleteBucketTaggingInput{Bucket: nope})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
}

// TestTaggingMalformed sends documents no SDK builds: each is refused and
// leaves the tags as they were.
func TestTaggingMalformed(t *testing.T) {
	srv, c := itest.StartBucket(t, "tagx")
	ctx := context.Background()
	itest.Put(t, c, "tagx", "k", []byte("k"), func(in *s3.PutObjectInput) { in.Tagging = aws.String("a=1") })
	if _, err := c.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: aws.String("tagx"),
		Tagging: &types.Tagging{TagSet: tagSet("b", "2")}}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/tagx?tagging", "/tagx/k?tagging"} {
		for _, tc := range []struct{ name, body, code string }{
			{"not XML", "<Tagging><TagSet>", "MalformedXML"},
			{"no TagSet", "<Tagging></Tagging>", "MalformedXML"},
			{"no Value", "<Tagging><TagSet><Tag><Key>a</Key></Tag></TagSet></Tagging>", "MalformedXML"},
			{"other document", "<CORSConfiguration/>", "MalformedXML"},
			{"empty key", "<Tagging><TagSet><Tag><Key></Key><Value>v</Value></Tag></TagSet></Tagging>", "InvalidTag"},
		} {
			req := itest.RawRequest(t, srv, http.MethodPut, path, []byte(tc.body))
			itest.Sign(t, req, []byte(tc.body), itest.SignOpts{})
			resp, body := itest.Do(t, req)
			itest.WantRawErr(t, resp, body, http.StatusBadRequest, tc.code)
		}
	}
	wantObjectTags(t, c, "tagx", "k", "", "a=1")
	out, err := c.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: aws.String("tagx")})
	if err != nil || !reflect.DeepEqual(tagPairs(out.TagSet), []string{"b=2"}) {
		t.Fatalf("bucket tags after refusals: %v, %v", out, err)
	}
}
