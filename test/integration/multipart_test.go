package integration

// Multipart uploads: aws-sdk-go-v2's transfer manager (parallel parts,
// checksums), the operations one by one (complete, errors, listing,
// UploadPartCopy), and minio-go's upload of an unknown size, which it
// sends as a multipart upload.

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	tmtypes "github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/minio/minio-go/v7"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestMultipartManagerRoundTrip uploads with the SDK's transfer manager
// (transfermanager: parallel parts, default checksums) and reads back with checksum
// validation on, whole and by part number.
func TestMultipartManagerRoundTrip(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithoutFsync())
	c := srv.AWSClient(t)
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("mpbucket")}); err != nil {
		t.Fatal(err)
	}
	data := itest.RandBytes(1, 23<<20+12345)
	for _, alg := range []types.ChecksumAlgorithm{"", types.ChecksumAlgorithmCrc32, types.ChecksumAlgorithmCrc32c, types.ChecksumAlgorithmSha256, types.ChecksumAlgorithmCrc64nvme} {
		t.Run(string(alg), func(t *testing.T) {
			key := "big/" + string(alg)
			up := transfermanager.New(c, func(o *transfermanager.Options) { o.PartSizeBytes = 5 << 20; o.Concurrency = 4 })
			out, err := up.UploadObject(ctx, &transfermanager.UploadObjectInput{Bucket: aws.String("mpbucket"), Key: aws.String(key),
				Body: bytes.NewReader(data), ChecksumAlgorithm: tmtypes.ChecksumAlgorithm(alg)})
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("-%d", 5); len(aws.ToString(out.ETag)) < 3 || aws.ToString(out.ETag)[len(aws.ToString(out.ETag))-3:len(aws.ToString(out.ETag))-1] != want {
				t.Errorf("etag %s: want a -5 multipart etag", aws.ToString(out.ETag))
			}
			got, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("mpbucket"), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled})
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(got.Body)
			got.Body.Close()
			if err != nil {
				t.Fatalf("read back: %v", err)
			}
			if !bytes.Equal(b, data) {
				t.Fatalf("read back %d bytes, differ from the %d uploaded", len(b), len(data))
			}
			for n := 1; n <= 5; n++ {
				p, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("mpbucket"), Key: aws.String(key), PartNumber: aws.Int32(int32(n))})
				if err != nil {
					t.Fatal(err)
				}
				pb, _ := io.ReadAll(p.Body)
				p.Body.Close()
				lo := (n - 1) * (5 << 20)
				hi := min(lo+(5<<20), len(data))
				if !bytes.Equal(pb, data[lo:hi]) || aws.ToInt32(p.PartsCount) != 5 {
					t.Fatalf("part %d: %d bytes, parts count %d", n, len(pb), aws.ToInt32(p.PartsCount))
				}
				// HEAD answers from the metadata alone, with the same part's
				// length and range.
				h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("mpbucket"), Key: aws.String(key), PartNumber: aws.Int32(int32(n))})
				if err != nil {
					t.Fatal(err)
				}
				if aws.ToInt64(h.ContentLength) != int64(hi-lo) || aws.ToInt32(h.PartsCount) != 5 ||
					aws.ToString(h.ContentRange) != fmt.Sprintf("bytes %d-%d/%d", lo, hi-1, len(data)) {
					t.Fatalf("HEAD part %d: length %d, parts count %d, range %q", n, aws.ToInt64(h.ContentLength), aws.ToInt32(h.PartsCount), aws.ToString(h.ContentRange))
				}
			}
			// A range across a part boundary.
			rg, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("mpbucket"), Key: aws.String(key), Range: aws.String("bytes=5242870-10485770")})
			if err != nil {
				t.Fatal(err)
			}
			rb, _ := io.ReadAll(rg.Body)
			rg.Body.Close()
			if !bytes.Equal(rb, data[5242870:10485771]) {
				t.Fatalf("cross-part range: got %d bytes", len(rb))
			}
			attrs, err := c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: aws.String("mpbucket"), Key: aws.String(key),
				ObjectAttributes: []types.ObjectAttributes{types.ObjectAttributesEtag, types.ObjectAttributesChecksum, types.ObjectAttributesObjectParts, types.ObjectAttributesObjectSize},
				MaxParts:         aws.Int32(2)})
			if err != nil {
				t.Fatal(err)
			}
			if aws.ToInt64(attrs.ObjectSize) != int64(len(data)) || attrs.ObjectParts == nil || aws.ToInt32(attrs.ObjectParts.TotalPartsCount) != 5 || !aws.ToBool(attrs.ObjectParts.IsTruncated) {
				t.Fatalf("attributes: %+v %+v", attrs, attrs.ObjectParts)
			}
		})
	}
	sum := md5.Sum(data)
	_ = hex.EncodeToString(sum[:])
}

