package cp

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/jogstore/jog/internal/checksum"
)

// digest is alg over b.
func digest(alg string, b []byte) []byte {
	h := newHash(alg)
	h.Write(b)
	return h.Sum(nil)
}

func testData(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}

func TestExpect(t *testing.T) {
	data := testData(1000)
	crc := checksum.Encode(digest("CRC64NVME", data))
	md := md5.Sum(data)
	for _, tc := range []struct {
		name string
		info ObjectInfo
		want expectation
		bad  bool
	}{
		{"full-object CRC", ObjectInfo{Algorithm: "CRC64NVME", Checksum: crc, ChecksumType: "FULL_OBJECT"},
			expectation{alg: "CRC64NVME", want: digest("CRC64NVME", data), combinable: true}, false},
		{"composite CRC32C", ObjectInfo{Algorithm: "CRC32C", Checksum: "AAAAAA==-3", ChecksumType: "COMPOSITE"},
			expectation{alg: "CRC32C", want: []byte{0, 0, 0, 0}, composite: true, parts: 3}, false},
		{"SHA256 of a PUT: not combinable", ObjectInfo{Algorithm: "SHA256", Checksum: checksum.Encode(digest("SHA256", data))},
			expectation{alg: "SHA256", want: digest("SHA256", data)}, false},
		{"MD5 ETag", ObjectInfo{ETag: hex.EncodeToString(md[:])}, expectation{alg: md5ETag, want: md[:]}, false},
		{"multipart MD5 ETag", ObjectInfo{ETag: hex.EncodeToString(md[:]) + "-4"}, expectation{alg: md5ETag, want: md[:], composite: true, parts: 4}, false},
		{"ETag no MD5", ObjectInfo{ETag: "opaque"}, expectation{}, false},
		{"bad checksum", ObjectInfo{Algorithm: "CRC32", Checksum: "!!"}, expectation{}, true},
		{"composite without count", ObjectInfo{Algorithm: "CRC32", Checksum: "AAAAAA==", ChecksumType: "COMPOSITE"}, expectation{}, true},
	} {
		got, err := expect(tc.info)
		if (err != nil) != tc.bad || got.alg != tc.want.alg || !bytes.Equal(got.want, tc.want.want) ||
			got.composite != tc.want.composite || got.parts != tc.want.parts || got.combinable != tc.want.combinable {
			t.Errorf("%s: expect = %+v, %v; want %+v (error: %v)", tc.name, got, err, tc.want, tc.bad)
		}
	}
}

// rangeSums splits data into ranges of size n and returns each range's
// digest and size.
func rangeSums(alg string, data []byte, n int) ([][]byte, []int64) {
	var sums [][]byte
	var sizes []int64
	for off := 0; off < len(data); off += n {
		end := min(off+n, len(data))
		sums = append(sums, digest(alg, data[off:end]))
		sizes = append(sizes, int64(end-off))
	}
	return sums, sizes
}

func TestWholeSum(t *testing.T) {
	data := testData(10_000)
	for _, alg := range []string{"CRC32", "CRC32C", "CRC64NVME"} {
		e := expectation{alg: alg, want: digest(alg, data), combinable: true}
		sums, sizes := rangeSums(alg, data, 3000)
		got, ok, err := e.wholeSum(sums, sizes)
		if err != nil || !ok || e.check("k", got) != nil {
			t.Errorf("%s: ranges combined to %x (%v, %v), want %x", alg, got, ok, err, e.want)
		}
	}
	// COMPOSITE: the digest of the parts' digests; an MD5 multipart ETag
	// the same with MD5.
	for _, alg := range []string{"SHA1", "CRC32C", md5ETag} {
		sums, sizes := rangeSums(alg, data, 4000)
		var cat []byte
		for _, s := range sums {
			cat = append(cat, s...)
		}
		e := expectation{alg: alg, want: digest(alg, cat), composite: true, parts: len(sums)}
		got, ok, err := e.wholeSum(sums, sizes)
		if err != nil || !ok || e.check("k", got) != nil {
			t.Errorf("%s composite: %x (%v, %v), want %x", alg, got, ok, err, e.want)
		}
		if _, _, err := e.wholeSum(sums[1:], sizes[1:]); err == nil {
			t.Errorf("%s composite with a part missing: no error", alg)
		}
	}
	// SHA256 of several ranges cannot be made from them: the file is
	// hashed again.
	sums, sizes := rangeSums("SHA256", data, 4000)
	if _, ok, _ := (expectation{alg: "SHA256"}).wholeSum(sums, sizes); ok {
		t.Error("SHA256 over 3 ranges: wholeSum claims a digest")
	}
}

