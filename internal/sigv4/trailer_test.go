package sigv4

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

const crc32Name = "x-amz-checksum-crc32"

// TestTrailerClientFormats decodes the endings real clients write for an
// unsigned body ("hello" in one chunk).
func TestTrailerClientFormats(t *testing.T) {
	cases := []struct {
		name, tail string
		announced  []string
		want       string // value of x-amz-checksum-crc32
	}{
		// aws-sdk-go-v2 (service/internal/checksum/aws_chunked_encoding.go).
		{"aws-sdk-go-v2", "0\r\nx-amz-checksum-crc32:NhCmhg==\r\n\r\n", []string{crc32Name}, "NhCmhg=="},
		{"aws-sdk-go-v2 no trailers", "0\r\n\r\n", nil, ""},
		// minio-go's StreamingUSReader: lines end in "\n", then "\r\n\r\n".
		{"minio-go", "0\r\nx-amz-checksum-crc32:NhCmhg==\n\r\n\r\n", []string{crc32Name}, "NhCmhg=="},
		// The body ends right after the final chunk (AWS SDK for JavaScript
		// without a checksum).
		{"bare final chunk", "0\r\n", nil, ""},
		{"final chunk without CRLF", "0", nil, ""},
		// The final chunk's CRLF before the trailers; spaces around the value.
		{"blank line first", "0\r\n\r\nX-Amz-Checksum-CRC32:  NhCmhg== \r\n\r\n", []string{"X-Amz-Checksum-Crc32"}, "NhCmhg=="},
		{"missing final CRLF", "0\r\nx-amz-checksum-crc32:NhCmhg==\r\n", []string{crc32Name}, "NhCmhg=="},
		{"comma-separated announcement", "0\r\nx-amz-checksum-crc32:NhCmhg==\r\nx-amz-meta-a:b\r\n\r\n", []string{"x-amz-meta-a, x-amz-checksum-crc32"}, "NhCmhg=="},
	}
	for _, c := range cases {
		body := "5\r\nhello\r\n" + c.tail
		got, cr, err := decodeChunked(t, strings.NewReader(body), chunkedResult(StreamingUnsignedPayloadTrailer), 5, c.announced...)
		if err != nil || string(got) != "hello" {
			t.Errorf("%s: %q, %v", c.name, got, err)
			continue
		}
		if v := cr.Trailer(crc32Name); v != c.want {
			t.Errorf("%s: trailer %q, want %q", c.name, v, c.want)
		}
	}
}

func TestTrailerErrors(t *testing.T) {
	sig := strings.Repeat("0", 64)
	cases := []struct {
		name, tail string
		announced  []string
		want       error
	}{
		{"not announced", "0\r\nx-amz-checksum-crc32:NhCmhg==\r\n\r\n", nil, ErrMalformedTrailer},
		{"other than announced", "0\r\nx-amz-checksum-crc32c:NhCmhg==\r\n\r\n", []string{crc32Name}, ErrMalformedTrailer},
		{"announced, not sent", "0\r\n\r\n", []string{crc32Name}, ErrMalformedTrailer},
		{"announced, body ends", "0\r\n", []string{crc32Name}, ErrMalformedTrailer},
		{"sent twice", "0\r\nx-amz-checksum-crc32:NhCmhg==\r\nx-amz-checksum-crc32:NhCmhg==\r\n\r\n", []string{crc32Name}, ErrMalformedTrailer},
		{"no colon", "0\r\nx-amz-checksum-crc32 NhCmhg==\r\n\r\n", []string{crc32Name}, ErrMalformedTrailer},
		{"empty name", "0\r\n:NhCmhg==\r\n\r\n", []string{crc32Name}, ErrMalformedTrailer},
		{"bad name", "0\r\nx amz:1\r\n\r\n", []string{"x amz"}, ErrMalformedTrailer},
		{"signature in unsigned body", "0\r\nx-amz-checksum-crc32:NhCmhg==\r\nx-amz-trailer-signature:" + sig + "\r\n\r\n", []string{crc32Name}, ErrMalformedTrailer},
		{"cut inside a trailer", "0\r\nx-amz-checksum-crc32:NhCm", []string{crc32Name}, io.ErrUnexpectedEOF},
		{"empty value", "0\r\nx-amz-checksum-crc32:\r\n\r\n", []string{crc32Name}, ErrEmptyTrailer},
		{"blank value", "0\r\nx-amz-checksum-crc32: \t \r\n\r\n", []string{crc32Name}, ErrEmptyTrailer},
		{"data after trailers", "0\r\nx-amz-checksum-crc32:NhCmhg==\r\n\r\nmore", []string{crc32Name}, ErrMalformedChunk},
	}
	for _, c := range cases {
		_, _, err := decodeChunked(t, strings.NewReader("5\r\nhello\r\n"+c.tail), chunkedResult(StreamingUnsignedPayloadTrailer), 5, c.announced...)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: err %v, want %v", c.name, err, c.want)
		}
	}
	var many strings.Builder
	var names []string
	for i := range maxTrailers + 1 {
		fmt.Fprintf(&many, "x-amz-meta-%d:v\r\n", i)
		names = append(names, fmt.Sprintf("x-amz-meta-%d", i))
	}
	if _, _, err := decodeChunked(t, strings.NewReader("0\r\n"+many.String()+"\r\n"), chunkedResult(StreamingUnsignedPayloadTrailer), 0, names...); !errors.Is(err, ErrMalformedTrailer) {
		t.Errorf("too many trailers: %v", err)
	}
}

