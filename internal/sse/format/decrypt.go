package format

import (
	"errors"
	"fmt"
	"io"
)

// NewDecryptReader returns a reader of the whole plaintext of the sealed
// object that src reads from its first byte: plainSize bytes (the size the
// caller recorded; a sealed object of another size fails), opened with key
// and the aad it was sealed with. It authenticates each package before it
// returns any of its bytes, and the last as the last.
func NewDecryptReader(src io.Reader, plainSize int64, key, aad []byte) (io.Reader, error) {
	return newDecReader(src, plainSize, key, aad, 0, plainSize)
}

// NewRangeReader returns a reader of the plaintext range [off, off+n) of
// the sealed object src holds (plainSize and aad as for NewDecryptReader).
// It reads the header and then only the packages the range covers, seeking
// past the rest; io.NewSectionReader makes a src of an io.ReaderAt.
func NewRangeReader(src io.ReadSeeker, plainSize int64, key, aad []byte, off, n int64) (io.Reader, error) {
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return newDecReader(src, plainSize, key, aad, off, n)
}

func newDecReader(src io.Reader, plainSize int64, key, aad []byte, off, n int64) (io.Reader, error) {
	if _, err := CiphertextSize(plainSize); err != nil {
		return nil, err
	}
	if off < 0 || n < 0 || off > plainSize || n > plainSize-off {
		return nil, fmt.Errorf("sse: range [%d, %d+%d) outside a plaintext of %d bytes", off, off, n, plainSize)
	}
	var header [HeaderSize]byte
	if _, err := io.ReadFull(src, header[:]); err != nil {
		return nil, readError(err)
	}
	suite, err := parseHeader(header)
	if err != nil {
		return nil, err
	}
	s, err := newSealer(suite, key, header, aad)
	if err != nil {
		return nil, err
	}
	r := &decReader{sealer: s, src: src, plainSize: plainSize, last: packages(plainSize) - 1, left: n}
	if n == 0 && plainSize > 0 {
		return r, nil // nothing to read (an empty object's one package is still opened)
	}
	r.seq = off / PackageSize
	r.end = r.seq
	if n > 0 {
		r.end = (off + n - 1) / PackageSize
	}
	r.skip = int(off - r.seq*PackageSize)
	if r.seq > 0 {
		seeker, ok := src.(io.Seeker)
		if !ok {
			return nil, errors.New("sse: a range past the first package needs a source that seeks")
		}
		if _, err := seeker.Seek(HeaderSize+r.seq*sealedSize, io.SeekStart); err != nil {
			return nil, err
		}
	}
	r.check = plainSize == 0
	return r, nil
}

type decReader struct {
	*sealer
	src       io.Reader
	plainSize int64
	seq, last int64 // the next package to open; the object's last package
	end       int64 // the last package the range covers
	skip      int   // bytes of the next packages before the range
	left      int64 // bytes of the range not yet returned
	// buf holds up to sealBatch sealed packages, read at once and opened
	// in place one by one.
	buf    *batchBuffer
	sealed []byte // packages read, not yet opened (in buf)
	plain  []byte // opened bytes not yet returned (in buf)
	check  bool   // open the (empty) last package though the range is empty
	err    error
}

func (r *decReader) Read(p []byte) (int, error) { return read(r, p) }

// WriteTo writes the range's plaintext to w.
func (r *decReader) WriteTo(w io.Writer) (int64, error) { return writeTo(r, w) }

// pending returns authenticated plaintext of the range not yet returned,
// opening the next package when there is none, or the error the reader
// stopped at. At the end it gives its buffer back.
func (r *decReader) pending() ([]byte, error) {
	if r.check {
		r.check = false
		r.err = r.open()
	}
	for r.err == nil && (len(r.plain) == 0 || r.left == 0) {
		if r.left == 0 {
			r.err = io.EOF
			break
		}
		r.err = r.open()
	}
	if r.err != nil {
		r.release()
		return nil, r.err
	}
	return r.plain[:min(int64(len(r.plain)), r.left)], nil
}

// consume marks n bytes returned; the last gives the buffer back, for a
// caller that reads exactly the range and never asks for the end.
func (r *decReader) consume(n int) {
	r.plain = r.plain[n:]
	r.left -= int64(n)
	if r.left == 0 && r.err == nil {
		r.err = io.EOF
		r.release()
	}
}

// release gives the buffer back.
func (r *decReader) release() {
	if r.buf != nil {
		batchPool.Put(r.buf)
	}
	r.buf, r.sealed, r.plain = nil, nil, nil
}

// fill reads the next packages of the range, up to sealBatch, in one read.
func (r *decReader) fill() error {
	if r.buf == nil {
		r.buf = batchPool.Get().(*batchBuffer)
	}
	count := min(sealBatch, r.end-r.seq+1)
	total := count * sealedSize
	if r.seq+count-1 == r.last { // the last package is shorter
		total -= PackageSize - (r.plainSize - r.last*PackageSize)
	}
	if _, err := io.ReadFull(r.src, r.buf[:total]); err != nil {
		return readError(err)
	}
	r.sealed = r.buf[:total]
	return nil
}

// open authenticates package seq, reading it (and the next ones of the
// range) first when they have not been read; only then does plain hold its
// bytes (less any skipped before the range).
func (r *decReader) open() error {
	size := PackageSize
	final := r.seq == r.last
	if final {
		size = int(r.plainSize - r.last*PackageSize)
	}
	if len(r.sealed) == 0 {
		if err := r.fill(); err != nil {
			return err
		}
	}
	sealed := r.sealed[:size+TagSize]
	r.sealed = r.sealed[size+TagSize:]
	plain, err := r.aead.Open(sealed[:0], r.nonceFor(r.seq, final), sealed, r.aad)
	if err != nil {
		return fmt.Errorf("%w: package %d", ErrNotAuthentic, r.seq)
	}
	k := min(r.skip, len(plain))
	r.plain, r.skip = plain[k:], r.skip-k
	r.seq++
	return nil
}

// readError makes a source that ends early a sealed object cut short.
func readError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: cut short", ErrNotAuthentic)
	}
	return err
}
