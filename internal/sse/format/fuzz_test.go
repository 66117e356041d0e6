package format

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

// FuzzDecrypt feeds arbitrary bytes as a sealed object. Nothing the fuzzer
// writes is sealed under the key, so no byte may come out, and nothing may
// panic. The seeds are real sealed objects under another key, and their
// headers under this one.
func FuzzDecrypt(f *testing.F) {
	otherKey := bytes.Repeat([]byte{9}, KeySize)
	for _, size := range []int64{0, 1, 100, PackageSize + 1} {
		sealed := seal(f, AES256GCM, make([]byte, size), otherKey, nil)
		f.Add(sealed, uint32(0), uint32(size))
		f.Add(sealed[:HeaderSize], uint32(0), uint32(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, off, n uint32) {
		size, err := PlaintextSize(int64(len(data)))
		if err != nil {
			size = int64(len(data)) // a claimed size the bytes do not match
		}
		start, count := int64(off)%(size+1), int64(n)
		count = min(count, size-start)
		got, err := openRange(data, size, testKey, nil, start, count)
		if len(got) > 0 {
			t.Fatalf("forged: %d bytes out of unsealed input", len(got))
		}
		if count > 0 && err == nil {
			t.Fatal("a non-empty range of unsealed input read without error")
		}
	})
}

// FuzzTamper seals plain, applies the fuzzer's edits (XORs at positions,
// then a cut) and reads a range: what comes out is always a prefix of the
// true range, all of it when nothing was changed.
func FuzzTamper(f *testing.F) {
	f.Add([]byte("hello"), []byte{}, uint16(0), uint32(0), uint32(5))
	f.Add(make([]byte, 300), []byte{0, 20, 1}, uint16(0), uint32(10), uint32(100))
	f.Add(make([]byte, 300), []byte{1, 0, 0x80}, uint16(3), uint32(0), uint32(300))
	f.Fuzz(func(t *testing.T, plain, edits []byte, cut uint16, off, n uint32) {
		size := int64(len(plain))
		sealed := seal(t, AES256GCM, plain, testKey, testAAD)
		changed := false
		for ; len(edits) >= 3; edits = edits[3:] {
			i := int(binary.BigEndian.Uint16(edits)) % len(sealed)
			sealed[i] ^= edits[2]
			changed = changed || edits[2] != 0
		}
		if c := int(cut) % (len(sealed) + 1); c > 0 {
			sealed = sealed[:len(sealed)-c]
			changed = true
		}
		start := int64(off) % (size + 1)
		count := min(int64(n), size-start)
		want := plain[start : start+count]
		r, err := NewRangeReader(bytes.NewReader(sealed), size, testKey, testAAD, start, count)
		var got []byte
		if err == nil {
			got, err = io.ReadAll(r)
		}
		if !bytes.HasPrefix(want, got) {
			t.Fatalf("range [%d, +%d) gave bytes that are not the plaintext's", start, count)
		}
		if err != nil && !errors.Is(err, ErrNotAuthentic) && !errors.Is(err, ErrUnknownFormat) {
			t.Fatalf("unexpected error %v", err)
		}
		if !changed && (err != nil || len(got) != len(want)) {
			t.Fatalf("untouched: %d of %d bytes, %v", len(got), len(want), err)
		}
	})
}
