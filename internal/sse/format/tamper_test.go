package format

import (
	"bytes"
	"errors"
	"testing"
)

// mustFail reads sealed whole (claiming plainSize) and requires an error
// of the format, after at most a strict prefix of plain: bytes of packages
// before the damage may come out, no byte that differs, never all of them.
func mustFail(t *testing.T, what string, sealed []byte, plainSize int64, plain, key, aad []byte) {
	t.Helper()
	got, err := openRange(sealed, plainSize, key, aad, 0, plainSize)
	if !errors.Is(err, ErrNotAuthentic) && !errors.Is(err, ErrUnknownFormat) {
		t.Fatalf("%s: read %d bytes and error %v, want ErrNotAuthentic or ErrUnknownFormat", what, len(got), err)
	}
	if len(got) >= len(plain) && len(plain) > 0 || !bytes.HasPrefix(plain, got) {
		t.Fatalf("%s: returned %d bytes that are not a strict prefix of the plaintext", what, len(got))
	}
}

func TestFlipAnyByte(t *testing.T) {
	for _, size := range []int64{0, 1, 1000} {
		plain := randomBytes(t, size)
		sealed := seal(t, AES256GCM, plain, testKey, testAAD)
		for i := range sealed {
			for _, bit := range []byte{0x01, 0x80} {
				bad := bytes.Clone(sealed)
				bad[i] ^= bit
				mustFail(t, "flip", bad, size, plain, testKey, testAAD)
			}
		}
	}
	// Several packages: every byte of the header, and bytes around every
	// package boundary and inside each package.
	size := int64(3*PackageSize + 100)
	plain := randomBytes(t, size)
	sealed := seal(t, ChaCha20Poly1305, plain, testKey, testAAD)
	var at []int
	for i := range HeaderSize {
		at = append(at, i)
	}
	for p := range 4 {
		start := HeaderSize + p*sealedSize
		for _, d := range []int{0, 1, 4321, sealedSize - TagSize - 1, sealedSize - TagSize, sealedSize - 1} {
			if i := start + d; i < len(sealed) {
				at = append(at, i)
			}
		}
	}
	at = append(at, len(sealed)-1)
	for _, i := range at {
		bad := bytes.Clone(sealed)
		bad[i] ^= 0x20
		mustFail(t, "flip", bad, size, plain, testKey, testAAD)
	}
}

func TestTruncate(t *testing.T) {
	plain := randomBytes(t, 1000)
	sealed := seal(t, AES256GCM, plain, testKey, testAAD)
	for n := range len(sealed) {
		mustFail(t, "cut", sealed[:n], 1000, plain, testKey, testAAD)
	}
	size := int64(3 * PackageSize)
	plain = randomBytes(t, size)
	sealed = seal(t, AES256GCM, plain, testKey, testAAD)
	for _, p := range []int{1, 2} {
		cut := sealed[:HeaderSize+p*sealedSize]
		// Claiming the original size, the cut is short; claiming the size
		// the cut would hold, its last package is not the final one.
		mustFail(t, "cut at a boundary", cut, size, plain, testKey, testAAD)
		mustFail(t, "cut at a boundary, size to match", cut, int64(p*PackageSize), plain[:p*PackageSize], testKey, testAAD)
	}
	// Appending: a longer claimed size, and a package sealed for elsewhere.
	mustFail(t, "claimed longer", sealed, size+1, plain, testKey, testAAD)
	mustFail(t, "claimed shorter", sealed, size-1, plain[:size-1], testKey, testAAD)
}

func TestReorder(t *testing.T) {
	size := int64(3*PackageSize + 100)
	plain := randomBytes(t, size)
	sealed := seal(t, AES256GCM, plain, testKey, testAAD)
	pkg := func(b []byte, i int) []byte { return b[HeaderSize+i*sealedSize : HeaderSize+(i+1)*sealedSize] }

	swapped := bytes.Clone(sealed)
	copy(pkg(swapped, 0), pkg(sealed, 1))
	copy(pkg(swapped, 1), pkg(sealed, 0))
	mustFail(t, "swap 0 and 1", swapped, size, plain, testKey, testAAD)

	dup := bytes.Clone(sealed)
	copy(pkg(dup, 1), pkg(sealed, 0))
	mustFail(t, "package 0 twice", dup, size, plain, testKey, testAAD)

	dropped := append(bytes.Clone(sealed[:HeaderSize+sealedSize]), sealed[HeaderSize+2*sealedSize:]...)
	mustFail(t, "package 1 dropped", dropped, size-PackageSize, append(bytes.Clone(plain[:PackageSize]), plain[2*PackageSize:]...), testKey, testAAD)

	// A package of another object under the same key and aad (another
	// random prefix) does not open in this one.
	other := seal(t, AES256GCM, plain, testKey, testAAD)
	spliced := bytes.Clone(sealed)
	copy(pkg(spliced, 1), pkg(other, 1))
	mustFail(t, "package of another object", spliced, size, plain, testKey, testAAD)
	// Nor does another object's header before this one's packages.
	rehead := bytes.Clone(sealed)
	copy(rehead[:HeaderSize], other[:HeaderSize])
	mustFail(t, "header of another object", rehead, size, plain, testKey, testAAD)
}

func TestWrongKeyOrContext(t *testing.T) {
	for _, suite := range suites {
		for _, size := range []int64{0, 5, PackageSize + 5} {
			plain := randomBytes(t, size)
			sealed := seal(t, suite, plain, testKey, testAAD)
			otherKey := bytes.Clone(testKey)
			otherKey[31] ^= 1
			mustFail(t, "wrong key", sealed, size, plain, otherKey, testAAD)
			mustFail(t, "wrong aad", sealed, size, plain, testKey, []byte("bucket/key/version/part2"))
			mustFail(t, "no aad", sealed, size, plain, testKey, nil)
			other := bytes.Clone(sealed)
			other[5] = byte(AES256GCM + ChaCha20Poly1305 - suite)
			mustFail(t, "other suite", other, size, plain, testKey, testAAD)
			for _, b := range []int{0, 4, 6, 7} {
				other := bytes.Clone(sealed)
				other[b]++
				mustFail(t, "header byte", other, size, plain, testKey, testAAD)
			}
		}
	}
}

// TestDamageStaysLocal: a range that does not cover a damaged package still
// reads; one that does fails.
func TestDamageStaysLocal(t *testing.T) {
	size := int64(3 * PackageSize)
	plain := randomBytes(t, size)
	sealed := seal(t, AES256GCM, plain, testKey, testAAD)
	sealed[HeaderSize+2*sealedSize+10] ^= 1
	checkRange(t, sealed, plain, 10, 2*PackageSize-10)
	if got, err := openRange(sealed, size, testKey, testAAD, 2*PackageSize-1, 2); !errors.Is(err, ErrNotAuthentic) || !bytes.Equal(got, plain[2*PackageSize-1:2*PackageSize]) {
		t.Errorf("range over the damage: %d bytes, %v", len(got), err)
	}
}
