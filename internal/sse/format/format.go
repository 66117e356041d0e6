package format

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/sys/cpu"
)

// Sizes of the format (see the package comment).
const (
	KeySize     = 32       // a data key
	HeaderSize  = 16       // the header before the first package
	TagSize     = 16       // the authentication tag after each package's payload
	PackageSize = 64 << 10 // plaintext bytes in every package but the last

	// MaxPlaintextSize is the largest plaintext the format holds: 2³¹
	// packages (the sequence number's 31 bits), 128 TiB; S3's objects end
	// at 5 TiB.
	MaxPlaintextSize = (1 << 31) * PackageSize

	sealedSize = PackageSize + TagSize
	version    = 1
	log2Pkg    = 16
	finalBit   = 1 << 31
)

var magic = [4]byte{'J', 'O', 'G', 'E'}

// Suite names the AEAD that seals the packages. The suite is in the
// header, so a reader opens either; a writer picks one with DefaultSuite.
type Suite byte

// The suites. Both take a 32-byte key, a 12-byte nonce and give a 16-byte tag.
const (
	AES256GCM        Suite = 1
	ChaCha20Poly1305 Suite = 2
)

func (s Suite) String() string {
	switch s {
	case AES256GCM:
		return "AES-256-GCM"
	case ChaCha20Poly1305:
		return "ChaCha20-Poly1305"
	}
	return fmt.Sprintf("Suite(%d)", byte(s))
}

// DefaultSuite is AES-256-GCM where the CPU has AES and carry-less
// multiplication instructions (Go's crypto/aes then runs at GB/s per core),
// ChaCha20-Poly1305 elsewhere, where AES in software is slow and not
// constant-time.
func DefaultSuite() Suite {
	switch runtime.GOARCH {
	case "amd64":
		if cpu.X86.HasAES && cpu.X86.HasPCLMULQDQ {
			return AES256GCM
		}
	case "arm64":
		if cpu.ARM64.HasAES && cpu.ARM64.HasPMULL {
			return AES256GCM
		}
	case "s390x":
		return AES256GCM
	}
	return ChaCha20Poly1305
}

// Errors of decryption. Callers test them with errors.Is.
var (
	// ErrNotAuthentic reports sealed bytes that do not open: a wrong key or
	// aad, or bytes changed, moved, cut short or added. No plaintext of a
	// package that fails is ever returned.
	ErrNotAuthentic = errors.New("sse: sealed bytes are not authentic (wrong key or context, or damaged)")
	// ErrUnknownFormat reports a header this version does not read.
	ErrUnknownFormat = errors.New("sse: not a sealed object of a known format")
)

// CiphertextSize returns the exact size of plain bytes sealed, for a
// blob's size before its first byte is written.
func CiphertextSize(plain int64) (int64, error) {
	if plain < 0 || plain > MaxPlaintextSize {
		return 0, fmt.Errorf("sse: plaintext size %d out of range [0, %d]", plain, int64(MaxPlaintextSize))
	}
	return HeaderSize + plain + packages(plain)*TagSize, nil
}

// PlaintextSize is CiphertextSize's inverse; it refuses a size that no
// plaintext seals to.
func PlaintextSize(sealed int64) (int64, error) {
	body := sealed - HeaderSize
	full, rest := body/sealedSize, body%sealedSize
	switch {
	case body < TagSize:
	case rest == 0:
		return full * PackageSize, nil
	case full == 0 && rest == TagSize:
		return 0, nil
	case rest > TagSize:
		return full*PackageSize + rest - TagSize, nil
	}
	return 0, fmt.Errorf("%w: no plaintext seals to %d bytes", ErrNotAuthentic, sealed)
}

// packages returns how many packages plain bytes take: at least one.
func packages(plain int64) int64 {
	if plain == 0 {
		return 1
	}
	return (plain + PackageSize - 1) / PackageSize
}

// sealer holds what every package of one object shares.
type sealer struct {
	aead   cipher.AEAD
	aad    []byte // header || caller's aad
	prefix [8]byte
	nonce  [12]byte
}

func newSealer(suite Suite, key []byte, header [HeaderSize]byte, aad []byte) (*sealer, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("sse: data key is %d bytes, not %d", len(key), KeySize)
	}
	var (
		aead cipher.AEAD
		err  error
	)
	switch suite {
	case AES256GCM:
		var block cipher.Block
		if block, err = aes.NewCipher(key); err == nil {
			aead, err = cipher.NewGCM(block)
		}
	case ChaCha20Poly1305:
		aead, err = chacha20poly1305.New(key)
	default:
		return nil, fmt.Errorf("%w: suite %d", ErrUnknownFormat, suite)
	}
	if err != nil {
		return nil, err
	}
	s := &sealer{aead: aead, aad: append(header[:], aad...)}
	copy(s.prefix[:], header[8:])
	copy(s.nonce[:], s.prefix[:])
	return s, nil
}

// nonceFor returns the nonce of package seq; the slice is valid until the
// next call.
func (s *sealer) nonceFor(seq int64, final bool) []byte {
	v := uint32(seq)
	if final {
		v |= finalBit
	}
	binary.BigEndian.PutUint32(s.nonce[8:], v)
	return s.nonce[:]
}

func makeHeader(suite Suite, prefix [8]byte) (h [HeaderSize]byte) {
	copy(h[:4], magic[:])
	h[4], h[5], h[6] = version, byte(suite), log2Pkg
	copy(h[8:], prefix[:])
	return h
}

func parseHeader(h [HeaderSize]byte) (Suite, error) {
	if [4]byte(h[:4]) != magic || h[4] != version || h[6] != log2Pkg || h[7] != 0 {
		return 0, fmt.Errorf("%w: header % x", ErrUnknownFormat, h[:8])
	}
	return Suite(h[5]), nil
}

// sealBatch is how many packages the readers seal, or read, at once: one
// write of 256 KiB to a blob rather than four of 64 KiB (each write costs
// a system call and the blob store's free-space check), one read of a blob
// rather than four.
const sealBatch = 4

// batchBuffer holds the header and sealBatch sealed packages, contiguous
// as they are stored. The pool keeps a stream of many objects from
// allocating (and clearing) one for each.
type batchBuffer [HeaderSize + sealBatch*sealedSize]byte

var batchPool = sync.Pool{New: func() any { return new(batchBuffer) }}

// stream is what the two readers share: bytes ready (pending) and a way to
// mark some of them returned (consume).
type stream interface {
	pending() ([]byte, error)
	consume(n int)
}

func read(s stream, p []byte) (int, error) {
	b, err := s.pending()
	n := copy(p, b)
	s.consume(n)
	return n, err
}

func writeTo(s stream, w io.Writer) (int64, error) {
	var total int64
	for {
		b, err := s.pending()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return total, err
		}
		n, err := w.Write(b)
		s.consume(n)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
}
