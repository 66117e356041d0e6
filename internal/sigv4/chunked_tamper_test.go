package sigv4

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestChunkedTamperedChunk: a changed byte in the second chunk fails that
// chunk's signature before any of its bytes are returned.
func TestChunkedTamperedChunk(t *testing.T) {
	data := randomBytes(2, 3*8192)
	for _, mode := range []string{StreamingPayload, StreamingPayloadTrailer} {
		body := encodeChunked(t, chunkedResult(mode), data, 8192, nil)
		second := bytes.Index(body, data[8192:8192+64])
		for _, off := range []int{0, 100, 8191} {
			tampered := bytes.Clone(body)
			tampered[second+off] ^= 1
			got, _, err := decodeChunked(t, bytes.NewReader(tampered), chunkedResult(mode), int64(len(data)))
			if !errors.Is(err, ErrChunkSignatureMismatch) {
				t.Fatalf("%s offset %d: err %v", mode, off, err)
			}
			if !bytes.Equal(got, data[:8192]) {
				t.Fatalf("%s offset %d: returned %d bytes, want exactly the first chunk", mode, off, len(got))
			}
		}
	}
}

// TestChunkedReorderedChunks: two equal-sized chunks swapped each carry a
// valid signature of their own bytes; only the chain catches them.
func TestChunkedReorderedChunks(t *testing.T) {
	data := randomBytes(3, 4*1000)
	body := encodeChunked(t, chunkedResult(StreamingPayload), data, 1000, nil)
	chunks := splitChunks(body)
	if len(chunks) != 5 {
		t.Fatalf("%d chunks", len(chunks))
	}
	for _, swap := range [][2]int{{0, 1}, {1, 2}, {2, 3}} {
		c := append([][]byte(nil), chunks...)
		c[swap[0]], c[swap[1]] = c[swap[1]], c[swap[0]]
		got, _, err := decodeChunked(t, bytes.NewReader(bytes.Join(c, nil)), chunkedResult(StreamingPayload), int64(len(data)))
		if !errors.Is(err, ErrChunkSignatureMismatch) || !bytes.Equal(got, data[:1000*swap[0]]) {
			t.Errorf("swap %v: %d bytes, %v", swap, len(got), err)
		}
	}
	// A dropped chunk, and a duplicated one.
	dropped := bytes.Join(append(append([][]byte(nil), chunks[:1]...), chunks[2:]...), nil)
	if _, _, err := decodeChunked(t, bytes.NewReader(dropped), chunkedResult(StreamingPayload), 3000); !errors.Is(err, ErrChunkSignatureMismatch) {
		t.Errorf("dropped chunk: %v", err)
	}
	dup := bytes.Join(append([][]byte{chunks[0]}, chunks...), nil)
	if _, _, err := decodeChunked(t, bytes.NewReader(dup), chunkedResult(StreamingPayload), 5000); !errors.Is(err, ErrChunkSignatureMismatch) {
		t.Errorf("duplicated chunk: %v", err)
	}
}

// splitChunks splits a signed encoding into its chunks (header, data and
// CRLF each); the last element is the final chunk and what follows.
func splitChunks(body []byte) [][]byte {
	var out [][]byte
	for len(body) > 0 {
		i := bytes.IndexByte(body, ';')
		var size int
		_, _ = fmt.Sscanf(string(body[:i]), "%x", &size)
		end := bytes.Index(body, []byte("\r\n")) + 2 + size
		if size > 0 {
			end += 2
		} else {
			end = len(body)
		}
		out = append(out, body[:end])
		body = body[end:]
	}
	return out
}

