package checksum

import (
	"crypto/sha1"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"strings"

	"github.com/minio/crc64nvme"
)

// Algorithm is an S3 checksum algorithm, spelled as S3 spells it in
// x-amz-checksum-algorithm and x-amz-sdk-checksum-algorithm.
type Algorithm string

// The algorithms S3 supports.
const (
	CRC32     Algorithm = "CRC32"
	CRC32C    Algorithm = "CRC32C"
	CRC64NVME Algorithm = "CRC64NVME"
	SHA1      Algorithm = "SHA1"
	SHA256    Algorithm = "SHA256"
)

// Algorithms lists every supported algorithm.
var Algorithms = []Algorithm{CRC32, CRC32C, CRC64NVME, SHA1, SHA256}

// ErrUnknownAlgorithm reports an algorithm name S3 does not support
// (InvalidRequest, "Checksum algorithm provided is unsupported").
var ErrUnknownAlgorithm = errors.New("checksum: unknown algorithm")

// ErrMalformedChecksum reports a checksum value that is not base64 of a
// digest of the algorithm's size (InvalidRequest, "Value for
// x-amz-checksum-... header is invalid").
var ErrMalformedChecksum = errors.New("checksum: malformed value")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ParseAlgorithm returns the algorithm named s, ignoring case, or an error
// wrapping ErrUnknownAlgorithm.
func ParseAlgorithm(s string) (Algorithm, error) {
	for _, a := range Algorithms {
		if strings.EqualFold(s, string(a)) {
			return a, nil
		}
	}
	return "", fmt.Errorf("%w: %q", ErrUnknownAlgorithm, s)
}

// New returns a fresh hash for a. It panics for an unknown algorithm: parse
// client input with ParseAlgorithm first.
func (a Algorithm) New() hash.Hash {
	switch a {
	case CRC32:
		return crc32.NewIEEE()
	case CRC32C:
		return crc32.New(castagnoli)
	case CRC64NVME:
		return crc64nvme.New()
	case SHA1:
		return sha1.New()
	case SHA256:
		return sha256.New()
	}
	panic("checksum: New of unknown algorithm " + string(a))
}

// Size is the digest size of a in bytes, or 0 for an unknown algorithm.
func (a Algorithm) Size() int {
	switch a {
	case CRC32, CRC32C:
		return 4
	case CRC64NVME:
		return 8
	case SHA1:
		return sha1.Size
	case SHA256:
		return sha256.Size
	}
	return 0
}

// IsCRC reports whether a is one of the CRCs, the only algorithms S3 allows
// for FULL_OBJECT multipart checksums.
func (a Algorithm) IsCRC() bool {
	return a == CRC32 || a == CRC32C || a == CRC64NVME
}

// HeaderName is the lowercase header (and aws-chunked trailer) name that
// carries a checksum of algorithm a, e.g. "x-amz-checksum-crc32c".
func (a Algorithm) HeaderName() string {
	return "x-amz-checksum-" + strings.ToLower(string(a))
}

// String returns the algorithm's S3 name.
func (a Algorithm) String() string { return string(a) }
