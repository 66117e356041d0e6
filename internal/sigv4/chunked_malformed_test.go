package sigv4

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

func TestChunkedMalformed(t *testing.T) {
	sig := strings.Repeat("0", 64)
	cases := []struct {
		name, mode, body string
		want             error
	}{
		{"bad size", StreamingPayload, "zz;chunk-signature=" + sig + "\r\n", ErrMalformedChunk},
		{"empty size", StreamingPayload, ";chunk-signature=" + sig + "\r\n", ErrMalformedChunk},
		{"signed without signature", StreamingPayload, "5\r\nhello\r\n", ErrMalformedChunk},
		{"short signature", StreamingPayload, "5;chunk-signature=abc\r\nhello\r\n", ErrMalformedChunk},
		{"other extension", StreamingPayload, "5;foo=" + sig + "\r\nhello\r\n", ErrMalformedChunk},
		{"bare LF", StreamingPayload, "5;chunk-signature=" + sig + "\nhello\r\n", ErrMalformedChunk},
		{"huge size", StreamingPayload, "7fffffffffffffff;chunk-signature=" + sig + "\r\n", ErrMalformedChunk},
		{"too large", StreamingPayload, "1000001;chunk-signature=" + sig + "\r\n", ErrChunkTooLarge},
		{"long line", StreamingUnsignedPayloadTrailer, strings.Repeat("0", 5000) + "\r\n", ErrMalformedChunk},
		{"unsigned bad size", StreamingUnsignedPayloadTrailer, "-5\r\nhello\r\n0\r\n\r\n", ErrMalformedChunk},
		{"unsigned missing CRLF", StreamingUnsignedPayloadTrailer, "5\r\nhelloX0\r\n\r\n", ErrMalformedChunk},
		{"unsigned data after end", StreamingUnsignedPayloadTrailer, "5\r\nhello\r\n0\r\n\r\nextra", ErrMalformedTrailer},
		{"unsigned data after trailers", StreamingUnsignedPayloadTrailer, "5\r\nhello\r\n0\r\n\r\n\r\nextra", ErrMalformedTrailer},
		{"empty body", StreamingUnsignedPayloadTrailer, "", io.ErrUnexpectedEOF},
	}
	for _, c := range cases {
		decoded := int64(-1)
		if c.mode != StreamingUnsignedPayloadTrailer {
			decoded = 1 << 40
		}
		_, _, err := decodeChunked(t, strings.NewReader(c.body), chunkedResult(c.mode), decoded)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: err %v, want %v", c.name, err, c.want)
		}
	}
	// Data after the end of a signed body.
	body := encodeChunked(t, chunkedResult(StreamingPayload), []byte("hello"), 8192, nil)
	for _, extra := range []string{"x", "x-amz-checksum-crc32:AAAAAA==\r\n\r\n", "\r\n\r\n\r\n\r\n\r\nx"} {
		if _, _, err := decodeChunked(t, strings.NewReader(string(body)+extra), chunkedResult(StreamingPayload), 5); !errors.Is(err, ErrMalformedChunk) {
			t.Errorf("extra %q: %v", extra, err)
		}
	}
	// A few blank lines after the end are fine.
	if _, _, err := decodeChunked(t, strings.NewReader(string(body)+"\r\n\n"), chunkedResult(StreamingPayload), 5); err != nil {
		t.Errorf("trailing blank lines: %v", err)
	}
}

func TestNewChunkedReaderErrors(t *testing.T) {
	for _, mode := range []string{StreamingPayload, StreamingPayloadTrailer} {
		if _, err := NewChunkedReader(strings.NewReader(""), chunkedResult(mode), -1, nil); !errors.Is(err, ErrMissingDecodedLength) {
			t.Errorf("%s without decoded length: %v", mode, err)
		}
	}
	if _, err := NewChunkedReader(strings.NewReader(""), chunkedResult(StreamingUnsignedPayloadTrailer), -2, nil); !errors.Is(err, ErrMissingDecodedLength) {
		t.Errorf("negative decoded length: %v", err)
	}
	for _, mode := range []string{StreamingECDSAPayload, StreamingECDSAPayloadTrailer} {
		if _, err := NewChunkedReader(strings.NewReader(""), chunkedResult(mode), 0, nil); !errors.Is(err, ErrUnsupportedAlgorithm) {
			t.Errorf("%s: %v", mode, err)
		}
	}
	for _, mode := range []string{UnsignedPayload, EmptySHA256, ""} {
		if _, err := NewChunkedReader(strings.NewReader(""), chunkedResult(mode), 0, nil); !errors.Is(err, ErrInvalidContentSHA256) {
			t.Errorf("%q: %v", mode, err)
		}
	}
	if _, err := NewChunkedEncoder(strings.NewReader(""), chunkedResult(StreamingPayload), 0, nil); err == nil {
		t.Error("encoder accepted chunk size 0")
	}
	if _, err := NewChunkedEncoder(strings.NewReader(""), chunkedResult(StreamingPayload), 10, func() []Trailer { return nil }); err == nil {
		t.Error("encoder accepted trailers without a trailer mode")
	}
}

// TestChunkedBoundedMemory: a header claiming a large chunk does not make
// the reader allocate it before the data arrives.
func TestChunkedBoundedMemory(t *testing.T) {
	body := "ffffff;chunk-signature=" + strings.Repeat("0", 64) + "\r\n" + strings.Repeat("x", 1000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 20 {
		if _, _, err := decodeChunked(t, strings.NewReader(body), chunkedResult(StreamingPayload), 1<<30); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 20<<20 {
		t.Errorf("allocated %d bytes for 20 truncated 16 MiB claims", grew)
	}
}

func TestChunkedErrorsAreSticky(t *testing.T) {
	body := encodeChunked(t, chunkedResult(StreamingPayload), []byte("hello"), 8192, nil)
	body[bytes.Index(body, []byte("hello"))] = 'j'
	cr, _ := NewChunkedReader(bytes.NewReader(body), chunkedResult(StreamingPayload), 5, nil)
	_, err := io.ReadAll(cr)
	if _, err2 := cr.Read(make([]byte, 10)); err2 != err || !errors.Is(err, ErrChunkSignatureMismatch) {
		t.Errorf("first %v, then %v", err, err2)
	}
	if n, err := cr.Read(nil); n != 0 || err == nil {
		t.Errorf("empty read after failure: %d, %v", n, err)
	}
}
