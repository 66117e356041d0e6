package format

import (
	"bytes"
	"io"
	"testing"
)

// The benchmarks of docs/adr/0027: seal and open 1 MiB and 16 MiB whole,
// and read 1 KiB ranges of a 16 MiB object.

var benchSizes = []struct {
	name string
	size int64
}{{"1MiB", 1 << 20}, {"16MiB", 16 << 20}}

func BenchmarkEncrypt(b *testing.B) {
	for _, suite := range suites {
		for _, s := range benchSizes {
			b.Run(suite.String()+"/"+s.name, func(b *testing.B) {
				plain := make([]byte, s.size)
				b.SetBytes(s.size)
				for b.Loop() {
					r, err := NewEncryptReaderSuite(bytes.NewReader(plain), suite, testKey, testAAD)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := io.Copy(io.Discard, r); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkDecrypt(b *testing.B) {
	for _, suite := range suites {
		for _, s := range benchSizes {
			b.Run(suite.String()+"/"+s.name, func(b *testing.B) {
				sealed := seal(b, suite, make([]byte, s.size), testKey, testAAD)
				b.SetBytes(s.size)
				for b.Loop() {
					r, err := NewDecryptReader(bytes.NewReader(sealed), s.size, testKey, testAAD)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := io.Copy(io.Discard, r); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkRange1KiB(b *testing.B) {
	const size = 16 << 20
	sealed := seal(b, AES256GCM, make([]byte, size), testKey, testAAD)
	src := bytes.NewReader(sealed)
	buf := make([]byte, 1024)
	off := int64(0)
	for b.Loop() {
		off = (off + 7<<20 + 12345) % (size - 1024) // a different place each time
		r, err := NewRangeReader(src, size, testKey, testAAD, off, 1024)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(r, buf); err != nil {
			b.Fatal(err)
		}
	}
}
