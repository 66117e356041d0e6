package sigv4

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// chunkedResult is a Result for the given mode signed with the AWS example
// credentials, as Verify would return it.
func chunkedResult(mode string) *Result {
	return &Result{
		AccessKey:   exampleAccessKey,
		PayloadHash: mode,
		Signature:   "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9",
		SigningKey:  SigningKey(exampleSecret, "20130524", "us-east-1", "s3"),
		Date:        mustTime("20130524T000000Z"),
		Scope:       "20130524/us-east-1/s3/aws4_request",
	}
}

var chunkedModes = []string{StreamingPayload, StreamingPayloadTrailer, StreamingUnsignedPayloadTrailer}

// encodeChunked encodes data with NewChunkedEncoder.
func encodeChunked(t testing.TB, res *Result, data []byte, chunkSize int, trailers []Trailer) []byte {
	t.Helper()
	var fn func() []Trailer
	if trailers != nil {
		fn = func() []Trailer { return append([]Trailer(nil), trailers...) }
	}
	enc, err := NewChunkedEncoder(bytes.NewReader(data), res, chunkSize, fn)
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(enc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// decodeChunked decodes body completely, returning what Read returned
// before the error (nil at io.EOF).
func decodeChunked(t testing.TB, body io.Reader, res *Result, decoded int64, names ...string) ([]byte, *ChunkedReader, error) {
	t.Helper()
	cr, err := NewChunkedReader(body, res, decoded, names)
	if err != nil {
		t.Fatalf("NewChunkedReader: %v", err)
	}
	out, err := io.ReadAll(cr)
	return out, cr, err
}

func trailerNames(ts []Trailer) []string {
	var names []string
	for _, t := range ts {
		names = append(names, t.Name)
	}
	return names
}

func repeatA(n int) []byte { return bytes.Repeat([]byte{'a'}, n) }

// awsChunkedExample builds the PUT of the AWS documentation's chunked-upload
// example ("Signature Calculations for the Authorization Header:
// Transferring Payload in Multiple Chunks", seed signature 4f232c43...) or,
// with trailer, its trailing-checksum sequel ("Signature calculations for
// trailing headers", seed 106e2a8a..., which also signs x-amz-trailer).
func awsChunkedExample(body []byte, trailer bool) *http.Request {
	r := httptest.NewRequest(http.MethodPut, "http://s3.amazonaws.com/examplebucket/chunkObject.txt", bytes.NewReader(body))
	r.Header.Set("X-Amz-Date", "20130524T000000Z")
	r.Header.Set("X-Amz-Storage-Class", "REDUCED_REDUNDANCY")
	r.Header.Set("Content-Encoding", "aws-chunked")
	r.Header.Set("X-Amz-Decoded-Content-Length", "66560")
	if trailer {
		r.Header.Set("X-Amz-Content-Sha256", StreamingPayloadTrailer)
		r.Header.Set("X-Amz-Trailer", "x-amz-checksum-crc32c")
		r.Header.Set("Authorization", "AWS4-HMAC-SHA256 "+exampleCred+
			",SignedHeaders=content-encoding;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class;x-amz-trailer"+
			",Signature=106e2a8a18243abcf37539882f36619c00e2dfc72633413f02d3b74544bfeb8e")
		return r
	}
	r.Header.Set("X-Amz-Content-Sha256", StreamingPayload)
	r.Header.Set("Content-Length", "66824")
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 "+exampleCred+
		",SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class"+
		",Signature=4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9")
	return r
}

// slowReader returns at most n bytes per Read, to split chunks across reads.
type slowReader struct {
	r io.Reader
	n int
}

func (s slowReader) Read(p []byte) (int, error) {
	if len(p) > s.n {
		p = p[:s.n]
	}
	return s.r.Read(p)
}
