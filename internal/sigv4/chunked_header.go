package sigv4

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// maxLineLength bounds a chunk header or trailer line: the bufio.Reader's
// size, far above the ~100 bytes a signed chunk header needs.
const maxLineLength = 4096

// chunkSignaturePrefix introduces a signed chunk's signature.
const chunkSignaturePrefix = "chunk-signature="

// line is one line of an aws-chunked body's framing, without its terminator.
type line struct {
	text []byte // valid until the next read
	crlf bool   // ended with "\r\n" (not a bare "\n", nor EOF)
	eof  bool   // ended at EOF without a "\n"
}

// readLine reads the next line. It returns io.EOF only when the body ends
// before any byte of the line; a last line without "\n" comes back with eof
// set. Lines longer than maxLineLength fail with ErrMalformedChunk.
func readLine(br *bufio.Reader) (line, error) {
	b, err := br.ReadSlice('\n')
	switch {
	case err == bufio.ErrBufferFull:
		return line{}, fmt.Errorf("%w: line longer than %d bytes", ErrMalformedChunk, maxLineLength)
	case err == io.EOF && len(b) == 0:
		return line{}, io.EOF
	case err == io.EOF:
		return line{text: bytes.TrimSuffix(b, []byte{'\r'}), eof: true}, nil
	case err != nil:
		return line{}, err
	}
	b = b[:len(b)-1]
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return line{text: b[:n-1], crlf: true}, nil
	}
	return line{text: b}, nil
}

// truncated is the error for a body that ends inside the aws-chunked framing.
func truncated(what string) error {
	return fmt.Errorf("%w: %w: body ended %s", ErrMalformedChunk, io.ErrUnexpectedEOF, what)
}

// chunkHeader is a parsed chunk header line.
type chunkHeader struct {
	size      int64
	signature string // signed modes only
	last      bool   // the line ended at EOF (tolerated for the final chunk)
}

// readChunkHeader reads and parses a chunk header:
//
//	<hex size>;chunk-signature=<64 hex>\r\n   (signed)
//	<hex size>[;extensions]\r\n               (unsigned; extensions are ignored)
//
// The line must end in CRLF, except that a final "0..." header may end at EOF.
func readChunkHeader(br *bufio.Reader, signed bool) (chunkHeader, error) {
	l, err := readLine(br)
	if err == io.EOF {
		return chunkHeader{}, truncated("before the final chunk")
	}
	if err != nil {
		return chunkHeader{}, err
	}
	if !l.crlf && !l.eof {
		return chunkHeader{}, fmt.Errorf("%w: chunk header %q does not end in CRLF", ErrMalformedChunk, l.text)
	}
	sizeHex, ext, hasExt := bytes.Cut(l.text, []byte{';'})
	h := chunkHeader{last: l.eof}
	if h.size, err = parseChunkSize(sizeHex); err != nil {
		return chunkHeader{}, err
	}
	if l.eof && h.size != 0 {
		return chunkHeader{}, truncated("in a chunk header")
	}
	if !signed {
		return h, nil
	}
	sig, ok := bytes.CutPrefix(ext, []byte(chunkSignaturePrefix))
	if !hasExt || !ok || len(sig) != 64 {
		return chunkHeader{}, fmt.Errorf("%w: chunk header %q is not <size>;chunk-signature=<signature>", ErrMalformedChunk, l.text)
	}
	h.signature = string(sig)
	return h, nil
}

// parseChunkSize parses a chunk size: 1 to 15 hex digits, either case.
func parseChunkSize(b []byte) (int64, error) {
	b = bytes.TrimRight(b, " \t")
	if len(b) == 0 || len(b) > 15 {
		return 0, fmt.Errorf("%w: invalid chunk size %q", ErrMalformedChunk, b)
	}
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return 0, fmt.Errorf("%w: invalid chunk size %q", ErrMalformedChunk, b)
		}
	}
	return strconv.ParseInt(string(b), 16, 64)
}

// readCRLF consumes the CRLF that ends a chunk's data.
func readCRLF(br *bufio.Reader) error {
	var b [2]byte
	if _, err := io.ReadFull(br, b[:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return truncated("after chunk data")
		}
		return err
	}
	if b != [2]byte{'\r', '\n'} {
		return fmt.Errorf("%w: chunk data not followed by CRLF (got %q)", ErrMalformedChunk, b[:])
	}
	return nil
}