// TestVerifyMismatch: wrong bytes are an error naming both digests, on
// every path: combined CRCs, a composite, a file hashed again.
func TestVerifyMismatch(t *testing.T) {
	data := testData(9000)
	bad := bytes.Clone(data)
	bad[4500] ^= 1
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := New(nil, Options{})
	for _, tc := range []struct {
		name string
		info ObjectInfo
	}{
		{"CRC64NVME", ObjectInfo{Algorithm: "CRC64NVME", Checksum: checksum.Encode(digest("CRC64NVME", data))}},
		{"SHA256", ObjectInfo{Algorithm: "SHA256", Checksum: checksum.Encode(digest("SHA256", data))}},
		{"MD5 ETag", ObjectInfo{ETag: hex.EncodeToString(digest(md5ETag, data))}},
	} {
		e, err := expect(tc.info)
		if err != nil {
			t.Fatal(err)
		}
		sums, sizes := rangeSums(e.alg, bad, 2000)
		err = c.verify("k", e, sums, sizes, f, int64(len(bad)))
		var mm *MismatchError
		if !errors.As(err, &mm) || !bytes.Equal(mm.Want, e.want) {
			t.Errorf("%s: verify of changed bytes = %v, want a MismatchError", tc.name, err)
		}
		good, goodSizes := rangeSums(e.alg, data, 2000)
		if e.combinable {
			if err := c.verify("k", e, good, goodSizes, f, int64(len(data))); err != nil {
				t.Errorf("%s: verify of the right bytes: %v", tc.name, err)
			}
		}
	}
	// A composite whose part digests are right but whose object digest is
	// not (a part list that is not the object's).
	sums, sizes := rangeSums("CRC32", data, 3000)
	e := expectation{alg: "CRC32", want: []byte{1, 2, 3, 4}, composite: true, parts: len(sums)}
	if err := c.verify("k", e, sums, sizes, f, int64(len(data))); err == nil {
		t.Error("composite mismatch: no error")
	}
}

func TestContentRange(t *testing.T) {
	for _, tc := range []struct {
		in         string
		start, end int64
		ok         bool
	}{
		{"bytes 0-99/100", 0, 99, true},
		{"bytes 5-5/*", 5, 5, true},
		{"bytes 9-3/10", 0, 0, false},
		{"bytes */100", 0, 0, false},
		{"", 0, 0, false},
	} {
		s, e, ok := contentRange(tc.in)
		if s != tc.start || e != tc.end || ok != tc.ok {
			t.Errorf("contentRange(%q) = %d, %d, %v", tc.in, s, e, ok)
		}
	}
}

func TestTiled(t *testing.T) {
	if err := tiled([]int64{0, 5, 10}, []int64{5, 5, 2}, 12); err != nil {
		t.Errorf("contiguous ranges: %v", err)
	}
	for _, tc := range []struct{ offs, sizes []int64 }{
		{[]int64{0, 6}, []int64{5, 6}}, // a hole
		{[]int64{0, 4}, []int64{5, 8}}, // an overlap
		{[]int64{0, 5}, []int64{5, 5}}, // short of the end
		{[]int64{1, 6}, []int64{5, 6}}, // not from 0
	} {
		if err := tiled(tc.offs, tc.sizes, 12); err == nil {
			t.Errorf("tiled(%v, %v, 12): no error", tc.offs, tc.sizes)
		}
	}
}
