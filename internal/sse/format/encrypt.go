package format

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
)

// NewEncryptReader returns a reader of src's bytes sealed under key with
// the DefaultSuite, binding aad (which the reader must give again). It
// reads src one package ahead and never holds more than two packages;
// src's errors come back as they are. Exactly CiphertextSize(n) bytes come
// out of n bytes in.
func NewEncryptReader(src io.Reader, key, aad []byte) (io.Reader, error) {
	return NewEncryptReaderSuite(src, DefaultSuite(), key, aad)
}

// NewEncryptReaderSuite is NewEncryptReader with the suite chosen.
func NewEncryptReaderSuite(src io.Reader, suite Suite, key, aad []byte) (io.Reader, error) {
	var prefix [8]byte
	if _, err := rand.Read(prefix[:]); err != nil {
		return nil, err
	}
	header := makeHeader(suite, prefix)
	s, err := newSealer(suite, key, header, aad)
	if err != nil {
		return nil, err
	}
	r := &encReader{sealer: s, src: src, in: make([]byte, PackageSize+1), out: make([]byte, 0, sealedSize)}
	r.out = append(r.out, header[:]...)
	return r, nil
}

type encReader struct {
	*sealer
	src  io.Reader
	in   []byte // the next package's payload and one byte read ahead
	have int    // bytes held in in
	out  []byte // sealed bytes not yet returned, from pos
	pos  int
	seq  int64
	done bool // the final package is sealed
	err  error
}

func (r *encReader) Read(p []byte) (int, error) {
	for r.pos == len(r.out) {
		if r.err != nil {
			return 0, r.err
		}
		if r.done {
			r.err = io.EOF
			continue
		}
		r.err = r.seal()
	}
	n := copy(p, r.out[r.pos:])
	r.pos += n
	return n, nil
}

// seal reads the next package's payload, and a byte beyond it to learn
// whether it is the last, and seals it into out.
func (r *encReader) seal() error {
	n, err := io.ReadFull(r.src, r.in[r.have:])
	r.have += n
	final := false
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		final = true
	case err != nil:
		return err
	}
	if r.seq >= 1<<31 {
		return fmt.Errorf("sse: plaintext longer than %d bytes", int64(MaxPlaintextSize))
	}
	payload := min(r.have, PackageSize)
	r.out = r.aead.Seal(r.out[:0], r.nonceFor(r.seq, final), r.in[:payload], r.aad)
	r.pos = 0
	r.seq++
	r.have = copy(r.in, r.in[payload:r.have])
	r.done = final
	return nil
}