func TestChunkedWrongFinalSignature(t *testing.T) {
	data := randomBytes(4, 10000)
	for _, mode := range []string{StreamingPayload, StreamingPayloadTrailer} {
		body := encodeChunked(t, chunkedResult(mode), data, 4096, nil)
		i := bytes.LastIndex(body, []byte("0;chunk-signature=")) + len("0;chunk-signature=")
		body[i] ^= 1
		got, _, err := decodeChunked(t, bytes.NewReader(body), chunkedResult(mode), int64(len(data)))
		if !errors.Is(err, ErrChunkSignatureMismatch) {
			t.Errorf("%s: %v", mode, err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s: the verified data chunks should have been returned", mode)
		}
	}
}

func TestChunkedWrongSeed(t *testing.T) {
	body := encodeChunked(t, chunkedResult(StreamingPayload), []byte("hello"), 8192, nil)
	res := chunkedResult(StreamingPayload)
	res.Signature = strings.Repeat("0", 64)
	if got, _, err := decodeChunked(t, bytes.NewReader(body), res, 5); !errors.Is(err, ErrChunkSignatureMismatch) || len(got) != 0 {
		t.Errorf("%q, %v", got, err)
	}
	res = chunkedResult(StreamingPayload)
	res.SigningKey = SigningKey("other", "20130524", "us-east-1", "s3")
	if _, _, err := decodeChunked(t, bytes.NewReader(body), res, 5); !errors.Is(err, ErrChunkSignatureMismatch) {
		t.Errorf("other key: %v", err)
	}
}

func TestChunkedDecodedLengthMismatch(t *testing.T) {
	data := randomBytes(5, 3*1000)
	for _, mode := range chunkedModes {
		body := encodeChunked(t, chunkedResult(mode), data, 1000, nil)
		// Declared longer: every chunk verifies, the total falls short.
		got, _, err := decodeChunked(t, bytes.NewReader(body), chunkedResult(mode), 3001)
		if !errors.Is(err, ErrDecodedLengthMismatch) || !bytes.Equal(got, data) {
			t.Errorf("%s declared longer: %d bytes, %v", mode, len(got), err)
		}
		// Declared shorter: the chunk that overflows is refused before any
		// of it is returned.
		got, _, err = decodeChunked(t, bytes.NewReader(body), chunkedResult(mode), 2500)
		if !errors.Is(err, ErrDecodedLengthMismatch) || !bytes.Equal(got, data[:2000]) {
			t.Errorf("%s declared shorter: %d bytes, %v", mode, len(got), err)
		}
	}
	// Unsigned without the header: no length check.
	body := encodeChunked(t, chunkedResult(StreamingUnsignedPayloadTrailer), data, 1000, nil)
	if got, _, err := decodeChunked(t, bytes.NewReader(body), chunkedResult(StreamingUnsignedPayloadTrailer), -1); err != nil || !bytes.Equal(got, data) {
		t.Errorf("unsigned without length: %v", err)
	}
}

// TestChunkedTruncated cuts a body at every byte: decoding must fail (with
// a truncation error when the cut falls inside a chunk), except when only
// the final CRLF is missing.
func TestChunkedTruncated(t *testing.T) {
	data := randomBytes(6, 300)
	for _, mode := range chunkedModes {
		var trailers []Trailer
		if mode != StreamingPayload {
			trailers = []Trailer{{"x-amz-checksum-crc32c", "AAAAAA=="}}
		}
		body := encodeChunked(t, chunkedResult(mode), data, 128, trailers)
		dataEnd := bytes.LastIndex(body, []byte("\r\n0")) // end of the last data chunk
		for cut := 0; cut < len(body); cut++ {
			got, _, err := decodeChunked(t, bytes.NewReader(body[:cut]), chunkedResult(mode), int64(len(data)), trailerNames(trailers)...)
			if err == nil {
				if cut < len(bytes.TrimRight(body, "\r\n")) || !bytes.Equal(got, data) {
					t.Fatalf("%s cut at %d/%d accepted", mode, cut, len(body))
				}
				continue
			}
			if cut <= dataEnd && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, ErrChunkSignatureMismatch) {
				t.Fatalf("%s cut at %d/%d: %v, want a truncation error", mode, cut, len(body), err)
			}
			if errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, ErrMalformedChunk) {
				t.Fatalf("%s: %v must wrap ErrMalformedChunk", mode, err)
			}
		}
	}
}
