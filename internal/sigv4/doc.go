// Package sigv4 verifies AWS Signature Version 4 on incoming S3 requests.
//
// It handles both forms of authentication S3 clients use:
//
//   - the Authorization header ("AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=..."),
//   - presigned URLs (X-Amz-Algorithm, X-Amz-Credential, X-Amz-Date, X-Amz-Expires,
//     X-Amz-SignedHeaders and X-Amz-Signature query parameters).
//
// Verifier.Verify never reads the request body. For a signed payload the caller
// wraps the body with NewPayloadVerifier, which hashes the bytes as they stream
// through and fails the final read when the digest differs from the value the
// client signed. Streaming (aws-chunked) bodies are verified chunk by chunk from
// the Result's SigningKey, Signature, Date and Scope, using the primitives in
// signingkey.go.
//
// Canonicalisation follows what S3 clients (AWS SDKs, the AWS CLI, boto3,
// minio-go) sign for S3, which differs from the generic SigV4 rules: the path is
// encoded once and never normalised, so keys such as "a//b", "../x" or "./"
// are signed exactly as they are stored.
//
// Errors are the sentinels in errors.go, wrapped with detail; callers map them
// to S3 error codes with errors.Is.
package sigv4
