package bench

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/jogstore/jog/internal/sigv4"
)

// Signing modes, as --signing takes them: how PUT and UploadPart bodies are
// sent, as the clients that send them do.
const (
	// SigningUnsigned is x-amz-content-sha256: UNSIGNED-PAYLOAD, a plain body
	// (the default).
	SigningUnsigned = "unsigned"
	// SigningStreaming is STREAMING-AWS4-HMAC-SHA256-PAYLOAD: aws-chunked in
	// 64 KiB chunks, each signed in a chain from the request's signature, as
	// minio-go (and so warp) sends PUTs over plain http.
	SigningStreaming = "streaming"
	// SigningTrailer is STREAMING-UNSIGNED-PAYLOAD-TRAILER: aws-chunked in
	// 64 KiB chunks without signatures and a trailing x-amz-checksum-crc32,
	// as the AWS SDKs send PUTs by default since 2025.
	SigningTrailer = "trailer"
	// SigningSigned is the body's SHA-256 in x-amz-content-sha256, hashed
	// before sending, as s3cmd and boto3 over http do.
	SigningSigned = "signed"
)

// SigningModes are the --signing values.
var SigningModes = []string{SigningUnsigned, SigningStreaming, SigningTrailer, SigningSigned}

// chunkSize is the aws-chunked data size per chunk (minio-go's and the AWS
// SDKs' 64 KiB).
const chunkSize = sigv4.DefaultChunkSize

// Lengths of the aws-chunked framing around a chunk's data.
const (
	chunkSigLen     = len(";chunk-signature=") + 64 // after the hex size
	crc32TrailerLen = len("x-amz-checksum-crc32:") + 8 + 2
)

// chunkedLength is the encoded length of n bytes of data in mode.
func chunkedLength(mode string, n int64) int64 {
	frame := func(k int64) int64 {
		l := int64(len(strconv.FormatInt(k, 16))) + 2 + k + 2 // <hex>\r\n<data>\r\n
		if mode == SigningStreaming {
			l += int64(chunkSigLen)
		}
		return l
	}
	total := n / chunkSize * frame(chunkSize)
	if rest := n % chunkSize; rest > 0 {
		total += frame(rest)
	}
	// The final chunk, "0[;chunk-signature=…]\r\n\r\n" with the trailer
	// between the two line ends in trailer mode.
	total += frame(0)
	if mode == SigningTrailer {
		total += int64(crc32TrailerLen)
	}
	return total
}

// signBody prepares req, which carries size bytes of src, for the client's
// signing mode and signs it at t.
func (c *Client) signBody(req *http.Request, src *PayloadReader, size int64, t time.Time) {
	mode := c.signing
	switch mode {
	case SigningStreaming, SigningTrailer:
		req.Header.Set("Content-Encoding", "aws-chunked")
		req.Header.Set("X-Amz-Decoded-Content-Length", strconv.FormatInt(size, 10))
		hash := sigv4.StreamingPayload
		if mode == SigningTrailer {
			req.Header.Set("X-Amz-Trailer", "x-amz-checksum-crc32")
			req.Header.Set("X-Amz-Sdk-Checksum-Algorithm", "CRC32")
			hash = sigv4.StreamingUnsignedPayloadTrailer
		}
		req.ContentLength = chunkedLength(mode, size)
		sigv4.SignRequest(req, c.accessKey, c.secretKey, c.region, t, hash)
		body := &chunkedBody{src: *src, mode: mode, pool: &c.bufs}
		if mode == SigningStreaming {
			body.signer = sigv4.NewChunkSigner(req, c.secretKey, c.region, t)
		}
		req.Body, req.GetBody = body, nil
	case SigningSigned:
		h := sha256.New()
		pre := *src
		_, _ = pre.WriteTo(h)
		sigv4.SignRequest(req, c.accessKey, c.secretKey, c.region, t, hex.EncodeToString(h.Sum(nil)))
	default:
		sigv4.SignRequest(req, c.accessKey, c.secretKey, c.region, t, sigv4.UnsignedPayload)
	}
}

// chunkedBody frames a payload slice as aws-chunked while the transport
// reads it, one 64 KiB chunk at a time in a pooled buffer: each chunk is
// hashed and signed (streaming) or added to the CRC-32 (trailer) as it is
// framed.
type chunkedBody struct {
	src    PayloadReader
	mode   string
	signer *sigv4.ChunkSigner
	crc    uint32
	pool   *sync.Pool // of *[]byte, 256 KiB

	buf  *[]byte // pooled; nil before the first chunk and after the last
	out  []byte  // framed bytes not yet read, in *buf
	done bool
}

// Read implements io.Reader.
func (b *chunkedBody) Read(p []byte) (int, error) {
	for len(b.out) == 0 {
		if b.done {
			b.release()
			return 0, io.EOF
		}
		b.frameNext()
	}
	n := copy(p, b.out)
	b.out = b.out[n:]
	return n, nil
}

// WriteTo implements io.WriterTo: the transport writes each framed chunk
// straight from the pooled buffer.
func (b *chunkedBody) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		for len(b.out) == 0 {
			if b.done {
				b.release()
				return total, nil
			}
			b.frameNext()
		}
		n, err := w.Write(b.out)
		total += int64(n)
		b.out = b.out[n:]
		if err != nil {
			return total, err
		}
	}
}

// Close implements io.Closer. The buffer goes back to the pool only once
// the body has been read to its end: the transport may close a body while
// its connection is still writing from it.
func (*chunkedBody) Close() error { return nil }

func (b *chunkedBody) release() {
	if b.buf != nil {
		b.pool.Put(b.buf)
		b.buf = nil
	}
}

// frameNext frames the next chunk of data, or the final chunk and the
// trailer once the data is out.
func (b *chunkedBody) frameNext() {
	if b.buf == nil {
		b.buf = b.pool.Get().(*[]byte)
	}
	out := (*b.buf)[:0]
	n := min(b.src.Len(), chunkSize)
	// The data goes after the header, whose length is known from n.
	hdr := len(strconv.FormatInt(n, 16)) + 2
	if b.mode == SigningStreaming {
		hdr += chunkSigLen
	}
	data := (*b.buf)[hdr : hdr+int(n)]
	_, _ = io.ReadFull(&b.src, data)
	out = strconv.AppendInt(out, n, 16)
	if b.mode == SigningStreaming {
		sum := sha256.Sum256(data)
		out = append(out, ";chunk-signature="...)
		out = append(out, b.signer.Next(sum[:])...)
	} else {
		b.crc = crc32.Update(b.crc, crc32.IEEETable, data)
	}
	out = append(out, "\r\n"...)
	out = out[:len(out)+int(n)] // the data, already in place
	if n > 0 {
		out = append(out, "\r\n"...)
	} else {
		if b.mode == SigningTrailer {
			var sum [4]byte
			binary.BigEndian.PutUint32(sum[:], b.crc)
			out = append(out, "x-amz-checksum-crc32:"...)
			out = base64.StdEncoding.AppendEncode(out, sum[:])
			out = append(out, "\r\n"...)
		}
		out = append(out, "\r\n"...)
		b.done = true
	}
	b.out = out
}
