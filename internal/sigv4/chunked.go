package sigv4

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"slices"
	"strings"
)

// MaxChunkSize is the largest chunk a signed aws-chunked body may use. Each
// signed chunk is held in memory until its signature is verified; clients use
// 64 KiB (AWS SDKs, minio-go) to a few MiB.
const MaxChunkSize = 16 << 20

// ChunkedReader decodes an aws-chunked request body ("Content-Encoding:
// aws-chunked"), verifying chunk and trailer signatures as it goes. Create
// one with NewChunkedReader.
//
// In the signed modes a chunk is read whole and verified before any of its
// bytes are returned, so a caller never sees unauthenticated data; only one
// chunk is held at a time. In the unsigned mode data streams straight
// through. Either way the decoded length and the trailers are only checked at
// the end: a caller must not commit what it read until Read returns io.EOF.
//
// Wire format (what AWS SDKs and minio-go send; see the package tests):
//
//	signed:   <hex>;chunk-signature=<sig>\r\n<data>\r\n ... 0;chunk-signature=<sig>\r\n[\r\n]
//	unsigned: <hex>\r\n<data>\r\n ... 0\r\n
//	then, in the trailer modes: name:value\r\n ... [x-amz-trailer-signature:<sig>\r\n]\r\n
//
// Trailer lines may end in a bare "\n" (minio-go writes them so), blank lines
// before the trailers and before the signature are skipped, and a missing
// final CRLF at the end of the body is tolerated; anything but blank lines
// after the end is an error.
type ChunkedReader struct {
	br        *bufio.Reader
	signed    bool // chunks carry signatures
	trailers  bool // a trailer section follows the final chunk
	signer    chunkSigner
	sha       hash.Hash
	decoded   int64    // x-amz-decoded-content-length, or -1
	total     int64    // decoded bytes in the chunks read so far
	announced []string // x-amz-trailer names
	values    map[string]string

	buf    []byte // signed modes: the current, verified chunk
	off    int    // unread offset in buf
	remain int64  // unsigned mode: data bytes left in the current chunk
	err    error  // sticky: io.EOF at the end, or the first failure
}

// NewChunkedReader decodes an aws-chunked body. res is the verified request's
// Result: its PayloadHash selects the mode (StreamingPayload,
// StreamingPayloadTrailer or StreamingUnsignedPayloadTrailer), and its
// SigningKey, Signature (the seed), Date and Scope verify the chunk and
// trailer signatures. decodedLength is x-amz-decoded-content-length, or -1
// when the header is absent: the signed modes require it
// (ErrMissingDecodedLength); in the unsigned mode -1 skips the length check
// (S3 itself answers MissingContentLength; that is the caller's call).
// trailerNames are the names announced in x-amz-trailer (case and
// surrounding spaces are ignored, and comma-separated lists are split); every
// trailer sent must be announced and every announced one sent.
func NewChunkedReader(body io.Reader, res *Result, decodedLength int64, trailerNames []string) (*ChunkedReader, error) {
	c := &ChunkedReader{br: bufio.NewReaderSize(body, maxLineLength), decoded: decodedLength}
	switch res.PayloadHash {
	case StreamingPayload:
		c.signed = true
	case StreamingPayloadTrailer:
		c.signed, c.trailers = true, true
	case StreamingUnsignedPayloadTrailer:
		c.trailers = true
	case StreamingECDSAPayload, StreamingECDSAPayloadTrailer:
		return nil, fmt.Errorf("%w: %s", ErrUnsupportedAlgorithm, res.PayloadHash)
	default:
		return nil, fmt.Errorf("%w: %q is not an aws-chunked payload", ErrInvalidContentSHA256, res.PayloadHash)
	}
	if decodedLength < -1 || c.signed && decodedLength < 0 {
		return nil, fmt.Errorf("%w: got %d", ErrMissingDecodedLength, decodedLength)
	}
	if c.signed {
		c.signer = newChunkSigner(res)
		c.sha = sha256.New()
	}
	for _, n := range trailerNames {
		for name := range strings.SplitSeq(n, ",") {
			if name = strings.ToLower(strings.TrimSpace(name)); name != "" && !slices.Contains(c.announced, name) {
				c.announced = append(c.announced, name)
			}
		}
	}
	return c, nil
}

