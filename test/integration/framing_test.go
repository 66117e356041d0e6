package integration

// Request framing at its edges (issue 43, findings D and E): trailing
// checksums announced and sent empty, and requests that carry both
// Content-Length and Transfer-Encoding.

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"net/http"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestEmptyTrailingChecksum: an announced x-amz-checksum-crc32 trailer
// sent empty or blank is 400 InvalidRequest in the unsigned and the
// signed trailer modes, as a trailer not sent at all is refused, and
// nothing is stored; the right value is stored (the framing is sound).
func TestEmptyTrailingChecksum(t *testing.T) {
	srv, c := itest.StartBucket(t, "trail")
	data := []byte("a body whose checksum comes after it")
	sum := binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(data))
	good := base64.StdEncoding.EncodeToString(sum)
	for _, mode := range []string{sigv4.StreamingUnsignedPayloadTrailer, sigv4.StreamingPayloadTrailer} {
		for i, v := range []string{"", " \t ", good} {
			key := mode + "-" + string(rune('a'+i))
			t.Run(key, func(t *testing.T) {
				req := itest.RawRequest(t, srv, http.MethodPut, "/trail/"+key, nil)
				err := sigv4.SignChunkedRequest(req, testutil.AccessKey, testutil.SecretKey, testutil.Region, time.Now(), bytes.NewReader(data),
					sigv4.ChunkedUpload{Mode: mode, DecodedLength: int64(len(data)), TrailerNames: []string{"x-amz-checksum-crc32"},
						Trailers: func() []sigv4.Trailer { return []sigv4.Trailer{{Name: "x-amz-checksum-crc32", Value: v}} }})
				if err != nil {
					t.Fatal(err)
				}
				resp, body := itest.Do(t, req)
				if v == good {
					if resp.StatusCode != http.StatusOK {
						t.Fatalf("the right checksum: %d %s", resp.StatusCode, body)
					}
					itest.WantObject(t, c, "trail", key, data)
					return
				}
				itest.WantRawErr(t, resp, body, http.StatusBadRequest, "InvalidRequest")
				itest.WantNoObject(t, c, "trail", key)
			})
		}
	}
}
