package sigv4

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ChunkedEncoder encodes a body as aws-chunked, the client side of
// ChunkedReader, for tests and tools. Create one with NewChunkedEncoder.
type ChunkedEncoder struct {
	body      io.Reader
	signed    bool
	trailer   bool // a trailer section follows the final chunk
	signer    chunkSigner
	chunkSize int
	trailers  func() []Trailer

	data []byte       // chunk data buffer
	out  bytes.Buffer // encoded bytes not yet read
	done bool         // the final chunk has been encoded
	err  error
}

// NewChunkedEncoder encodes body as aws-chunked in chunks of chunkSize bytes
// (the last one shorter), in the format AWS documents and AWS SDKs send:
//
//	<hex>;chunk-signature=<sig>\r\n<data>\r\n ... 0;chunk-signature=<sig>\r\n  (signed)
//	<hex>\r\n<data>\r\n ... 0\r\n                                              (unsigned)
//
// then "\r\n" without trailers, or each trailer as "name:value\r\n", in the
// signed-trailer mode "x-amz-trailer-signature:<sig>\r\n", and "\r\n".
//
// res.PayloadHash selects the mode (StreamingPayload, StreamingPayloadTrailer
// or StreamingUnsignedPayloadTrailer); the signed modes chain signatures from
// res.Signature with res.SigningKey, res.Date and res.Scope. trailers, which
// may be nil, is called once body is exhausted, as SDKs compute a trailing
// checksum; its names should be the lowercase ones announced in x-amz-trailer.
// SignChunkedRequest prepares a request around an encoder.
func NewChunkedEncoder(body io.Reader, res *Result, chunkSize int, trailers func() []Trailer) (*ChunkedEncoder, error) {
	e := &ChunkedEncoder{body: body, chunkSize: chunkSize, trailers: trailers}
	switch res.PayloadHash {
	case StreamingPayload:
		e.signed = true
	case StreamingPayloadTrailer:
		e.signed, e.trailer = true, true
	case StreamingUnsignedPayloadTrailer:
		e.trailer = true
	default:
		return nil, fmt.Errorf("%w: %q is not an aws-chunked payload", ErrInvalidContentSHA256, res.PayloadHash)
	}
	if chunkSize <= 0 || e.signed && chunkSize > MaxChunkSize {
		return nil, fmt.Errorf("sigv4: invalid chunk size %d", chunkSize)
	}
	if trailers != nil && !e.trailer {
		return nil, fmt.Errorf("sigv4: trailers need %s or %s", StreamingPayloadTrailer, StreamingUnsignedPayloadTrailer)
	}
	e.signer = newChunkSigner(res)
	e.data = make([]byte, chunkSize)
	return e, nil
}

// Read returns encoded bytes.
func (e *ChunkedEncoder) Read(p []byte) (int, error) {
	for e.out.Len() == 0 {
		if e.err != nil {
			return 0, e.err
		}
		if e.done {
			return 0, io.EOF
		}
		e.err = e.encodeNext()
	}
	return e.out.Read(p)
}

// encodeNext reads the next chunk of body and encodes it; after the last
// one it encodes the final chunk and the trailers.
func (e *ChunkedEncoder) encodeNext() error {
	n, err := io.ReadFull(e.body, e.data)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return err
	}
	if n > 0 {
		e.writeChunk(e.data[:n])
		e.out.WriteString("\r\n")
	}
	if err == nil {
		return nil
	}
	e.done = true
	e.writeChunk(nil)
	if !e.trailer {
		e.out.WriteString("\r\n")
		return nil
	}
	var ts []Trailer
	if e.trailers != nil {
		ts = e.trailers()
	}
	for i := range ts {
		ts[i].Name = strings.ToLower(ts[i].Name)
		e.out.WriteString(ts[i].Name + ":" + ts[i].Value + "\r\n")
	}
	if e.signed {
		e.out.WriteString(trailerSignatureName + ":" + e.signer.trailer(canonicalTrailers(ts)) + "\r\n")
	}
	e.out.WriteString("\r\n")
	return nil
}

// writeChunk writes a chunk header and data, without the CRLF after the data.
func (e *ChunkedEncoder) writeChunk(data []byte) {
	e.out.WriteString(strconv.FormatInt(int64(len(data)), 16))
	if e.signed {
		sum := sha256.Sum256(data)
		e.signer.prev = e.signer.chunk(sum[:])
		e.out.WriteString(";" + chunkSignaturePrefix + e.signer.prev)
	}
	e.out.WriteString("\r\n")
	e.out.Write(data)
}
