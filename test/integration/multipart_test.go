package integration

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	tmtypes "github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/jogstore/jog/internal/testutil"
)

func mpRandomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

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
	data := mpRandomBytes(23<<20+12345, 1)
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
