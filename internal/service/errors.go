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
	ErrInvalidPart       = errors.New("one or more of the specified parts could not be found or did not match")
	ErrInvalidPartOrder  = errors.New("the list of parts was not in ascending order")
	ErrEntityTooSmall    = errors.New("a part other than the last is smaller than the minimum part size")
	ErrInvalidPartNumber = errors.New("part number must be an integer between 1 and 10000")
	ErrNoParts           = errors.New("a completion must name at least one part")
	ErrBadChecksumType   = errors.New("checksum type not valid for the algorithm")
)
