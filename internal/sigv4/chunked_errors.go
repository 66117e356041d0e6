package sigv4

import (
	"errors"
	"fmt"
)

// Errors returned by NewChunkedReader and ChunkedReader.Read, wrapped with
// detail; test them with errors.Is. The comment on each names the S3 error
// code a server answers with.
var (
	// ErrChunkSignatureMismatch reports an aws-chunked chunk whose
	// chunk-signature does not verify: altered, reordered, dropped or
	// inserted chunks (SignatureDoesNotMatch, 403).
	ErrChunkSignatureMismatch = errors.New("the chunk signature we calculated does not match the signature you provided")

	// ErrTrailerSignatureMismatch reports an x-amz-trailer-signature that
	// does not verify (SignatureDoesNotMatch, 403).
	ErrTrailerSignatureMismatch = errors.New("the trailer signature we calculated does not match the signature you provided")

	// ErrMalformedChunk reports aws-chunked framing that cannot be parsed: a
	// bad chunk header, a missing CRLF, data after the final chunk. A body
	// that ends early also wraps io.ErrUnexpectedEOF. Map the truncated case
	// (errors.Is(err, io.ErrUnexpectedEOF)) to IncompleteBody (400) and the
	// rest to InvalidRequest (400).
	ErrMalformedChunk = errors.New("the aws-chunked body is malformed")

	// ErrChunkTooLarge reports a signed chunk larger than MaxChunkSize. It
	// wraps ErrMalformedChunk (InvalidRequest, 400).
	ErrChunkTooLarge = fmt.Errorf("%w: chunk larger than %d bytes", ErrMalformedChunk, MaxChunkSize)

	// ErrMalformedTrailer reports a trailer section that does not parse,
	// repeats a trailer, sends one not announced in x-amz-trailer, omits an
	// announced one, or lacks x-amz-trailer-signature in a signed-trailer
	// body (MalformedTrailerError, 400).
	ErrMalformedTrailer = errors.New("the request contained trailing data that was not well-formed")

	// ErrEmptyTrailer reports an announced trailer sent without a value
	// (or with blanks only): a checksum that would check nothing
	// (InvalidRequest, 400, as an invalid trailing checksum).
	ErrEmptyTrailer = errors.New("the trailing header has no value")

	// ErrDecodedLengthMismatch reports a body whose decoded length differs
	// from x-amz-decoded-content-length (IncompleteBody, 400).
	ErrDecodedLengthMismatch = errors.New("the decoded body length does not match x-amz-decoded-content-length")

	// ErrMissingDecodedLength reports a signed aws-chunked request without
	// x-amz-decoded-content-length (MissingContentLength, 411).
	ErrMissingDecodedLength = errors.New("x-amz-decoded-content-length is required for an aws-chunked upload")
)
