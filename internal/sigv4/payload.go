package sigv4

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
)

// Literal x-amz-content-sha256 values.
const (
	// EmptySHA256 is the hex SHA-256 of an empty body.
	EmptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	// UnsignedPayload means the body is not covered by the signature.
	UnsignedPayload = "UNSIGNED-PAYLOAD"
	// StreamingUnsignedPayloadTrailer is an aws-chunked body without chunk
	// signatures, with a trailing checksum.
	StreamingUnsignedPayloadTrailer = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
	// StreamingPayload is an aws-chunked body with HMAC chunk signatures.
	StreamingPayload = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
	// StreamingPayloadTrailer is StreamingPayload with signed trailers.
	StreamingPayloadTrailer = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"
	// StreamingECDSAPayload is an aws-chunked body signed with SigV4A.
	StreamingECDSAPayload = "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD"
	// StreamingECDSAPayloadTrailer is StreamingECDSAPayload with trailers.
	StreamingECDSAPayloadTrailer = "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD-TRAILER"
)

// validContentSHA256 reports whether v is an acceptable x-amz-content-sha256
// value: 64 lowercase hex digits or one of the literal values above.
func validContentSHA256(v string) bool {
	switch v {
	case UnsignedPayload, StreamingUnsignedPayloadTrailer, StreamingPayload,
		StreamingPayloadTrailer, StreamingECDSAPayload, StreamingECDSAPayloadTrailer:
		return true
	}
	if len(v) != 64 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// NewPayloadVerifier wraps body so that everything read through it is hashed
// with SHA-256. When body reports io.EOF the digest is compared with
// expectedHex (lowercase hex SHA-256); on a mismatch Read returns an error
// wrapping ErrContentSHA256Mismatch instead of io.EOF, and keeps returning it.
// Nothing is buffered: bytes pass straight through to the caller, so a caller
// must not commit what it read until it has seen io.EOF.
func NewPayloadVerifier(body io.Reader, expectedHex string) io.Reader {
	return &payloadVerifier{body: body, hash: sha256.New(), expected: expectedHex}
}

type payloadVerifier struct {
	body     io.Reader
	hash     hash.Hash
	expected string
	err      error // sticky end state: io.EOF or the mismatch
}

func (p *payloadVerifier) Read(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n, err := p.body.Read(b)
	p.hash.Write(b[:n])
	if err == io.EOF {
		got := hex.EncodeToString(p.hash.Sum(nil))
		if got != p.expected {
			p.err = fmt.Errorf("%w: computed %s, client sent %s", ErrContentSHA256Mismatch, got, p.expected)
		} else {
			p.err = io.EOF
		}
		return n, p.err
	}
	return n, err
}
