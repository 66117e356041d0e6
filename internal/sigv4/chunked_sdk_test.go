package sigv4

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/checksum"
)

// TestChunkedAWSSDK uploads through aws-sdk-go-v2's PutObject. Over TLS,
// with a body it cannot seek, the SDK sends STREAMING-UNSIGNED-PAYLOAD-TRAILER
// with the flexible checksum (CRC32 by default) as a trailer, e.g.
//
//	5\r\nhello\r\n0\r\nx-amz-checksum-crc32:NhCmhg==\r\n\r\n
//
// Over plain http it refuses such a body ("unseekable stream is not
// supported without TLS and trailing checksum"), so the server is TLS.
func TestChunkedAWSSDK(t *testing.T) {
	srv, uploads := chunkedServer(t, true)
	client := s3.New(s3.Options{
		Region:           sdkRegion,
		BaseEndpoint:     aws.String(srv.URL),
		UsePathStyle:     true,
		Credentials:      aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return sdkCreds, nil }),
		HTTPClient:       srv.Client(),
		RetryMaxAttempts: 1,
		// What config.LoadDefaultConfig sets; s3.New alone leaves it unset
		// and then sends no checksum unless the input names one.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenSupported,
	})
	cases := []struct {
		alg        types.ChecksumAlgorithm
		want       checksum.Algorithm
		size       int
		knownSize  bool
		wantLength bool
	}{
		{"", checksum.CRC32, 1000, true, true},
		{"", checksum.CRC32, 300 << 10, true, true},
		{types.ChecksumAlgorithmCrc32c, checksum.CRC32C, 100 << 10, true, true},
		{types.ChecksumAlgorithmSha1, checksum.SHA1, 5000, true, true},
		{types.ChecksumAlgorithmSha256, checksum.SHA256, 5000, true, true},
		{types.ChecksumAlgorithmCrc64nvme, checksum.CRC64NVME, 70000, true, true},
		// Unknown length: 64 KiB chunks, no x-amz-decoded-content-length.
		{"", checksum.CRC32, 200<<10 + 17, false, false},
	}
	for i, c := range cases {
		data := randomBytes(uint64(i), c.size)
		in := &s3.PutObjectInput{
			Bucket:            aws.String("bucket"),
			Key:               aws.String(fmt.Sprintf("key-%d", i)),
			Body:              unseekable{bytes.NewReader(data)},
			ChecksumAlgorithm: c.alg,
		}
		if c.knownSize {
			in.ContentLength = aws.Int64(int64(c.size))
		}
		_, err := client.PutObject(context.Background(), in)
		ups := uploads()
		if len(ups) != i+1 {
			t.Fatalf("case %d: PutObject: %v (server saw %d uploads)", i, err, len(ups))
		}
		up := ups[i]
		name := fmt.Sprintf("case %d (%s, %d bytes)", i, c.want, c.size)
		checkUpload(t, name, up, StreamingUnsignedPayloadTrailer, data, c.want)
		if (up.decoded >= 0) != c.wantLength {
			t.Errorf("%s: x-amz-decoded-content-length %d", name, up.decoded)
		}
		if err != nil {
			t.Errorf("%s: PutObject: %v", name, err)
		}
	}
}
