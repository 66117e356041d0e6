// Package itest holds the helpers the integration tests in test/integration
// share, whichever client drives the server: starting a server with a
// bucket, putting and reading objects and asserting their bytes and ETags
// (with aws-sdk-go-v2 or minio-go), asserting S3 errors from either SDK or
// from a raw response, and building, signing and sending raw requests.
//
// Servers themselves come from internal/testutil; itest only adds the
// assertions. Every helper fails the test through t and marks itself with
// t.Helper, so a failure points at the caller's line.
package itest
