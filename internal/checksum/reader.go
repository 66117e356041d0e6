package checksum

import (
	"bytes"
	"hash"
	"io"
	"slices"
)

// Reader hashes everything read through it with a set of algorithms and
// checks the digests against the client's values when the body ends. Nothing
// is buffered: bytes pass straight through, so a caller must not commit what
// it read until it has seen io.EOF.
type Reader struct {
	r        io.Reader
	algs     []Algorithm
	hashes   []hash.Hash
	expected func(Algorithm) string
	sums     [][]byte // set at EOF
	err      error    // sticky end state: io.EOF or ErrChecksumMismatch
}

// NewReader returns a Reader over r that hashes with every algorithm in algs
// (duplicates are ignored). When r reports io.EOF, expected is called once
// per algorithm; for each non-empty value (S3's base64 form) that differs from
// the computed checksum, Read returns ErrChecksumMismatch instead of io.EOF,
// and keeps returning it. expected is called only at EOF, so it may read
// values that arrive after the body, such as aws-chunked trailers; it may be
// nil. Errors other than io.EOF from r pass through unchanged.
func NewReader(r io.Reader, algs []Algorithm, expected func(Algorithm) string) *Reader {
	cr := &Reader{r: r, expected: expected}
	for _, a := range algs {
		if !slices.Contains(cr.algs, a) {
			cr.algs = append(cr.algs, a)
			cr.hashes = append(cr.hashes, a.New())
		}
	}
	return cr
}

func (cr *Reader) Read(p []byte) (int, error) {
	if cr.err != nil {
		return 0, cr.err
	}
	n, err := cr.r.Read(p)
	for _, h := range cr.hashes {
		h.Write(p[:n])
	}
	if err == io.EOF {
		cr.err = cr.finish()
		return n, cr.err
	}
	return n, err
}

// finish computes the digests and compares them with the expected values.
func (cr *Reader) finish() error {
	cr.sums = make([][]byte, len(cr.hashes))
	for i, h := range cr.hashes {
		cr.sums[i] = h.Sum(nil)
	}
	if cr.expected == nil {
		return io.EOF
	}
	for i, a := range cr.algs {
		want := cr.expected(a)
		if want == "" {
			continue
		}
		if got, err := a.Decode(want); err != nil || !bytes.Equal(got, cr.sums[i]) {
			return ErrChecksumMismatch{Algorithm: a, Expected: want, Computed: Encode(cr.sums[i])}
		}
	}
	return io.EOF
}

// Sum returns the digest of algorithm a (big-endian bytes) once Read has
// reached the end of the body, whether or not the checksums matched. It
// returns nil before then, or when a is not one of the Reader's algorithms.
func (cr *Reader) Sum(a Algorithm) []byte {
	if cr.sums == nil {
		return nil
	}
	if i := slices.Index(cr.algs, a); i >= 0 {
		return slices.Clone(cr.sums[i])
	}
	return nil
}