// blobFiles lists the committed blob files under a data dir.
func blobFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(filepath.Join(dir, "blobs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, d.Name())
		}
		return nil
	})
	slices.Sort(out)
	return out
}

func mpSetup(t *testing.T) (*testutil.Server, *s3.Client, context.Context) {
	// Inline off: the tests count blob files.
	srv := testutil.StartServer(t, testutil.WithoutFsync(), testutil.WithFilesOnly())
	c := srv.AWSClient(t)
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("mpops")}); err != nil {
		t.Fatal(err)
	}
	return srv, c, ctx
}

func mpCreate(t *testing.T, ctx context.Context, c *s3.Client, key string) string {
	t.Helper()
	out, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("mpops"), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.UploadId)
}

func mpPart(t *testing.T, ctx context.Context, c *s3.Client, key, id string, n int32, data []byte) types.CompletedPart {
	t.Helper()
	out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("mpops"), Key: aws.String(key), UploadId: aws.String(id),
		PartNumber: aws.Int32(n), Body: bytes.NewReader(data)})
	if err != nil {
		t.Fatalf("UploadPart %d: %v", n, err)
	}
	return types.CompletedPart{PartNumber: aws.Int32(n), ETag: out.ETag, ChecksumCRC32: out.ChecksumCRC32}
}

func mpComplete(ctx context.Context, c *s3.Client, key, id string, parts ...types.CompletedPart) (*s3.CompleteMultipartUploadOutput, error) {
	return c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("mpops"), Key: aws.String(key),
		UploadId: aws.String(id), MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
}

// TestMultipartCompleteCopiesNothing checks that completion turns the parts'
// blobs into the object's data: the set of blob files is the same before and
// after (minus the part left out), and the object reads back exactly.
func TestMultipartCompleteCopiesNothing(t *testing.T) {
	srv, c, ctx := mpSetup(t)
	id := mpCreate(t, ctx, c, "big")
	p1, p2, p3 := itest.RandBytes(1, 5<<20), itest.RandBytes(2, 5<<20), itest.RandBytes(3, 777)
	c1 := mpPart(t, ctx, c, "big", id, 1, p1)
	mpPart(t, ctx, c, "big", id, 2, p2) // uploaded but left out
	c3 := mpPart(t, ctx, c, "big", id, 3, p3)
	before := blobFiles(t, srv.DataDir)
	if len(before) != 3 {
		t.Fatalf("%d blob files for 3 parts", len(before))
	}
	out, err := mpComplete(ctx, c, "big", id, c1, c3)
	if err != nil {
		t.Fatal(err)
	}
	after := blobFiles(t, srv.DataDir)
	if len(after) != 2 || !slices.Contains(before, after[0]) || !slices.Contains(before, after[1]) {
		t.Fatalf("blob files before %v, after %v: completion must reuse the part blobs and free the unused one", before, after)
	}
	h := md5.New()
	for _, p := range [][]byte{p1, p3} {
		s := md5.Sum(p)
		h.Write(s[:])
	}
	if want := fmt.Sprintf(`"%s-2"`, hex.EncodeToString(h.Sum(nil))); aws.ToString(out.ETag) != want {
		t.Errorf("ETag %s, want %s", aws.ToString(out.ETag), want)
	}
	got, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("mpops"), Key: aws.String("big")})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(got.Body)
	got.Body.Close()
	if !bytes.Equal(b, append(append([]byte{}, p1...), p3...)) {
		t.Fatalf("object is %d bytes, not part 1 + part 3", len(b))
	}
	// Overwriting the object frees its parts' blobs.
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("mpops"), Key: aws.String("big"), Body: strings.NewReader("small")}); err != nil {
		t.Fatal(err)
	}
	if n := len(blobFiles(t, srv.DataDir)); n != 1 {
		t.Errorf("%d blob files after overwriting the multipart object, want 1", n)
	}
}

