package integration

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/test/integration/itest"
)

// Listings with encoding-type=url, read with aws-sdk-go-v2, which (unlike
// botocore) hands the encoded names over as they came: the tests decode
// them as an SDK user must, with url.QueryUnescape.

// awsEncKeys need every kind of encoding S3 does: space, "+", "%", query
// and XML metacharacters, "~" and "*", multi-byte UTF-8, control
// characters XML 1.0 cannot carry, and "/" (which stays).
var awsEncKeys = []string{
	"plain", "a b", "a+b", "a%20b", "100%", "amp&lt;", "q?x=1&y=2", "hash#frag", "tilde~", "star*", "paren(1)",
	"日本語/ファイル.txt", "日本語/絵文字 😀", "ctl\x01char", "tab\there", "nl\nline", "cr\rline", "sp ace/in dir", "sp ace/z",
}

// awsDecode undoes encoding-type=url.
func awsDecode(t *testing.T, what, s string) string {
	t.Helper()
	d, err := url.QueryUnescape(s)
	if err != nil {
		t.Fatalf("%s %q is not URL-encoded: %v", what, s, err)
	}
	return d
}

// awsDecodedItems decodes a page's keys and common prefixes, merged in
// byte order.
func awsDecodedItems(t *testing.T, contents []types.Object, prefixes []types.CommonPrefix) []string {
	t.Helper()
	var items []string
	for _, o := range contents {
		items = append(items, awsDecode(t, "Key", aws.ToString(o.Key)))
	}
	for _, p := range prefixes {
		items = append(items, awsDecode(t, "CommonPrefix", aws.ToString(p.Prefix)))
	}
	slices.Sort(items)
	return items
}