// signedTrailerBody encodes "hello" in the signed-trailer mode with the
// given trailers, then lets edit rewrite the trailer section.
func signedTrailerBody(t *testing.T, ts []Trailer, edit func(string) string) string {
	body := string(encodeChunked(t, chunkedResult(StreamingPayloadTrailer), []byte("hello"), 8192, ts))
	i := strings.LastIndex(body, "0;chunk-signature=") + len("0;chunk-signature=") + 64 + 2
	return body[:i] + edit(body[i:])
}

func TestSignedTrailer(t *testing.T) {
	ts := []Trailer{{crc32Name, "NhCmhg=="}, {"x-amz-meta-b", "2"}}
	names := trailerNames(ts)
	same := func(s string) string { return s }
	res := chunkedResult(StreamingPayloadTrailer)
	ok := map[string]string{
		"as encoded": signedTrailerBody(t, ts, same),
		// minio-go's layout: trailer lines end in "\n", a CRLF before the
		// signature.
		"minio-go layout": signedTrailerBody(t, ts, func(s string) string {
			s = strings.Replace(s, "NhCmhg==\r\n", "NhCmhg==\n", 1)
			s = strings.Replace(s, "x-amz-meta-b:2\r\n", "x-amz-meta-b:2\n\r\n", 1)
			return s
		}),
		"no final CRLF": signedTrailerBody(t, ts, func(s string) string { return strings.TrimSuffix(s, "\r\n\r\n") }),
	}
	for name, body := range ok {
		got, cr, err := decodeChunked(t, strings.NewReader(body), res, 5, names...)
		if err != nil || string(got) != "hello" || cr.Trailer(crc32Name) != "NhCmhg==" || cr.Trailer("x-amz-meta-b") != "2" {
			t.Errorf("%s: %q, %v", name, got, err)
		}
	}
	// Signed over the sorted trailers but sent in another order (the SDKs
	// that reuse their canonical-headers code sort).
	body := signedTrailerBody(t, ts, func(s string) string {
		return strings.Replace(s, "x-amz-checksum-crc32:NhCmhg==\r\nx-amz-meta-b:2\r\n", "x-amz-meta-b:2\r\nx-amz-checksum-crc32:NhCmhg==\r\n", 1)
	})
	if _, _, err := decodeChunked(t, strings.NewReader(body), res, 5, names...); err != nil {
		t.Errorf("reordered trailers, signed sorted: %v", err)
	}

	bad := map[string]struct {
		edit func(string) string
		want error
	}{
		"altered value": {func(s string) string { return strings.Replace(s, "NhCmhg==", "NhCmhw==", 1) }, ErrTrailerSignatureMismatch},
		"wrong signature": {func(s string) string {
			i := strings.Index(s, "x-amz-trailer-signature:") + len("x-amz-trailer-signature:")
			return s[:i] + strings.Repeat("0", 64) + s[i+64:]
		}, ErrTrailerSignatureMismatch},
		"dropped trailer": {func(s string) string { return strings.Replace(s, "x-amz-meta-b:2\r\n", "", 1) }, ErrMalformedTrailer},
		"missing signature": {func(s string) string {
			i := strings.Index(s, "x-amz-trailer-signature:")
			return s[:i] + "\r\n"
		}, ErrMalformedTrailer},
		"trailer after signature": {func(s string) string {
			return strings.TrimSuffix(s, "\r\n") + "x-amz-meta-c:3\r\n\r\n"
		}, ErrMalformedChunk},
	}
	for name, c := range bad {
		body := signedTrailerBody(t, ts, c.edit)
		_, cr, err := decodeChunked(t, strings.NewReader(body), res, 5, names...)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: err %v, want %v", name, err, c.want)
		}
		if cr.Trailer(crc32Name) != "" {
			t.Errorf("%s: trailer exposed after a failure", name)
		}
	}
	// A trailer injected that the client did not announce.
	body = signedTrailerBody(t, ts, func(s string) string { return "x-amz-meta-c:3\r\n" + s })
	if _, _, err := decodeChunked(t, strings.NewReader(body), res, 5, append(names, "x-amz-meta-c")...); !errors.Is(err, ErrTrailerSignatureMismatch) {
		t.Errorf("injected trailer: %v", err)
	}
	// No trailers at all, none announced: nothing to sign.
	if _, _, err := decodeChunked(t, strings.NewReader(signedTrailerBody(t, nil, func(string) string { return "\r\n" })), res, 5); err != nil {
		t.Errorf("no trailers: %v", err)
	}
}