// TestMultipartErrors covers the completion errors S3 defines.
func TestMultipartErrors(t *testing.T) {
	_, c, ctx := mpSetup(t)
	id := mpCreate(t, ctx, c, "k")
	small := mpPart(t, ctx, c, "k", id, 1, []byte("tiny"))
	big := mpPart(t, ctx, c, "k", id, 2, itest.RandBytes(4, 5<<20))
	last := mpPart(t, ctx, c, "k", id, 5, []byte("end"))
	check := func(what string, err error, code string) {
		t.Helper()
		if got := itest.Code(err); got != code {
			t.Errorf("%s: %v, want %s", what, err, code)
		}
	}
	_, err := mpComplete(ctx, c, "k", id, small, last)
	check("small non-last part", err, "EntityTooSmall")
	_, err = mpComplete(ctx, c, "k", id, big, small)
	check("parts out of order", err, "InvalidPartOrder")
	bad := big
	bad.ETag = aws.String(`"00000000000000000000000000000000"`)
	_, err = mpComplete(ctx, c, "k", id, bad, last)
	check("wrong part ETag", err, "InvalidPart")
	_, err = mpComplete(ctx, c, "k", id, types.CompletedPart{PartNumber: aws.Int32(3), ETag: big.ETag})
	check("missing part", err, "InvalidPart")
	_, err = mpComplete(ctx, c, "k", "nosuchupload", big)
	check("unknown upload", err, "NoSuchUpload")
	_, err = c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("mpops"), Key: aws.String("k"), UploadId: aws.String(id),
		PartNumber: aws.Int32(10001), Body: strings.NewReader("x")})
	check("part number 10001", err, "InvalidArgument")
	// Gaps in part numbers are allowed: 2 and 5.
	if _, err := mpComplete(ctx, c, "k", id, big, last); err != nil {
		t.Fatalf("complete with gaps: %v", err)
	}
	_, err = c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String("mpops"), Key: aws.String("k"), UploadId: aws.String(id)})
	check("abort after complete", err, "NoSuchUpload")
	// If-None-Match on completion.
	id2 := mpCreate(t, ctx, c, "k")
	p := mpPart(t, ctx, c, "k", id2, 1, []byte("again"))
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("mpops"), Key: aws.String("k"),
		UploadId: aws.String(id2), IfNoneMatch: aws.String("*"), MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{p}}})
	check("complete If-None-Match * over an existing key", err, "PreconditionFailed")
}

