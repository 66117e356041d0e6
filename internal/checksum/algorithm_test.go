package checksum

import (
	"errors"
	"strings"
	"testing"
)

// helloWorld holds the checksums of "hello world" as S3 sends them. They are
// the expectations of aws-sdk-go-v2's own tests
// (service/internal/checksum/algorithms_test.go, TestComputeChecksumReader),
// so they check our digests and our encoding against a real client.
var helloWorld = map[Algorithm]string{
	CRC32:     "DUoRhQ==",
	CRC32C:    "yZRlqg==",
	CRC64NVME: "jSnVw/bqjr4=",
	SHA1:      "Kq5sNclPz7QV2+lfQIuc6R7oRu0=",
	SHA256:    "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek=",
}

func sum(a Algorithm, data []byte) []byte {
	h := a.New()
	h.Write(data)
	return h.Sum(nil)
}

func TestKnownVectors(t *testing.T) {
	for _, a := range Algorithms {
		if got := Encode(sum(a, []byte("hello world"))); got != helloWorld[a] {
			t.Errorf("%s(hello world) = %s, want %s", a, got, helloWorld[a])
		}
	}
	// The CRC catalogue's check values (CRC of "123456789"): CRC-32/ISO-HDLC,
	// CRC-32/ISCSI and CRC-64/NVME.
	check := map[Algorithm]string{
		CRC32:     "cbf43926",
		CRC32C:    "e3069283",
		CRC64NVME: "ae8b14860a799888",
	}
	for a, want := range check {
		if got := hexOf(sum(a, []byte("123456789"))); got != want {
			t.Errorf("%s check value = %s, want %s", a, got, want)
		}
	}
	// The AWS documentation's trailing-checksum example ("Signature
	// calculations for trailing headers") uploads 66560 bytes of 'a' with
	// x-amz-checksum-crc32c:sOO8/Q==.
	if got := Encode(sum(CRC32C, []byte(strings.Repeat("a", 66560)))); got != "sOO8/Q==" {
		t.Errorf("CRC32C of the AWS example body = %s, want sOO8/Q==", got)
	}
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func TestParseAlgorithm(t *testing.T) {
	for in, want := range map[string]Algorithm{
		"CRC32": CRC32, "crc32": CRC32, "Crc32C": CRC32C, "crc64nvme": CRC64NVME,
		"sha1": SHA1, "SHA256": SHA256,
	} {
		if got, err := ParseAlgorithm(in); err != nil || got != want {
			t.Errorf("ParseAlgorithm(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "MD5", "crc", "sha-256", "SHA512", " crc32"} {
		if _, err := ParseAlgorithm(in); !errors.Is(err, ErrUnknownAlgorithm) {
			t.Errorf("ParseAlgorithm(%q): err %v", in, err)
		}
	}
}

func TestHeaderNameAndSize(t *testing.T) {
	want := map[Algorithm]string{
		CRC32: "x-amz-checksum-crc32", CRC32C: "x-amz-checksum-crc32c", CRC64NVME: "x-amz-checksum-crc64nvme",
		SHA1: "x-amz-checksum-sha1", SHA256: "x-amz-checksum-sha256",
	}
	for _, a := range Algorithms {
		if a.HeaderName() != want[a] {
			t.Errorf("%s header %q", a, a.HeaderName())
		}
		if n := len(sum(a, nil)); a.Size() != n || a.New().Size() != n {
			t.Errorf("%s Size %d, digest %d", a, a.Size(), n)
		}
		if a.IsCRC() != (a != SHA1 && a != SHA256) {
			t.Errorf("%s IsCRC %v", a, a.IsCRC())
		}
	}
}

func TestDecode(t *testing.T) {
	for a, v := range helloWorld {
		b, err := a.Decode(v)
		if err != nil || Encode(b) != v {
			t.Errorf("%s.Decode(%q) = %x, %v", a, v, b, err)
		}
	}
	bad := map[Algorithm][]string{
		CRC32:     {"", "DUoRhQ", "DUoRhQ=", "DUoRhQ==x", "jSnVw/bqjr4=", "!!!!!!==", "DUoRhR=="},
		SHA256:    {"DUoRhQ=="},
		"UNKNOWN": {"DUoRhQ=="},
	}
	for a, vs := range bad {
		for _, v := range vs {
			if _, err := a.Decode(v); err == nil {
				t.Errorf("%s.Decode(%q) accepted", a, v)
			}
		}
	}
}
