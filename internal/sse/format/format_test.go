package format

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

var (
	testKey = bytes.Repeat([]byte{7}, KeySize)
	testAAD = []byte("bucket/key/version/part")
	suites  = []Suite{AES256GCM, ChaCha20Poly1305}
)

// boundarySizes are plaintext sizes at and around every package boundary.
var boundarySizes = []int64{0, 1, PackageSize - 1, PackageSize, PackageSize + 1, 3*PackageSize - 1, 3 * PackageSize, 3*PackageSize + 7, 16 << 20}

func randomBytes(t testing.TB, n int64) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// seal encrypts plain whole, reading the encrypting reader in small, odd reads.
func seal(t testing.TB, suite Suite, plain, key, aad []byte) []byte {
	t.Helper()
	r, err := NewEncryptReaderSuite(bytes.NewReader(plain), suite, key, aad)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	buf := make([]byte, 1000)
	for {
		n, err := r.Read(buf)
		out.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// openRange reads [off, off+n) of sealed and returns what came out before
// the first error, and that error (nil at a clean end).
func openRange(sealed []byte, plainSize int64, key, aad []byte, off, n int64) ([]byte, error) {
	r, err := NewRangeReader(bytes.NewReader(sealed), plainSize, key, aad, off, n)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

func TestRoundTrip(t *testing.T) {
	for _, suite := range suites {
		for _, size := range boundarySizes {
			plain := randomBytes(t, size)
			sealed := seal(t, suite, plain, testKey, testAAD)
			want, err := CiphertextSize(size)
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(sealed)) != want {
				t.Errorf("%v size %d: sealed %d bytes, CiphertextSize says %d", suite, size, len(sealed), want)
			}
			if got, err := PlaintextSize(int64(len(sealed))); err != nil || got != size {
				t.Errorf("%v size %d: PlaintextSize(%d) = %d, %v", suite, size, len(sealed), got, err)
			}
			if size >= 16 && bytes.Contains(sealed, plain[:16]) {
				t.Errorf("%v size %d: plaintext visible in the sealed bytes", suite, size)
			}
			// Read above, WriteTo (io.Copy) here, both ways.
			r, err := NewDecryptReader(bytes.NewReader(sealed), size, testKey, testAAD)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if n, err := io.Copy(&got, r); err != nil || n != size || !bytes.Equal(got.Bytes(), plain) {
				t.Errorf("%v size %d: round trip gave %d bytes (equal %v), %v", suite, size, n, bytes.Equal(got.Bytes(), plain), err)
			}
			enc, err := NewEncryptReaderSuite(bytes.NewReader(plain), suite, testKey, testAAD)
			if err != nil {
				t.Fatal(err)
			}
			var resealed bytes.Buffer
			if n, err := io.Copy(&resealed, enc); err != nil || n != want {
				t.Fatalf("%v size %d: WriteTo sealed %d bytes, %v", suite, size, n, err)
			}
			if back, err := openRange(resealed.Bytes(), size, testKey, testAAD, 0, size); err != nil || !bytes.Equal(back, plain) {
				t.Errorf("%v size %d: WriteTo's sealing does not open: %v", suite, size, err)
			}
		}
	}
}

func TestReadersBehave(t *testing.T) {
	plain := randomBytes(t, 2*PackageSize+3)
	enc, err := NewEncryptReader(iotest.OneByteReader(bytes.NewReader(plain)), testKey, testAAD)
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := io.ReadAll(enc)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRangeReader(bytes.NewReader(sealed), int64(len(plain)), testKey, testAAD, 5, PackageSize+9)
	if err != nil {
		t.Fatal(err)
	}
	if err := iotest.TestReader(r, plain[5:PackageSize+14]); err != nil {
		t.Error(err)
	}
}

func TestSizesRefused(t *testing.T) {
	for _, size := range []int64{-1, MaxPlaintextSize + 1} {
		if _, err := CiphertextSize(size); err == nil {
			t.Errorf("CiphertextSize(%d) accepted", size)
		}
	}
	for _, sealed := range []int64{-1, 0, HeaderSize, HeaderSize + TagSize - 1, HeaderSize + sealedSize + 1, HeaderSize + sealedSize + TagSize} {
		if n, err := PlaintextSize(sealed); !errors.Is(err, ErrNotAuthentic) {
			t.Errorf("PlaintextSize(%d) = %d, %v; want ErrNotAuthentic", sealed, n, err)
		}
	}
	if _, err := NewEncryptReader(bytes.NewReader(nil), testKey[:16], nil); err == nil {
		t.Error("a 16-byte key was accepted")
	}
	sealed := seal(t, AES256GCM, []byte("abc"), testKey, nil)
	for _, r := range [][2]int64{{-1, 1}, {0, 4}, {4, 0}, {2, -1}} {
		if _, err := openRange(sealed, 3, testKey, nil, r[0], r[1]); err == nil {
			t.Errorf("range %v of 3 bytes accepted", r)
		}
	}
}

// TestEveryRange reads every range of an object inside one package, and
// every range between boundary points of an object of several packages.
func TestEveryRange(t *testing.T) {
	small := randomBytes(t, 300)
	sealed := seal(t, AES256GCM, small, testKey, testAAD)
	for off := int64(0); off <= 300; off++ {
		for n := int64(0); off+n <= 300; n++ {
			checkRange(t, sealed, small, off, n)
		}
	}
	// More packages than the readers take at once (sealBatch): ranges
	// from and to every package boundary, across batches.
	size := int64((2*sealBatch+1)*PackageSize + 100)
	plain := randomBytes(t, size)
	sealed = seal(t, ChaCha20Poly1305, plain, testKey, testAAD)
	var points []int64
	for b := int64(0); b <= size; b = min(b+PackageSize, size+1) {
		for _, d := range []int64{-1, 0, 1} {
			if p := b + d; p >= 0 && p <= size {
				points = append(points, p)
			}
		}
	}
	for _, a := range points {
		for _, b := range points {
			if a <= b {
				checkRange(t, sealed, plain, a, b-a)
			}
		}
	}
}

func checkRange(t *testing.T, sealed, plain []byte, off, n int64) {
	t.Helper()
	got, err := openRange(sealed, int64(len(plain)), testKey, testAAD, off, n)
	if err != nil || !bytes.Equal(got, plain[off:off+n]) {
		t.Fatalf("range [%d, +%d): %d bytes (equal %v), %v", off, n, len(got), bytes.Equal(got, plain[off:off+n]), err)
	}
}

// countingReader counts the bytes a range reader reads from its source.
type countingReader struct {
	io.ReadSeeker
	read int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.ReadSeeker.Read(p)
	c.read += int64(n)
	return n, err
}

func TestRangeReadsOnlyItsPackages(t *testing.T) {
	plain := randomBytes(t, 16<<20)
	sealed := seal(t, AES256GCM, plain, testKey, testAAD)
	off := int64(7<<20 + 12345)
	src := &countingReader{ReadSeeker: bytes.NewReader(sealed)}
	r, err := NewRangeReader(src, int64(len(plain)), testKey, testAAD, off, 1024)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, plain[off:off+1024]) {
		t.Fatalf("range: %d bytes, %v", len(got), err)
	}
	if src.read != HeaderSize+sealedSize {
		t.Errorf("a 1 KiB range inside one package read %d sealed bytes, want the header and one package, %d", src.read, HeaderSize+sealedSize)
	}
	// A range over parts of two packages reads those two, no more.
	src = &countingReader{ReadSeeker: bytes.NewReader(sealed)}
	if r, err = NewRangeReader(src, int64(len(plain)), testKey, testAAD, off, PackageSize); err != nil {
		t.Fatal(err)
	}
	if got, err = io.ReadAll(r); err != nil || !bytes.Equal(got, plain[off:off+PackageSize]) {
		t.Fatalf("range: %d bytes, %v", len(got), err)
	}
	if src.read != HeaderSize+2*sealedSize {
		t.Errorf("a range over two packages read %d sealed bytes, want the header and two packages, %d", src.read, HeaderSize+2*sealedSize)
	}
}

type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

func TestSourceErrorsPassThrough(t *testing.T) {
	boom := errors.New("boom")
	enc, err := NewEncryptReader(io.MultiReader(bytes.NewReader(make([]byte, PackageSize+5)), failingReader{boom}), testKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(enc); !errors.Is(err, boom) {
		t.Errorf("encrypting a failing source: %v, want %v", err, boom)
	}
	sealed := seal(t, AES256GCM, make([]byte, 10), testKey, nil)
	dec, err := NewDecryptReader(io.MultiReader(bytes.NewReader(sealed[:HeaderSize+3]), failingReader{boom}), 10, testKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(dec); !errors.Is(err, boom) || errors.Is(err, ErrNotAuthentic) {
		t.Errorf("decrypting a failing source: %v, want %v alone", err, boom)
	}
}

func TestDefaultSuiteSeals(t *testing.T) {
	sealed := seal(t, DefaultSuite(), []byte("x"), testKey, nil)
	if Suite(sealed[5]) != DefaultSuite() || DefaultSuite().String() == "" {
		t.Errorf("header suite %d, default %v", sealed[5], DefaultSuite())
	}
}
