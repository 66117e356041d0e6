// Package postpolicy reads S3 browser-based uploads: an HTML form POSTed to
// a bucket as multipart/form-data, its fields, its file, and the policy
// document that says what the form may do (AWS, "Browser-based uploads
// using POST", "Creating a POST policy").
//
// ReadForm reads the fields before the file part, their total bounded by
// MaxPreData, and leaves the file part unread for the caller to stream;
// fields after it are ignored, as S3 ignores them. ParsePolicy decodes the
// base64 JSON policy; Policy.Check checks every field against its
// conditions (eq, starts-with, content-length-range) and refuses fields no
// condition covers; Range.Reader enforces content-length-range while the
// file streams. Signatures are verified by sigv4 and sigv2; mapping the
// errors here to S3's codes is the S3 edge's (internal/s3api/errors.go).
package postpolicy
