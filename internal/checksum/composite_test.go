package checksum

import (
	"crypto/sha256"
	"encoding/binary"
	"hash/crc32"
	"strconv"
	"testing"
)

// TestComposite checks the COMPOSITE checksum against a hand-built one: the
// part CRC32Cs written out as big-endian words and hashed with the standard
// library directly.
func TestComposite(t *testing.T) {
	parts := [][]byte{[]byte("hello "), []byte("world"), []byte("!")}
	var partSums [][]byte
	var concat []byte
	tab := crc32.MakeTable(crc32.Castagnoli)
	for _, p := range parts {
		c := crc32.Checksum(p, tab)
		concat = binary.BigEndian.AppendUint32(concat, c)
		partSums = append(partSums, sum(CRC32C, p))
	}
	// "hello " = 0x... computed by hash/crc32 above; the composite is the
	// CRC32C of the 12 concatenated bytes.
	want := binary.BigEndian.AppendUint32(nil, crc32.Checksum(concat, tab))
	got := Composite(CRC32C, partSums)
	if Encode(got) != Encode(want) {
		t.Fatalf("composite %x, want %x", got, want)
	}
	if s := Encode(got) + "-" + strconv.Itoa(len(parts)); len(s) != 10 {
		t.Errorf("rendered %q", s)
	}
	// SHA256 composite of two parts.
	a, b := sha256.Sum256([]byte("part one")), sha256.Sum256([]byte("part two"))
	wantSHA := sha256.Sum256(append(a[:], b[:]...))
	if got := Composite(SHA256, [][]byte{a[:], b[:]}); Encode(got) != Encode(wantSHA[:]) {
		t.Errorf("sha256 composite %x", got)
	}
	// A single-part composite is the checksum of that part's checksum, not
	// the part's checksum itself.
	one := sum(CRC32, []byte("x"))
	if Encode(Composite(CRC32, [][]byte{one})) == Encode(one) {
		t.Error("composite of one part must hash the checksum")
	}
}
