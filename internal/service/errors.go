package service

import "errors"

// Domain errors of object operations. The S3 edge maps them to wire codes.
var (
	ErrInvalidBucketName = errors.New("invalid bucket name")
	ErrInvalidKey        = errors.New("invalid object key")
	ErrKeyTooLong        = errors.New("object key longer than 1024 bytes")
	ErrBadDigest         = errors.New("Content-MD5 does not match the body")
	ErrIncompleteBody    = errors.New("body shorter than Content-Length")
	ErrEntityTooLarge    = errors.New("object larger than the maximum size")
)