func TestAWSListEncodingURLV2(t *testing.T) {
	_, c := itest.StartBucket(t, "encoded")
	itest.PutMany(t, c, "encoded", awsEncKeys, 4, false)
	ctx := context.Background()
	sorted := slices.Sorted(slices.Values(awsEncKeys))

	out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("encoded"), EncodingType: types.EncodingTypeUrl})
	if err != nil {
		t.Fatal(err)
	}
	if out.EncodingType != types.EncodingTypeUrl {
		t.Errorf("EncodingType echoed %q", out.EncodingType)
	}
	// The bytes on the wire, as S3 encodes them.
	raw := map[string]string{}
	var got []string
	for _, o := range out.Contents {
		k := awsDecode(t, "Key", aws.ToString(o.Key))
		raw[k] = aws.ToString(o.Key)
		got = append(got, k)
	}
	if !slices.Equal(got, sorted) {
		t.Fatalf("decoded keys\n got %q\nwant %q", got, sorted)
	}
	for k, want := range map[string]string{
		"plain": "plain", "a b": "a+b", "a+b": "a%2Bb", "a%20b": "a%2520b", "tilde~": "tilde%7E", "star*": "star*",
		"paren(1)": "paren%281%29", "q?x=1&y=2": "q%3Fx%3D1%26y%3D2", "日本語/ファイル.txt": "%E6%97%A5%E6%9C%AC%E8%AA%9E/%E3%83%95%E3%82%A1%E3%82%A4%E3%83%AB.txt",
		"ctl\x01char": "ctl%01char", "nl\nline": "nl%0Aline", "sp ace/in dir": "sp+ace/in+dir",
	} {
		if raw[k] != want {
			t.Errorf("key %q listed as %q, want %q", k, raw[k], want)
		}
	}
	// Every listed key, decoded, names its object.
	for _, k := range got {
		itest.WantObject(t, c, "encoded", k, []byte(k))
	}

	// Prefix, StartAfter and Delimiter are encoded too.
	out, err = c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("encoded"), EncodingType: types.EncodingTypeUrl,
		Prefix: aws.String("日本語/"), StartAfter: aws.String("日本語/ファ"), Delimiter: aws.String(" ")})
	if err != nil {
		t.Fatal(err)
	}
	if p := aws.ToString(out.Prefix); p != "%E6%97%A5%E6%9C%AC%E8%AA%9E/" {
		t.Errorf("Prefix %q", p)
	}
	if s := aws.ToString(out.StartAfter); awsDecode(t, "StartAfter", s) != "日本語/ファ" || s == "日本語/ファ" {
		t.Errorf("StartAfter %q", s)
	}
	if d := aws.ToString(out.Delimiter); d != "+" {
		t.Errorf("Delimiter %q, want +", d)
	}
	var cps []string
	for _, p := range out.CommonPrefixes {
		cps = append(cps, awsDecode(t, "CommonPrefix", aws.ToString(p.Prefix)))
	}
	if len(out.Contents) != 1 || awsDecode(t, "Key", aws.ToString(out.Contents[0].Key)) != "日本語/ファイル.txt" ||
		!slices.Equal(cps, []string{"日本語/絵文字 "}) {
		t.Errorf("prefix 日本語/ after 日本語/ファ by space: keys %v prefixes %q", out.Contents, cps)
	}

	// Paging: decoded names of every page put together are the listing,
	// with and without a delimiter.
	for _, delim := range []string{"", "/", " "} {
		want := awsExpectListing(awsEncKeys, "", delim, "")
		in := &s3.ListObjectsV2Input{Bucket: aws.String("encoded"), EncodingType: types.EncodingTypeUrl, MaxKeys: aws.Int32(3), Delimiter: aws.String(delim)}
		var all []string
		for page := 0; ; page++ {
			if page > len(want) {
				t.Fatalf("delimiter %q: paging does not end", delim)
			}
			out, err := c.ListObjectsV2(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			items := awsDecodedItems(t, out.Contents, out.CommonPrefixes)
			all = append(all, items...)
			if !aws.ToBool(out.IsTruncated) {
				break
			}
			in.ContinuationToken = out.NextContinuationToken
		}
		if !slices.Equal(all, want) {
			t.Errorf("delimiter %q, pages of 3:\n got %q\nwant %q", delim, all, want)
		}
	}

	// Without encoding, XML-safe keys come back verbatim.
	out, err = c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("encoded"), Prefix: aws.String("a")})
	if err != nil {
		t.Fatal(err)
	}
	var plain []string
	for _, o := range out.Contents {
		plain = append(plain, aws.ToString(o.Key))
	}
	if want := []string{"a b", "a%20b", "a+b", "amp&lt;"}; !slices.Equal(plain, want) {
		t.Errorf("unencoded listing %q, want %q", plain, want)
	}

	// Any other encoding type is refused.
	_, err = c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("encoded"), EncodingType: "base64"})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
}

// ListObjects (V1) encodes Prefix, Delimiter, Marker and NextMarker as well,
// and a client pages on with the decoded NextMarker.
func TestAWSListEncodingURLV1(t *testing.T) {
	_, c := itest.StartBucket(t, "encv1")
	itest.PutMany(t, c, "encv1", awsEncKeys, 4, false)
	ctx := context.Background()

	out, err := c.ListObjects(ctx, &s3.ListObjectsInput{Bucket: aws.String("encv1"), EncodingType: types.EncodingTypeUrl,
		Prefix: aws.String("sp ace/"), Marker: aws.String("sp ace/in dir"), Delimiter: aws.String("/")})
	if err != nil {
		t.Fatal(err)
	}
	if p, m, d := aws.ToString(out.Prefix), aws.ToString(out.Marker), aws.ToString(out.Delimiter); p != "sp+ace/" || m != "sp+ace/in+dir" || d != "/" {
		t.Errorf("echoed Prefix %q Marker %q Delimiter %q, want sp+ace/ sp+ace/in+dir /", p, m, d)
	}
	if len(out.Contents) != 1 || aws.ToString(out.Contents[0].Key) != "sp+ace/z" {
		t.Errorf("after sp ace/in dir: %v", out.Contents)
	}

	for _, delim := range []string{"", "/"} {
		want := awsExpectListing(awsEncKeys, "", delim, "")
		marker := ""
		var all []string
		for page := 0; ; page++ {
			if page > len(want) {
				t.Fatalf("delimiter %q: paging does not end", delim)
			}
			out, err := c.ListObjects(ctx, &s3.ListObjectsInput{Bucket: aws.String("encv1"), EncodingType: types.EncodingTypeUrl,
				MaxKeys: aws.Int32(2), Marker: aws.String(marker), Delimiter: aws.String(delim)})
			if err != nil {
				t.Fatal(err)
			}
			if m := awsDecode(t, "Marker", aws.ToString(out.Marker)); m != marker {
				t.Fatalf("Marker echoed %q, sent %q", m, marker)
			}
			items := awsDecodedItems(t, out.Contents, out.CommonPrefixes)
			all = append(all, items...)
			if !aws.ToBool(out.IsTruncated) {
				break
			}
			next := awsDecode(t, "NextMarker", aws.ToString(out.NextMarker))
			if next != items[len(items)-1] {
				t.Fatalf("NextMarker %q decodes to %q, want the last item %q", aws.ToString(out.NextMarker), next, items[len(items)-1])
			}
			marker = next
		}
		if !slices.Equal(all, want) {
			t.Errorf("V1 delimiter %q, pages of 2:\n got %q\nwant %q", delim, all, want)
		}
	}
}

