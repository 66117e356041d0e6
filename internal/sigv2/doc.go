// Package sigv2 verifies AWS Signature Version 2 on incoming S3 requests, for
// older clients such as s3cmd (signature_v2 = True), boto 2 and botocore with
// signature_version "s3".
//
// Two forms are accepted:
//
//   - the Authorization header "AWS AccessKeyId:Signature", with the request
//     time in Date or x-amz-date;
//   - query-string authentication (presigned URLs): AWSAccessKeyId, Expires (unix
//     seconds) and Signature.
//
// The signature is base64(HMAC-SHA1(secret, StringToSign)) where
//
//	StringToSign = HTTP-Verb + "\n" + Content-MD5 + "\n" + Content-Type + "\n" +
//	               Date + "\n" + CanonicalizedAmzHeaders + CanonicalizedResource
//
// Date is the Date header, the empty string when x-amz-date is present, and the
// Expires value for a presigned URL.
//
// CanonicalizedResource is "/" + bucket when the bucket is named by the Host
// header (virtual-hosted style, Verifier.Domain), then the path of the
// Request-URI exactly as it was sent — still percent-encoded, never decoded,
// re-encoded or cleaned — then the signed parameters from the query, decoded
// and sorted by name: the sub-resources AWS lists, and every parameter by
// which the server chooses the operation (Verifier.Routing), so that a
// parameter appended to a signed request cannot turn it into another
// operation. A client that does not sign one of those (botocore does not
// sign retention, legal-hold, attributes …) gets SignatureDoesNotMatch for
// that operation, never an unsigned one. AWS specifies "the un-decoded HTTP Request-URI"
// and its own worked example signs "/dictionary/fran%C3%A7ais/pr%c3%a9f%c3%a8re"
// with the mixed-case escapes as sent; s3cmd and botocore sign the encoded
// path they put on the wire (testdata holds requests they signed).
// When that fails, Verify also tries the AWS URI-encoding of the decoded path
// (what s3cmd and minio-go produce), so a proxy that re-encodes the path does
// not break authentication, and, for a path-style bucket request "/bucket",
// "/bucket/", which botocore signs. Every candidate decodes to the same bucket
// and key, so none can authorise another resource; the decoded path itself is
// never a candidate ("/b/a%2520b" and "/b/a%20b" are different keys).
//
// Errors are the sigv4 sentinels (sigv4.ErrSignatureDoesNotMatch, ...), wrapped
// with detail, so the S3 edge maps both signature versions in one place.
package sigv2
