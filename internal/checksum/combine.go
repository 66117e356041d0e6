package checksum

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/minio/crc64nvme"
)

// ErrNotCombinable reports CombineCRC on an algorithm other than a CRC: S3
// offers FULL_OBJECT multipart checksums only for CRC32, CRC32C and
// CRC64NVME (InvalidRequest).
var ErrNotCombinable = errors.New("checksum: only CRC32, CRC32C and CRC64NVME checksums can be combined")

// CombineCRC returns the CRC of the concatenation A||B given crc1 = CRC(A),
// crc2 = CRC(B) and len2 = len(B), for S3's FULL_OBJECT multipart checksums.
// CRCs are S3's big-endian bytes. Folding CombineCRC over the parts in order
// yields the whole object's CRC.
//
// It uses the identity CRC(A||B) = CRC(A)·x^(8·len2) mod P ⊕ CRC(B), which
// holds for these CRCs because their initial value equals their final XOR
// (all ones); x^(8·len2) mod P is found by repeated squaring, as zlib's
// crc32_combine does, in O(log len2) carry-less multiplications.
func CombineCRC(a Algorithm, crc1, crc2 []byte, len2 int64) ([]byte, error) {
	var f *crcField
	switch a {
	case CRC32:
		f = crc32IEEEField
	case CRC32C:
		f = crc32CField
	case CRC64NVME:
		f = crc64NVMEField
	default:
		return nil, fmt.Errorf("%w: %s", ErrNotCombinable, a)
	}
	if len(crc1) != f.size || len(crc2) != f.size {
		return nil, fmt.Errorf("%w: %s checksums are %d bytes, got %d and %d",
			ErrMalformedChecksum, a, f.size, len(crc1), len(crc2))
	}
	if len2 < 0 {
		return nil, fmt.Errorf("checksum: negative length %d", len2)
	}
	c := f.combine(f.get(crc1), f.get(crc2), uint64(len2))
	out := make([]byte, f.size)
	f.put(out, c)
	return out, nil
}

// crcField does arithmetic modulo a CRC polynomial in the bit-reflected
// representation the CRCs use: the top bit of a width-bit word is x^0.
type crcField struct {
	size int    // bytes in a CRC
	poly uint64 // reflected polynomial
	one  uint64 // x^0
	// x2n[k] is x^(2^k) mod P. Bit k of len2 contributes x^(8·2^k), which
	// is x2n[k+3]; len2 < 2^63, so 3+63 entries are needed.
	x2n [66]uint64
}

func newCRCField(size int, poly uint64) *crcField {
	f := &crcField{size: size, poly: poly, one: 1 << (8*size - 1)}
	p := f.one >> 1 // x^1
	for k := range f.x2n {
		f.x2n[k] = p
		p = f.mul(p, p)
	}
	return f
}

var (
	crc32IEEEField = newCRCField(4, crc32.IEEE)
	crc32CField    = newCRCField(4, crc32.Castagnoli)
	crc64NVMEField = newCRCField(8, crc64nvme.NVME)
)

// mul returns a·b mod P.
func (f *crcField) mul(a, b uint64) uint64 {
	var p uint64
	for m := f.one; m != 0 && a != 0; m >>= 1 {
		if a&m != 0 {
			p ^= b
			a ^= m
		}
		if b&1 != 0 {
			b = b>>1 ^ f.poly
		} else {
			b >>= 1
		}
	}
	return p
}

// combine returns CRC(A||B) from CRC(A), CRC(B) and len(B).
func (f *crcField) combine(crc1, crc2, len2 uint64) uint64 {
	xn := f.one // x^(8·len2) mod P
	for k := 3; len2 != 0; k, len2 = k+1, len2>>1 {
		if len2&1 != 0 {
			xn = f.mul(f.x2n[k], xn)
		}
	}
	return f.mul(xn, crc1) ^ crc2
}

func (f *crcField) get(b []byte) uint64 {
	if f.size == 4 {
		return uint64(binary.BigEndian.Uint32(b))
	}
	return binary.BigEndian.Uint64(b)
}

func (f *crcField) put(b []byte, v uint64) {
	if f.size == 4 {
		binary.BigEndian.PutUint32(b, uint32(v))
		return
	}
	binary.BigEndian.PutUint64(b, v)
}
