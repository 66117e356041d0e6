package sigv4

import (
	"crypto/sha256"
	"encoding/hex"
)

// String-to-sign algorithms and the trailer carrying the trailer signature,
// from "Signature Calculations for the Authorization Header: Transferring
// Payload in Multiple Chunks" and its trailing-header sequel.
const (
	chunkAlgorithm       = "AWS4-HMAC-SHA256-PAYLOAD"
	trailerAlgorithm     = "AWS4-HMAC-SHA256-TRAILER"
	trailerSignatureName = "x-amz-trailer-signature"
)

// chunkSigner computes the chained signatures of an aws-chunked body: each
// chunk's signature covers the previous one, starting from the request's seed
// signature, so chunks cannot be altered, dropped or reordered.
type chunkSigner struct {
	key   []byte
	date  string // the request's X-Amz-Date
	scope string
	prev  string // the last signature in the chain
}

func newChunkSigner(res *Result) chunkSigner {
	return chunkSigner{
		key:   res.SigningKey,
		date:  res.Date.UTC().Format(AmzDateFormat),
		scope: res.Scope,
		prev:  res.Signature,
	}
}

// chunk returns the signature of a chunk whose data hashes to sum:
//
//	AWS4-HMAC-SHA256-PAYLOAD\n<date>\n<scope>\n<previous signature>\n<sha256("")>\n<sha256(data)>
func (s *chunkSigner) chunk(sum []byte) string {
	return signHex(s.key, stringToSign(chunkAlgorithm, s.date, s.scope, s.prev, EmptySHA256, hex.EncodeToString(sum)))
}

// trailer returns the signature of the trailer section whose canonical form
// (see canonicalTrailers) is canonical:
//
//	AWS4-HMAC-SHA256-TRAILER\n<date>\n<scope>\n<final chunk's signature>\n<sha256(canonical)>
func (s *chunkSigner) trailer(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return signHex(s.key, stringToSign(trailerAlgorithm, s.date, s.scope, s.prev, hex.EncodeToString(sum[:])))
}
