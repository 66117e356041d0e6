package integration

// Object keys a file-system-backed store could alias or refuse, key
// length limits and raw paths, through aws-sdk-go-v2, minio-go and raw HTTP.

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/minio/minio-go/v7"

	"github.com/jogstore/jog/test/integration/itest"
)

// awsOddKeys are keys a file-system-backed store could alias or refuse:
// each must stay a distinct object.
func awsOddKeys() []string {
	return []string{
		"a//b", "a/b", "a/b/", "a", "../x", "x", "./x", "a/./b", "a/../b", "trailing/..", "..", "...",
		"dir/", "dir/x", "dir//", ".tmp", ".", "a b", "a+b", "a%2Fb", "a%b", "%", "%00", "a?b", "a#b", "a;b", "a&b=c",
		"日本語/ファイル", "CON", "nul.txt", "  spaces  ", "tab\tkey", "back\\slash", "~", "*", "emoji 😀",
		strings.Repeat("k", 1024), strings.Repeat("日", 341) + "a", "./", "/leading", "//double-leading",
		"\u00e9", "e\u0301", "CaseKey", "casekey", "CASEKEY", "sp", "sp ", " sp", "line\nbreak", "cr\rkey",
		"nul\x00byte", "nul", "a_b", "a%c", "a\\b",
	}
}

func TestAWSOddKeysNeverAlias(t *testing.T) {
	_, c := itest.StartBucket(t, "odd")
	ctx := context.Background()
	keys := awsOddKeys()
	for _, k := range keys {
		if len(k) > 1024 {
			t.Fatalf("test key of %d bytes", len(k))
		}
		itest.Put(t, c, "odd", k, []byte("content of "+k))
	}
	for _, k := range keys {
		itest.WantObject(t, c, "odd", k, []byte("content of "+k))
		h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("odd"), Key: aws.String(k)})
		if err != nil {
			t.Fatalf("HEAD %q: %v", k, err)
		}
		if aws.ToInt64(h.ContentLength) != int64(len("content of "+k)) {
			t.Errorf("HEAD %q: length %d", k, aws.ToInt64(h.ContentLength))
		}
	}

	// The listing holds exactly these keys, once each, in byte order.
	var listed []string
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String("odd"), MaxKeys: aws.Int32(10), EncodingType: types.EncodingTypeUrl})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range out.Contents {
			k, err := url.QueryUnescape(aws.ToString(o.Key))
			if err != nil {
				t.Fatal(err)
			}
			listed = append(listed, k)
		}
	}
	if want := slices.Sorted(slices.Values(keys)); !slices.Equal(listed, want) {
		t.Fatalf("listing\n got %q\nwant %q", listed, want)
	}

	// Deleting one never deletes a look-alike.
	for _, k := range []string{"a/b", "../x", "dir/", "/leading", "a%2Fb"} {
		if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("odd"), Key: aws.String(k)}); err != nil {
			t.Fatal(err)
		}
		itest.WantNoObject(t, c, "odd", k)
	}
	for _, k := range []string{"a//b", "a/b/", "x", "./x", "dir/x", "dir//", "//double-leading", "a%b", "a"} {
		itest.WantObject(t, c, "odd", k, []byte("content of "+k))
	}
}

func TestAWSKeyLength(t *testing.T) {
	_, c := itest.StartBucket(t, "keylen")
	ctx := context.Background()
	for _, k := range []string{strings.Repeat("k", 1025), strings.Repeat("日", 342), strings.Repeat("x", 2000)} {
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("keylen"), Key: aws.String(k), Body: strings.NewReader("x")})
		itest.WantErr(t, err, http.StatusBadRequest, "KeyTooLongError")
		_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("keylen"), Key: aws.String(k), CopySource: aws.String("keylen/src")})
		if code, _ := itest.ErrInfo(err); code != "KeyTooLongError" && code != "NoSuchKey" {
			t.Errorf("copy to a %d-byte key: %v", len(k), err)
		}
	}
	itest.Put(t, c, "keylen", "src", []byte("s"))
	_, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("keylen"), Key: aws.String(strings.Repeat("k", 1025)), CopySource: aws.String("keylen/src")})
	itest.WantErr(t, err, http.StatusBadRequest, "KeyTooLongError")
	out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("keylen")})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Contents) != 1 {
		t.Fatalf("refused long keys left %d objects", len(out.Contents))
	}
}