// ListMultipartUploads encodes Prefix, Delimiter, KeyMarker, NextKeyMarker,
// the upload keys and CommonPrefixes.
func TestAWSListEncodingURLUploads(t *testing.T) {
	_, c := itest.StartBucket(t, "encup")
	ctx := context.Background()
	keys := []string{"up load/a b", "up load/c+d", "up load/日本", "up load/sub dir/x", "other/~"}
	ids := map[string]string{}
	for _, k := range keys {
		u, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("encup"), Key: aws.String(k)})
		if err != nil {
			t.Fatal(err)
		}
		ids[k] = aws.ToString(u.UploadId)
	}

	out, err := c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String("encup"), EncodingType: types.EncodingTypeUrl,
		Prefix: aws.String("up load/"), Delimiter: aws.String("/"), KeyMarker: aws.String("up load/a b")})
	if err != nil {
		t.Fatal(err)
	}
	if p, d, m := aws.ToString(out.Prefix), aws.ToString(out.Delimiter), aws.ToString(out.KeyMarker); p != "up+load/" || d != "/" || m != "up+load/a+b" {
		t.Errorf("echoed Prefix %q Delimiter %q KeyMarker %q, want up+load/ / up+load/a+b", p, d, m)
	}
	var got, cps []string
	for _, u := range out.Uploads {
		got = append(got, aws.ToString(u.Key))
	}
	for _, p := range out.CommonPrefixes {
		cps = append(cps, aws.ToString(p.Prefix))
	}
	if want := []string{"up+load/c%2Bd", "up+load/%E6%97%A5%E6%9C%AC"}; !slices.Equal(got, want) || !slices.Equal(cps, []string{"up+load/sub+dir/"}) {
		t.Errorf("uploads %q prefixes %q, want %q [up+load/sub+dir/]", got, cps, want)
	}

	// Paging one upload at a time on the decoded NextKeyMarker.
	var all []string
	marker, idMarker := "", ""
	for page := 0; page <= len(keys); page++ {
		out, err := c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String("encup"), EncodingType: types.EncodingTypeUrl,
			MaxUploads: aws.Int32(1), KeyMarker: aws.String(marker), UploadIdMarker: aws.String(idMarker)})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range out.Uploads {
			k := awsDecode(t, "Key", aws.ToString(u.Key))
			if ids[k] != aws.ToString(u.UploadId) {
				t.Errorf("upload of %q listed with ID %q, created as %q", k, aws.ToString(u.UploadId), ids[k])
			}
			all = append(all, k)
		}
		if !aws.ToBool(out.IsTruncated) {
			break
		}
		marker, idMarker = awsDecode(t, "NextKeyMarker", aws.ToString(out.NextKeyMarker)), aws.ToString(out.NextUploadIdMarker)
	}
	if want := slices.Sorted(slices.Values(keys)); !slices.Equal(all, want) {
		t.Errorf("uploads paged one by one: got %q, want %q", all, want)
	}
}
