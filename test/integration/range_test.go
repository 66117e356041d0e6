package integration

// Ranged GETs: Range headers through aws-sdk-go-v2, and minio-go's
// SetRange, ReadAt and Seek on a lazily opened object.

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/minio/minio-go/v7"

	"github.com/jogstore/jog/test/integration/itest"
)

func TestAWSObjectRange(t *testing.T) {
	_, c := itest.StartBucket(t, "rng")
	ctx := context.Background()
	body := []byte("0123456789")
	itest.Put(t, c, "rng", "k", body)

	for _, tc := range []struct {
		rng, want, contentRange string
	}{
		{"bytes=2-5", "2345", "bytes 2-5/10"},
		{"bytes=5-", "56789", "bytes 5-9/10"},
		{"bytes=-3", "789", "bytes 7-9/10"},
		{"bytes=5-100", "56789", "bytes 5-9/10"},
		{"bytes=0-0", "0", "bytes 0-0/10"},
		{"bytes=9-9", "9", "bytes 9-9/10"},
		{"bytes=-100", "0123456789", "bytes 0-9/10"},
		{"bytes=0-", "0123456789", "bytes 0-9/10"},
	} {
		got, g := itest.Get(t, c, "rng", "k", func(in *s3.GetObjectInput) { in.Range = aws.String(tc.rng) })
		if string(got) != tc.want {
			t.Errorf("GET %s: body %q, want %q", tc.rng, got, tc.want)
		}
		if st := itest.Status(g.ResultMetadata); st != http.StatusPartialContent {
			t.Errorf("GET %s: status %d, want 206", tc.rng, st)
		}
		if cr := aws.ToString(g.ContentRange); cr != tc.contentRange {
			t.Errorf("GET %s: Content-Range %q, want %q", tc.rng, cr, tc.contentRange)
		}
		if n := aws.ToInt64(g.ContentLength); n != int64(len(tc.want)) {
			t.Errorf("GET %s: Content-Length %d, want %d", tc.rng, n, len(tc.want))
		}
		if aws.ToString(g.ETag) != itest.ETag(body) {
			t.Errorf("GET %s: ETag %s is not the whole object's", tc.rng, aws.ToString(g.ETag))
		}

		h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("rng"), Key: aws.String("k"), Range: aws.String(tc.rng)})
		if err != nil {
			t.Fatalf("HEAD %s: %v", tc.rng, err)
		}
		if st := itest.Status(h.ResultMetadata); st != http.StatusPartialContent || aws.ToInt64(h.ContentLength) != int64(len(tc.want)) ||
			aws.ToString(h.ContentRange) != tc.contentRange {
			t.Errorf("HEAD %s: %d length %d range %q", tc.rng, st, aws.ToInt64(h.ContentLength), aws.ToString(h.ContentRange))
		}
	}

	// Unsatisfiable: the first byte is past the end.
	for _, r := range []string{"bytes=10-", "bytes=10-20", "bytes=100-200"} {
		_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("rng"), Key: aws.String("k"), Range: aws.String(r)})
		itest.WantErr(t, err, http.StatusRequestedRangeNotSatisfiable, "InvalidRange")
		if cr := itest.ErrHeader(err, "Content-Range"); cr != "bytes */10" {
			t.Errorf("416 for %s: Content-Range %q, want bytes */10", r, cr)
		}
	}

	// Malformed or multiple ranges are ignored: the whole object, 200.
	for _, r := range []string{"bytes=abc", "bytes=5-2", "items=0-1", "bytes=0-1,3-4"} {
		got, g := itest.Get(t, c, "rng", "k", func(in *s3.GetObjectInput) { in.Range = aws.String(r) })
		if string(got) != string(body) || itest.Status(g.ResultMetadata) != http.StatusOK || g.ContentRange != nil {
			t.Errorf("GET %s: %d %q range %v, want the whole object", r, itest.Status(g.ResultMetadata), got, g.ContentRange)
		}
	}
}

func TestMinioRangedGet(t *testing.T) {
	_, c, bucket := itest.StartMinio(t)
	ctx := context.Background()
	data := itest.RandBytes(7, 100_000)
	itest.MinioPut(t, c, bucket, "r.bin", data, minio.PutObjectOptions{})
	n := int64(len(data))

	for _, tc := range []struct {
		name       string
		start, end int64
		want       []byte
	}{
		{"first byte", 0, 0, data[:1]},
		{"head", 0, 4, data[:5]},
		{"middle", 1000, 1999, data[1000:2000]},
		{"last byte", n - 1, n - 1, data[n-1:]},
		{"from offset", 99_000, 0, data[99_000:]},
		{"suffix", 0, -10, data[n-10:]},
		{"end past size", 99_990, n + 1000, data[99_990:]},
	} {
		opts := minio.GetObjectOptions{}
		if err := opts.SetRange(tc.start, tc.end); err != nil {
			t.Fatal(err)
		}
		got, _ := itest.MinioGet(t, c, bucket, "r.bin", opts)
		if !bytes.Equal(got, tc.want) {
			t.Errorf("%s: got %d bytes, want %d", tc.name, len(got), len(tc.want))
		}
	}

	opts := minio.GetObjectOptions{}
	_ = opts.SetRange(n, n+10)
	_, _, err := itest.MinioTryGet(c, bucket, "r.bin", opts)
	itest.WantErr(t, err, http.StatusRequestedRangeNotSatisfiable, "InvalidRange")

	// Seek and ReadAt on the lazily opened *minio.Object issue ranged GETs.
	obj, err := c.GetObject(ctx, bucket, "r.bin", minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	if st, err := obj.Stat(); err != nil || st.Size != n || st.ETag != itest.MD5Hex(data) {
		t.Fatalf("Stat of *minio.Object = size %d etag %q, %v", st.Size, st.ETag, err)
	}
	buf := make([]byte, 500)
	if k, err := obj.ReadAt(buf, 50_000); err != nil || k != 500 || !bytes.Equal(buf, data[50_000:50_500]) {
		t.Fatalf("ReadAt(50000) = %d, %v (equal %v)", k, err, bytes.Equal(buf, data[50_000:50_500]))
	}
	if k, err := obj.ReadAt(buf, n-100); (err != nil && err != io.EOF) || k != 100 || !bytes.Equal(buf[:k], data[n-100:]) {
		t.Fatalf("ReadAt(n-100) = %d, %v", k, err)
	}
	if pos, err := obj.Seek(12_345, io.SeekStart); err != nil || pos != 12_345 {
		t.Fatalf("Seek = %d, %v", pos, err)
	}
	if _, err := io.ReadFull(obj, buf); err != nil || !bytes.Equal(buf, data[12_345:12_845]) {
		t.Fatalf("read after Seek: %v (equal %v)", err, bytes.Equal(buf, data[12_345:12_845]))
	}
	if pos, err := obj.Seek(-300, io.SeekEnd); err != nil || pos != n-300 {
		t.Fatalf("Seek from end = %d, %v", pos, err)
	}
	rest, err := io.ReadAll(obj)
	if err != nil || !bytes.Equal(rest, data[n-300:]) {
		t.Fatalf("read to end after SeekEnd: %d bytes, %v", len(rest), err)
	}
}