// Raw path-style requests: "/bucket//leading" is the key "/leading", and
// "/bucket/./" the key "./"; nothing cleans the path.
func TestAWSKeysRawPaths(t *testing.T) {
	srv, c := itest.StartBucket(t, "raw")
	itest.Put(t, c, "raw", "/leading", []byte("slash first"))
	itest.Put(t, c, "raw", "leading", []byte("no slash"))
	itest.Put(t, c, "raw", "./", []byte("dot slash"))
	itest.Put(t, c, "raw", "a/../b", []byte("dotdot"))
	itest.Put(t, c, "raw", "b", []byte("plain b"))
	for path, want := range map[string]string{
		"/raw//leading": "slash first",
		"/raw/leading":  "no slash",
		"/raw/./":       "dot slash",
		"/raw/a/../b":   "dotdot",
		"/raw/b":        "plain b",
	} {
		req := itest.RawRequest(t, srv, http.MethodGet, path, nil)
		itest.Sign(t, req, nil, itest.SignOpts{})
		resp, body := itest.Do(t, req)
		if resp.StatusCode != http.StatusOK || string(body) != want {
			t.Errorf("GET %s: %d %q, want %q", path, resp.StatusCode, body, want)
		}
	}
	// A raw PUT to "/raw//x" creates "/x", not "x".
	req := itest.RawRequest(t, srv, http.MethodPut, "/raw//x", []byte("made raw"))
	itest.Sign(t, req, []byte("made raw"), itest.SignOpts{})
	if resp, body := itest.Do(t, req); resp.StatusCode != http.StatusOK {
		t.Fatalf("raw PUT: %d %s", resp.StatusCode, body)
	}
	itest.WantObject(t, c, "raw", "/x", []byte("made raw"))
	itest.WantNoObject(t, c, "raw", "x")
}

func TestMinioOddKeys(t *testing.T) {
	_, c, bucket := itest.StartMinio(t)
	ctx := context.Background()
	keys := []string{
		"a//b", "a/b", "../x", "./x", "x/..", "dir/", "dir/x", "dir//", "/leading-slash",
		"ünïcødé/日本語/🙂", "space in key", " leading and trailing ", "plus+sign", "percent%20encoded",
		"query?x=1&y=2", "hash#frag", "semi;colon", "quote\"s'", "back\\slash", "tilde~star*",
		"tab\tnewline\n", "brackets[]{}()<>", "comma,equals=", "at@dollar$", "pipe|caret^`",
		strings.Repeat("k", 1024),
		strings.Repeat("é", 512), // 1024 bytes of UTF-8
	}
	for i, k := range keys {
		itest.MinioPut(t, c, bucket, k, []byte("content of key #"+string(rune('A'+i))+": "+k), minio.PutObjectOptions{})
	}
	for i, k := range keys {
		want := []byte("content of key #" + string(rune('A'+i)) + ": " + k)
		got, gi := itest.MinioGet(t, c, bucket, k, minio.GetObjectOptions{})
		if !bytes.Equal(got, want) {
			t.Errorf("key %q read back %q", k, got)
		}
		if gi.Key != k {
			t.Errorf("key %q: ObjectInfo.Key %q", k, gi.Key)
		}
	}
	var listed []string
	for o := range c.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		listed = append(listed, o.Key)
	}
	if len(listed) != len(keys) {
		t.Errorf("listed %d keys, want %d", len(listed), len(keys))
	}
	seen := map[string]bool{}
	for _, k := range listed {
		seen[k] = true
	}
	for _, k := range keys {
		if !seen[k] {
			t.Errorf("key %q missing from the listing", k)
		}
	}

	// minio-go refuses a 1025-byte key itself; the server's refusal of one
	// is TestAWSKeyLength's.
	if _, err := c.PutObject(ctx, bucket, strings.Repeat("k", 1025), bytes.NewReader(nil), 0, itest.MinioPutOpts()); err == nil {
		t.Error("minio-go accepted a 1025-byte key")
	}

	for _, k := range keys {
		if err := c.RemoveObject(ctx, bucket, k, minio.RemoveObjectOptions{}); err != nil {
			t.Errorf("RemoveObject %q: %v", k, err)
		}
	}
	if err := c.RemoveBucket(ctx, bucket); err != nil {
		t.Errorf("bucket not empty after removing every odd key: %v", err)
	}
}
