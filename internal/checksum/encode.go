package checksum

import (
	"encoding/base64"
	"fmt"
)

// Encode renders a digest the way S3 sends checksums: standard base64 (with
// padding) of the big-endian digest bytes, e.g. "DUoRhQ==".
func Encode(sum []byte) string {
	return base64.StdEncoding.EncodeToString(sum)
}

// Decode parses a checksum value sent by a client. It fails with an error
// wrapping ErrMalformedChecksum unless s is standard base64 of exactly
// a.Size() bytes.
func (a Algorithm) Decode(s string) ([]byte, error) {
	size := a.Size()
	if size == 0 {
		return nil, fmt.Errorf("%w: %q", ErrUnknownAlgorithm, string(a))
	}
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || len(b) != size {
		return nil, fmt.Errorf("%w: %q is not a base64 %s checksum", ErrMalformedChecksum, s, a)
	}
	return b, nil
}
