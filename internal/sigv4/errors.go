package sigv4

import "errors"

// Sentinel errors returned by Verify and by the payload verifier. They are
// wrapped with detail (fmt.Errorf("%w: ...")); test them with errors.Is. The
// comment on each names the S3 error code it corresponds to.
var (
	// ErrMissingAuth reports a request with no Authorization header and no
	// presigned query parameters: an anonymous request. The caller decides
	// whether anonymous access is allowed.
	ErrMissingAuth = errors.New("request is not signed")

	// ErrInvalidAccessKeyID reports an unknown access key (InvalidAccessKeyId).
	ErrInvalidAccessKeyID = errors.New("the AWS access key ID does not exist in our records")

	// ErrInvalidToken reports a session token that does not open, or was
	// not issued for the request's access key (InvalidToken).
	ErrInvalidToken = errors.New("the provided token is malformed or otherwise invalid")

	// ErrExpiredToken reports a session token past its expiry
	// (ExpiredToken).
	ErrExpiredToken = errors.New("the provided token has expired")

	// ErrSignatureDoesNotMatch reports a signature that does not verify
	// (SignatureDoesNotMatch).
	ErrSignatureDoesNotMatch = errors.New("the request signature we calculated does not match the signature you provided")

	// ErrRequestTimeTooSkewed reports a request time too far from the server's
	// clock (RequestTimeTooSkewed).
	ErrRequestTimeTooSkewed = errors.New("the difference between the request time and the current time is too large")

	// ErrExpired reports a presigned URL used after X-Amz-Date + X-Amz-Expires
	// (AccessDenied, "Request has expired").
	ErrExpired = errors.New("request has expired")

	// ErrAuthHeaderMalformed reports an Authorization header that cannot be
	// parsed or whose credential scope is wrong (AuthorizationHeaderMalformed).
	ErrAuthHeaderMalformed = errors.New("the authorization header is malformed")

	// ErrQueryMalformed reports bad presigned-URL query parameters
	// (AuthorizationQueryParametersError).
	ErrQueryMalformed = errors.New("the authorization query parameters are malformed")

	// ErrMissingDate reports header authentication with neither X-Amz-Date nor
	// a usable Date header (AccessDenied).
	ErrMissingDate = errors.New("AWS authentication requires a valid Date or x-amz-date header")

	// ErrUnsupportedAlgorithm reports a signing algorithm other than
	// AWS4-HMAC-SHA256, including SigV2 and SigV4A (ECDSA) requests.
	ErrUnsupportedAlgorithm = errors.New("unsupported authorization type")

	// ErrMultipleAuth reports a request carrying both an Authorization header
	// and presigned query parameters (InvalidArgument, "Only one auth
	// mechanism allowed").
	ErrMultipleAuth = errors.New("only one auth mechanism allowed")

	// ErrMissingContentSHA256 reports header authentication without the
	// x-amz-content-sha256 header, which S3 requires (InvalidRequest).
	ErrMissingContentSHA256 = errors.New("missing required header for this request: x-amz-content-sha256")

	// ErrInvalidContentSHA256 reports an x-amz-content-sha256 value that is
	// neither a lowercase hex SHA-256 nor one of the recognised literal values
	// (InvalidArgument).
	ErrInvalidContentSHA256 = errors.New("x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-*, or a valid sha256 value")

	// ErrContentSHA256Mismatch reports a body whose SHA-256 differs from the
	// signed x-amz-content-sha256 (XAmzContentSHA256Mismatch).
	ErrContentSHA256Mismatch = errors.New("the provided 'x-amz-content-sha256' header does not match what was computed")
)
