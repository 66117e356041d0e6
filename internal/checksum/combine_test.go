package checksum

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

var crcs = []Algorithm{CRC32, CRC32C, CRC64NVME}

// TestCombineCRCProperty: for random data cut at random points, folding
// CombineCRC over the pieces' CRCs gives the CRC of the whole.
func TestCombineCRCProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 300; iter++ {
		data := make([]byte, rng.IntN(1<<16))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		cuts := []int{0}
		for range rng.IntN(6) {
			cuts = append(cuts, rng.IntN(len(data)+1))
		}
		cuts = append(cuts, len(data))
		sortInts(cuts)
		for _, a := range crcs {
			acc := sum(a, nil)
			for i := 1; i < len(cuts); i++ {
				part := data[cuts[i-1]:cuts[i]]
				var err error
				acc, err = CombineCRC(a, acc, sum(a, part), int64(len(part)))
				if err != nil {
					t.Fatal(err)
				}
			}
			if want := sum(a, data); !bytes.Equal(acc, want) {
				t.Fatalf("%s: %d bytes cut at %v: combined %x, whole %x", a, len(data), cuts, acc, want)
			}
		}
	}
}

func sortInts(s []int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func TestCombineCRCEdges(t *testing.T) {
	for _, a := range crcs {
		x := sum(a, []byte("hello world"))
		// An empty second part leaves the CRC unchanged.
		if got, err := CombineCRC(a, x, sum(a, nil), 0); err != nil || !bytes.Equal(got, x) {
			t.Errorf("%s: combine with empty: %x, %v", a, got, err)
		}
		// An empty first part yields the second.
		if got, err := CombineCRC(a, sum(a, nil), x, 11); err != nil || !bytes.Equal(got, x) {
			t.Errorf("%s: empty then x: %x, %v", a, got, err)
		}
		hello, world := sum(a, []byte("hello ")), sum(a, []byte("world"))
		if got, _ := CombineCRC(a, hello, world, 5); Encode(got) != helloWorld[a] {
			t.Errorf("%s: hello+world = %s, want %s", a, Encode(got), helloWorld[a])
		}
		if _, err := CombineCRC(a, x[:2], x, 1); !errors.Is(err, ErrMalformedChecksum) {
			t.Errorf("%s: short CRC: %v", a, err)
		}
		if _, err := CombineCRC(a, x, x, -1); err == nil {
			t.Errorf("%s: negative length accepted", a)
		}
	}
	for _, a := range []Algorithm{SHA1, SHA256, "MD5"} {
		if _, err := CombineCRC(a, nil, nil, 1); !errors.Is(err, ErrNotCombinable) {
			t.Errorf("%s: %v", a, err)
		}
	}
}

// TestCombineCRCLargeLength checks a length far beyond anything one can hash
// in a test: the CRC of 2^40 zero bytes computed two ways (2^40 = 2^39+2^39,
// and 2^40 = 1 MiB combined 2^20 times by doubling).
func TestCombineCRCLargeLength(t *testing.T) {
	for _, a := range crcs {
		mib := sum(a, make([]byte, 1<<20))
		// Doubling: zeros(2n) = combine(zeros(n), zeros(n), n).
		acc, n := mib, int64(1<<20)
		for n < 1<<40 {
			var err error
			acc, err = CombineCRC(a, acc, acc, n)
			if err != nil {
				t.Fatal(err)
			}
			n *= 2
		}
		// Versus one step: zeros(2^40) = combine(zeros(2^40 - 1 MiB), zeros(1 MiB), 1 MiB).
		prev, m := mib, int64(1<<20)
		for m < 1<<39 {
			prev, _ = CombineCRC(a, prev, prev, m)
			m *= 2
		}
		// prev = zeros(2^39); zeros(2^40) = combine(prev, prev, 2^39).
		whole, _ := CombineCRC(a, prev, prev, 1<<39)
		if !bytes.Equal(whole, acc) {
			t.Errorf("%s: %x != %x", a, whole, acc)
		}
	}
}

// TestCombineCRC64NVMEVector checks a combine against values published with
// another implementation (quilt's combine_crc64nvme test): CRC64NVME("test1")
// = 7585d198a2d5b287, ("test2") = f436c0c0f28b290c, ("test1test2") =
// 215f4b83b86262f3.
func TestCombineCRC64NVMEVector(t *testing.T) {
	c1, c2 := sum(CRC64NVME, []byte("test1")), sum(CRC64NVME, []byte("test2"))
	if hexOf(c1) != "7585d198a2d5b287" || hexOf(c2) != "f436c0c0f28b290c" {
		t.Fatalf("parts %x %x", c1, c2)
	}
	got, err := CombineCRC(CRC64NVME, c1, c2, 5)
	if err != nil || hexOf(got) != "215f4b83b86262f3" {
		t.Fatalf("combined %x, %v", got, err)
	}
}
