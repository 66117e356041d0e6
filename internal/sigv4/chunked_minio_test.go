package sigv4

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/jogstore/jog/internal/checksum"
)

// TestChunkedMinioGo uploads through minio-go's PutObject, which signs every
// chunk over plain http (STREAMING-AWS4-HMAC-SHA256-PAYLOAD, or -TRAILER
// with a checksum) and, given a checksum, sends it as an unsigned trailer
// over TLS (STREAMING-UNSIGNED-PAYLOAD-TRAILER). Its trailer lines end in a
// bare "\n". (Over TLS without a checksum option it sends a plain
// UNSIGNED-PAYLOAD body, which is not aws-chunked.)
func TestChunkedMinioGo(t *testing.T) {
	cases := []struct {
		name string
		tls  bool
		opts minio.PutObjectOptions
		mode string
		alg  checksum.Algorithm
	}{
		{"http", false, minio.PutObjectOptions{}, StreamingPayload, ""},
		{"http crc32c", false, minio.PutObjectOptions{Checksum: minio.ChecksumCRC32C}, StreamingPayloadTrailer, checksum.CRC32C},
		{"http sha256", false, minio.PutObjectOptions{Checksum: minio.ChecksumSHA256}, StreamingPayloadTrailer, checksum.SHA256},
		{"https crc32c", true, minio.PutObjectOptions{Checksum: minio.ChecksumCRC32C}, StreamingUnsignedPayloadTrailer, checksum.CRC32C},
		{"https crc64nvme", true, minio.PutObjectOptions{Checksum: minio.ChecksumCRC64NVME}, StreamingUnsignedPayloadTrailer, checksum.CRC64NVME},
	}
	for i, c := range cases {
		srv, uploads := chunkedServer(t, c.tls)
		mc, err := minio.New(srv.Listener.Addr().String(), &minio.Options{
			Creds:           credentials.NewStaticV4(sdkAccessKey, sdkSecret, ""),
			Secure:          c.tls,
			Region:          sdkRegion,
			Transport:       srv.Client().Transport,
			TrailingHeaders: true,
			MaxRetries:      1,
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{1, 64 << 10, 200<<10 + 3} {
			data := randomBytes(uint64(i*1000+size), size)
			_, err := mc.PutObject(context.Background(), "bucket", "key", unseekable{bytes.NewReader(data)}, int64(size), c.opts)
			ups := uploads()
			if len(ups) == 0 {
				t.Fatalf("%s: PutObject: %v (nothing reached the server)", c.name, err)
			}
			name := fmt.Sprintf("%s, %d bytes", c.name, size)
			checkUpload(t, name, ups[len(ups)-1], c.mode, data, c.alg)
			if err != nil {
				t.Errorf("%s: PutObject: %v", name, err)
			}
		}
	}
}
