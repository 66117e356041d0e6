package sigv4

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzChunkedReader feeds arbitrary bodies to the decoder in every mode: it
// must not panic, must stop (the input is finite), must hold at most one
// chunk's worth of memory, and may only succeed with exactly the declared
// number of bytes, never more than it was given.
func FuzzChunkedReader(f *testing.F) {
	ts := []Trailer{{"x-amz-checksum-crc32", "NhCmhg=="}}
	for m, mode := range chunkedModes {
		var tr []Trailer
		if mode != StreamingPayload {
			tr = ts
		}
		for _, data := range []string{"", "hello", strings.Repeat("0123456789", 30)} {
			f.Add(encodeChunked(f, chunkedResult(mode), []byte(data), 64, tr), uint8(m), int64(len(data)))
		}
	}
	f.Add([]byte("5\r\nhello\r\n0\r\nx-amz-checksum-crc32:NhCmhg==\r\n\r\n"), uint8(2), int64(5))
	f.Add([]byte("5\r\nhello\r\n0\r\nx-amz-checksum-crc32:NhCmhg==\n\r\n\r\n"), uint8(2), int64(5))
	f.Add([]byte("0\r\n\r\n\r\n:\r\nx:y\r\n"), uint8(2), int64(-1))
	f.Add([]byte("ffffff;chunk-signature="+strings.Repeat("a", 64)+"\r\n"), uint8(0), int64(1<<40))
	f.Add([]byte("0;chunk-signature="+strings.Repeat("a", 64)+"\r\nx-amz-trailer-signature:"), uint8(1), int64(0))

	f.Fuzz(func(t *testing.T, body []byte, m uint8, decoded int64) {
		mode := chunkedModes[int(m)%len(chunkedModes)]
		if decoded < -1 {
			decoded = -1
		}
		if mode != StreamingUnsignedPayloadTrailer && decoded < 0 {
			decoded = 0
		}
		cr, err := NewChunkedReader(bytes.NewReader(body), chunkedResult(mode), decoded, []string{"x-amz-checksum-crc32", "x"})
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		buf := make([]byte, 1000)
		for reads := 0; ; reads++ {
			k, err := cr.Read(buf)
			n += int64(k)
			if k < 0 || k > len(buf) || reads > 2*len(body)+10 {
				t.Fatalf("read returned %d after %d reads", k, reads)
			}
			if err == io.EOF {
				if decoded >= 0 && n != decoded || n > int64(len(body)) {
					t.Fatalf("EOF after %d bytes, declared %d, body %d", n, decoded, len(body))
				}
				break
			}
			if err != nil {
				known := []error{ErrMalformedChunk, ErrMalformedTrailer, ErrChunkSignatureMismatch,
					ErrTrailerSignatureMismatch, ErrDecodedLengthMismatch, ErrEmptyTrailer}
				if !slicesContainsErr(known, err) {
					t.Fatalf("unexpected error %v", err)
				}
				if cap(cr.buf) > 2*len(body)+64<<10 {
					t.Fatalf("buffer of %d bytes for a %d-byte body", cap(cr.buf), len(body))
				}
				break
			}
		}
	})
}

func slicesContainsErr(targets []error, err error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}
