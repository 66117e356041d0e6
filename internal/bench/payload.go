package bench

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"math/rand/v2"
)

// payloadSize is the length of the shared random buffer object bodies are
// cut from. Objects longer than that repeat it.
const payloadSize = 8 << 20

// Payload is the shared, read-only random data every request body is read
// from. An object's bytes are the buffer read cyclically from an offset
// derived from its key, so a GET can be checked without remembering what
// was written, and a PUT costs no allocation for its body.
type Payload struct{ buf []byte }

// NewPayload generates the buffer from seed.
func NewPayload(seed uint64) *Payload {
	buf := make([]byte, payloadSize)
	rng := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), byte(seed >> 16), byte(seed >> 24)})
	_, _ = rng.Read(buf)
	return &Payload{buf: buf}
}

// keyOffset maps a key to its start offset in the buffer (FNV-1a).
func keyOffset(key string) int64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	return int64(h % payloadSize)
}

// Reader returns the n bytes of key's object starting at byte from.
func (p *Payload) Reader(key string, from, n int64) *PayloadReader {
	return &PayloadReader{buf: p.buf, off: (keyOffset(key) + from) % payloadSize, n: n}
}

// PayloadReader reads a slice of the cyclic buffer. It implements
// io.WriterTo so the transport writes straight from the shared buffer.
type PayloadReader struct {
	buf    []byte
	off    int64 // start in buf
	pos, n int64
}

func (r *PayloadReader) chunk() []byte {
	c := r.buf[(r.off+r.pos)%payloadSize:]
	if rem := r.n - r.pos; int64(len(c)) > rem {
		c = c[:rem]
	}
	return c
}

// Read implements io.Reader.
func (r *PayloadReader) Read(b []byte) (int, error) {
	if r.pos >= r.n {
		return 0, io.EOF
	}
	k := copy(b, r.chunk())
	r.pos += int64(k)
	return k, nil
}

// WriteTo implements io.WriterTo.
func (r *PayloadReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for r.pos < r.n {
		k, err := w.Write(r.chunk())
		r.pos += int64(k)
		total += int64(k)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// Len is the number of bytes left.
func (r *PayloadReader) Len() int64 { return r.n - r.pos }

// errVerify is returned when downloaded bytes differ from what was written.
var errVerify = errors.New("downloaded bytes differ from the uploaded object")

// verifier is an io.Writer that compares what it is given with key's
// object and hashes it for an MD5 ETag check.
type verifier struct {
	want PayloadReader
	md5  hash.Hash
	bad  bool
}

func (p *Payload) verifier(key string) *verifier {
	return &verifier{want: *p.Reader(key, 0, 1<<62), md5: md5.New()}
}

// rangeVerifier compares the bytes of key's object from off on; it has no
// ETag to check.
func (p *Payload) rangeVerifier(key string, off int64) *verifier {
	return &verifier{want: *p.Reader(key, off, 1<<62)}
}

func (v *verifier) Write(b []byte) (int, error) {
	if v.md5 != nil {
		v.md5.Write(b)
	}
	for rest := b; len(rest) > 0 && !v.bad; {
		c := v.want.chunk()
		c = c[:min(len(c), len(rest))]
		if !bytes.Equal(c, rest[:len(c)]) {
			v.bad = true
		}
		v.want.pos += int64(len(c))
		rest = rest[len(c):]
	}
	return len(b), nil
}

// check reports errVerify if the bytes differed, or if etag is a plain MD5
// ETag (not a multipart one) that differs from the bytes' MD5.
func (v *verifier) check(etag string) error {
	if v.bad {
		return errVerify
	}
	etag = trimETag(etag)
	if v.md5 != nil && len(etag) == 32 && etag != hex.EncodeToString(v.md5.Sum(nil)) {
		return errVerify
	}
	return nil
}

func trimETag(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}
