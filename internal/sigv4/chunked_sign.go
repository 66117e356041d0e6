package sigv4

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultChunkSize is the chunk size AWS SDKs and minio-go use.
const DefaultChunkSize = 64 << 10

// ChunkedUpload describes an aws-chunked upload for SignChunkedRequest.
type ChunkedUpload struct {
	// Mode is StreamingPayload, StreamingPayloadTrailer or
	// StreamingUnsignedPayloadTrailer.
	Mode string
	// DecodedLength is the body's length, sent as
	// X-Amz-Decoded-Content-Length; -1 omits the header.
	DecodedLength int64
	// ChunkSize is the data size of each chunk; 0 means DefaultChunkSize.
	ChunkSize int
	// TrailerNames are announced in X-Amz-Trailer; Trailers, called once the
	// body is exhausted, returns their values.
	TrailerNames []string
	Trailers     func() []Trailer
}

// SignChunkedRequest prepares r to upload body as aws-chunked and signs it
// like SignRequest, for tests and tools. It sets Content-Encoding:
// aws-chunked, X-Amz-Decoded-Content-Length and X-Amz-Trailer, signs r with
// u.Mode as the payload hash, and replaces r.Body with a ChunkedEncoder
// chained from the seed signature. r.ContentLength becomes -1, so net/http
// sends the body with Transfer-Encoding: chunked. r is left alone when u is
// invalid.
func SignChunkedRequest(r *http.Request, accessKey, secret, region string, t time.Time, body io.Reader, u ChunkedUpload) error {
	res := &Result{PayloadHash: u.Mode} // the signer is set once r is signed
	chunkSize := u.ChunkSize
	if chunkSize == 0 {
		chunkSize = DefaultChunkSize
	}
	enc, err := NewChunkedEncoder(body, res, chunkSize, u.Trailers)
	if err != nil {
		return err
	}
	if r.Header == nil {
		r.Header = make(http.Header)
	}
	r.Header.Set("Content-Encoding", "aws-chunked")
	if u.DecodedLength >= 0 {
		r.Header.Set("X-Amz-Decoded-Content-Length", strconv.FormatInt(u.DecodedLength, 10))
	}
	if len(u.TrailerNames) > 0 {
		r.Header.Set("X-Amz-Trailer", strings.ToLower(strings.Join(u.TrailerNames, ",")))
	}
	SignRequest(r, accessKey, secret, region, t, u.Mode)
	enc.signer = NewChunkSigner(r, secret, region, t).s
	r.Body = io.NopCloser(enc)
	r.ContentLength = -1
	r.GetBody = nil
	return nil
}

// ChunkSigner chains the chunk signatures of a STREAMING-AWS4-HMAC-SHA256-PAYLOAD
// body, for a client that frames the body itself (jog bench).
type ChunkSigner struct{ s chunkSigner }

// NewChunkSigner starts the chain of r, which SignRequest signed at t for
// region: the seed is r's own signature.
func NewChunkSigner(r *http.Request, secret, region string, t time.Time) *ChunkSigner {
	date := t.UTC().Format(scopeDateFormat)
	auth := r.Header.Get("Authorization")
	return &ChunkSigner{chunkSigner{
		key:   SigningKey(secret, date, region, "s3"),
		date:  t.UTC().Format(AmzDateFormat),
		scope: credential{date: date, region: region, service: "s3", terminator: scopeTerminator}.scope(),
		prev:  auth[strings.LastIndex(auth, "Signature=")+len("Signature="):],
	}}
}

// Next returns the signature of the next chunk, whose data hashes (SHA-256)
// to sum; the final, empty chunk is signed too.
func (s *ChunkSigner) Next(sum []byte) string {
	s.s.prev = s.s.chunk(sum)
	return s.s.prev
}