// Read returns decoded bytes. It returns io.EOF only after the final chunk,
// the trailers and every signature have been verified and the decoded length
// equals x-amz-decoded-content-length; errors are sticky.
func (c *ChunkedReader) Read(p []byte) (int, error) {
	for c.err == nil {
		switch {
		case len(p) == 0:
			return 0, nil
		case c.off < len(c.buf):
			n := copy(p, c.buf[c.off:])
			c.off += n
			return n, nil
		case c.remain > 0:
			return c.readUnsigned(p)
		}
		c.err = c.nextChunk()
	}
	return 0, c.err
}

// Trailer returns the value of trailer name (case-insensitive) once Read has
// returned io.EOF, or "" if it was not sent.
func (c *ChunkedReader) Trailer(name string) string {
	return c.values[strings.ToLower(name)]
}

// readUnsigned passes data of the current unsigned chunk through.
func (c *ChunkedReader) readUnsigned(p []byte) (int, error) {
	if int64(len(p)) > c.remain {
		p = p[:c.remain]
	}
	n, err := c.br.Read(p)
	c.remain -= int64(n)
	switch {
	case err == io.EOF:
		c.err = truncated("inside a chunk")
	case err != nil:
		c.err = err
	case c.remain == 0:
		c.err = readCRLF(c.br)
	}
	return n, c.err
}

// nextChunk reads the next chunk header and, in the signed modes, the
// chunk's data, which it verifies. After the final chunk it reads the rest
// of the body and returns io.EOF if everything checks out.
func (c *ChunkedReader) nextChunk() error {
	h, err := readChunkHeader(c.br, c.signed)
	if err != nil {
		return err
	}
	if c.decoded >= 0 && h.size > c.decoded-c.total {
		return fmt.Errorf("%w: more than the %d bytes declared", ErrDecodedLengthMismatch, c.decoded)
	}
	if c.signed {
		if err := c.readSigned(h); err != nil {
			return err
		}
	} else {
		c.remain = h.size
	}
	c.total += h.size
	if h.size > 0 {
		return nil
	}
	if c.decoded >= 0 && c.total != c.decoded {
		return fmt.Errorf("%w: got %d bytes, %d declared", ErrDecodedLengthMismatch, c.total, c.decoded)
	}
	var values map[string]string
	if !h.last && c.trailers {
		if values, err = c.readTrailers(); err != nil {
			return err
		}
	} else if c.trailers && len(c.announced) > 0 {
		return fmt.Errorf("%w: trailer %q announced but not sent", ErrMalformedTrailer, c.announced[0])
	}
	if !h.last {
		if err := expectEnd(c.br); err != nil {
			return err
		}
	}
	c.values = values
	return io.EOF
}

// readSigned reads a signed chunk's data into c.buf and verifies it against
// the chunk signature. The buffer grows with the data actually received, not
// with the size the header claims.
func (c *ChunkedReader) readSigned(h chunkHeader) error {
	if h.size > MaxChunkSize {
		return fmt.Errorf("%w: %d bytes", ErrChunkTooLarge, h.size)
	}
	size := int(h.size)
	buf := c.buf[:0]
	for len(buf) < size {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(size-len(buf), max(len(buf), 64<<10)))
		}
		n, err := io.ReadFull(c.br, buf[len(buf):min(cap(buf), size)])
		buf = buf[:len(buf)+n]
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return truncated("inside a chunk")
		}
		if err != nil {
			return err
		}
	}
	c.buf, c.off = buf, len(buf) // nothing is readable until verified
	c.sha.Reset()
	c.sha.Write(buf)
	want := c.signer.chunk(c.sha.Sum(nil))
	if !hmac.Equal([]byte(want), []byte(h.signature)) {
		return fmt.Errorf("%w: chunk ending at decoded byte %d", ErrChunkSignatureMismatch, c.total+h.size)
	}
	c.signer.prev = want
	if size > 0 {
		if err := readCRLF(c.br); err != nil {
			return err
		}
	}
	c.off = 0
	return nil
}

// maxTrailingBlankLines bounds the blank lines accepted after the end of an
// aws-chunked body (clients send zero to two).
const maxTrailingBlankLines = 4

// expectEnd consumes what follows the end of the encoding: blank lines, then
// EOF.
func expectEnd(br *bufio.Reader) error {
	for range maxTrailingBlankLines {
		l, err := readLine(br)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if len(l.text) != 0 {
			return fmt.Errorf("%w: unexpected data %q after the final chunk", ErrMalformedChunk, l.text)
		}
	}
	switch _, err := br.Peek(1); err {
	case io.EOF:
		return nil
	case nil:
		return fmt.Errorf("%w: unexpected data after the final chunk", ErrMalformedChunk)
	default:
		return err
	}
}