// TestMultipartListing pages ListParts over 1,100 parts and ListMultipartUploads
// over several uploads, then aborts them all.
func TestMultipartListing(t *testing.T) {
	if testing.Short() {
		t.Skip("1,100 part uploads")
	}
	_, c, ctx := mpSetup(t)
	id := mpCreate(t, ctx, c, "many")
	for n := int32(1); n <= 1100; n++ {
		mpPart(t, ctx, c, "many", id, n, []byte{byte(n)})
	}
	var seen []int32
	pg := s3.NewListPartsPaginator(c, &s3.ListPartsInput{Bucket: aws.String("mpops"), Key: aws.String("many"), UploadId: aws.String(id)})
	pages := 0
	for pg.HasMorePages() {
		out, err := pg.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, p := range out.Parts {
			seen = append(seen, aws.ToInt32(p.PartNumber))
		}
	}
	if len(seen) != 1100 || pages != 2 || seen[0] != 1 || seen[1099] != 1100 {
		t.Fatalf("ListParts walked %d parts in %d pages", len(seen), pages)
	}
	var ids []string
	for _, k := range []string{"a/1", "a/2", "b", "b"} {
		ids = append(ids, mpCreate(t, ctx, c, k))
	}
	up, err := c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String("mpops"), Delimiter: aws.String("/")})
	if err != nil {
		t.Fatal(err)
	}
	if len(up.Uploads) != 3 || len(up.CommonPrefixes) != 1 || aws.ToString(up.CommonPrefixes[0].Prefix) != "a/" {
		t.Fatalf("ListMultipartUploads: %d uploads, %d prefixes", len(up.Uploads), len(up.CommonPrefixes))
	}
	for i, k := range []string{"a/1", "a/2", "b", "b"} {
		if _, err := c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String("mpops"), Key: aws.String(k), UploadId: aws.String(ids[i])}); err != nil {
			t.Fatal(err)
		}
	}
	// DeleteBucket aborts what remains, as S3 does.
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("mpops"), Key: aws.String("x")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("mpops")}); err != nil {
		t.Fatalf("DeleteBucket with an upload in progress: %v", err)
	}
}

// TestUploadPartCopy copies byte ranges of an object into parts.
func TestUploadPartCopy(t *testing.T) {
	_, c, ctx := mpSetup(t)
	src := itest.RandBytes(9, 6<<20)
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("mpops"), Key: aws.String("src"), Body: bytes.NewReader(src)}); err != nil {
		t.Fatal(err)
	}
	id := mpCreate(t, ctx, c, "dst")
	var parts []types.CompletedPart
	for i, r := range [][2]int{{0, 5<<20 - 1}, {5 << 20, 6<<20 - 1}} {
		out, err := c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: aws.String("mpops"), Key: aws.String("dst"), UploadId: aws.String(id),
			PartNumber: aws.Int32(int32(i + 1)), CopySource: aws.String("mpops/src"), CopySourceRange: aws.String(fmt.Sprintf("bytes=%d-%d", r[0], r[1]))})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: out.CopyPartResult.ETag})
	}
	_, err := c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: aws.String("mpops"), Key: aws.String("dst"), UploadId: aws.String(id),
		PartNumber: aws.Int32(3), CopySource: aws.String("mpops/src"), CopySourceRange: aws.String("bytes=0-99999999")})
	if itest.Code(err) != "InvalidArgument" {
		t.Errorf("range beyond the source: %v", err)
	}
	_, err = c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: aws.String("mpops"), Key: aws.String("dst"), UploadId: aws.String(id),
		PartNumber: aws.Int32(3), CopySource: aws.String("mpops/src"), CopySourceIfMatch: aws.String(`"nope"`)})
	if itest.Code(err) != "PreconditionFailed" {
		t.Errorf("copy-source-if-match: %v", err)
	}
	if _, err := mpComplete(ctx, c, "dst", id, parts...); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("mpops"), Key: aws.String("dst")})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(got.Body)
	got.Body.Close()
	if !bytes.Equal(b, src) {
		t.Fatal("object assembled from copied parts differs from the source")
	}
}

// TestMinioUnknownSize uploads with size -1, which minio-go always sends as a
// multipart upload.
func TestMinioUnknownSize(t *testing.T) {
	_, c, bucket := itest.StartMinio(t)
	data := itest.RandBytes(12, 100_000)
	_, err := c.PutObject(context.Background(), bucket, "unknown-size", bytes.NewReader(data), -1,
		minio.PutObjectOptions{DisableContentSha256: true})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := itest.MinioGet(t, c, bucket, "unknown-size", minio.GetObjectOptions{})
	if !bytes.Equal(got, data) {
		t.Fatal("object uploaded with unknown size reads back differently")
	}
}
