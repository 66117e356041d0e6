package checksum

import "fmt"

// ErrChecksumMismatch is returned by Reader in place of io.EOF when the
// body's checksum differs from the value the client sent (BadDigest, "The
// x-amz-checksum-... you specified did not match the calculated checksum").
// Test for it with errors.As.
type ErrChecksumMismatch struct {
	Algorithm Algorithm
	// Expected is the value the client sent; Computed is the body's
	// checksum. Both are in S3's base64 form.
	Expected, Computed string
}

func (e ErrChecksumMismatch) Error() string {
	return fmt.Sprintf("checksum: the %s you specified (%s) did not match the calculated checksum (%s)",
		e.Algorithm.HeaderName(), e.Expected, e.Computed)
}
