package format

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
)

// NewEncryptReader returns a reader of src's bytes sealed under key with
// the DefaultSuite, binding aad (which the reader must give again).
// Exactly CiphertextSize(n) bytes come out of n bytes in. It reads src one
// package (and a byte) ahead and holds up to sealBatch packages, in a
// buffer borrowed from a pool until its end; src's errors come back as
// they are. It is an io.WriterTo, so io.Copy hands it the sealed packages
// sealBatch at a time (the header with the first), without a copy.
func NewEncryptReader(src io.Reader, key, aad []byte) (io.Reader, error) {
	return NewEncryptReaderSuite(src, DefaultSuite(), key, aad)
}

// NewEncryptReaderSuite is NewEncryptReader with the suite chosen.
func NewEncryptReaderSuite(src io.Reader, suite Suite, key, aad []byte) (io.Reader, error) {
	var prefix [8]byte
	if _, err := rand.Read(prefix[:]); err != nil {
		return nil, err
	}
	r := &encReader{src: src, header: makeHeader(suite, prefix)}
	s, err := newSealer(suite, key, r.header, aad)
	if err != nil {
		return nil, err
	}
	r.sealer = s
	return r, nil
}

type encReader struct {
	*sealer
	src     io.Reader
	header  [HeaderSize]byte
	buf     *batchBuffer // the packages being read, then sealed in place
	started bool         // the header has been handed on
	ahead   int          // 1 when next holds the byte after the last package
	next    byte
	out     []byte // sealed bytes not yet returned
	seq     int64
	done    bool // the final package is sealed
	err     error
}

func (r *encReader) Read(p []byte) (int, error) { return read(r, p) }

// WriteTo writes the sealed bytes to w.
func (r *encReader) WriteTo(w io.Writer) (int64, error) { return writeTo(r, w) }

func (r *encReader) consume(n int) { r.out = r.out[n:] }

// pending returns the sealed bytes not yet returned, sealing the next
// packages when there are none, or the error the reader stopped at.
func (r *encReader) pending() ([]byte, error) {
	for len(r.out) == 0 {
		switch {
		case r.err != nil:
			return nil, r.err
		case r.done:
			r.err = io.EOF
			if r.buf != nil {
				batchPool.Put(r.buf)
				r.buf = nil
			}
		default:
			r.err = r.sealPackages()
		}
	}
	return r.out, nil
}

// sealPackages seals up to sealBatch packages into out, after the header
// the first time.
func (r *encReader) sealPackages() error {
	if r.buf == nil {
		r.buf = batchPool.Get().(*batchBuffer)
	}
	start, end := HeaderSize, HeaderSize
	if !r.started {
		r.started = true
		copy(r.buf[:HeaderSize], r.header[:])
		start = 0
	}
	for i := 0; i < sealBatch && !r.done; i++ {
		n, err := r.seal(r.buf[end : end+sealedSize])
		if err != nil {
			return err
		}
		end += n
	}
	r.out = r.buf[start:end]
	return nil
}

// seal reads the next package's payload into slot, and a byte beyond it to
// learn whether it is the last, and seals it in place; it returns the
// sealed package's length.
func (r *encReader) seal(slot []byte) (int, error) {
	slot[0] = r.next
	n, err := io.ReadFull(r.src, slot[r.ahead:PackageSize+1])
	have := r.ahead + n
	final := false
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		final = true
	case err != nil:
		return 0, err
	}
	if r.seq >= 1<<31 {
		return 0, fmt.Errorf("sse: plaintext longer than %d bytes", int64(MaxPlaintextSize))
	}
	payload := min(have, PackageSize)
	r.ahead, r.next = have-payload, slot[PackageSize] // sealing in place writes over it
	sealed := r.aead.Seal(slot[:0], r.nonceFor(r.seq, final), slot[:payload], r.aad)
	r.seq++
	r.done = final
	return len(sealed), nil
}
