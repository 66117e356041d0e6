package bench

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"io"
	"testing"
)

func TestPayloadReaderAndVerifier(t *testing.T) {
	p := NewPayload(7)
	const key = "bench/x/obj/1"
	n := int64(payloadSize + 12345) // wraps around the buffer
	var viaRead, viaWriteTo bytes.Buffer
	if _, err := io.CopyBuffer(&viaRead, struct{ io.Reader }{p.Reader(key, 0, n)}, make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Reader(key, 0, n).WriteTo(&viaWriteTo); err != nil {
		t.Fatal(err)
	}
	if int64(viaRead.Len()) != n || !bytes.Equal(viaRead.Bytes(), viaWriteTo.Bytes()) {
		t.Fatal("Read and WriteTo disagree")
	}
	// A part starting at an offset continues the same stream.
	var part bytes.Buffer
	_, _ = p.Reader(key, 5000, 100).WriteTo(&part)
	if !bytes.Equal(part.Bytes(), viaRead.Bytes()[5000:5100]) {
		t.Fatal("offset reader is not a slice of the object")
	}

	sum := md5.Sum(viaRead.Bytes())
	etag := `"` + hex.EncodeToString(sum[:]) + `"`
	v := p.verifier(key)
	_, _ = io.CopyBuffer(v, bytes.NewReader(viaRead.Bytes()), make([]byte, 777))
	if err := v.check(etag); err != nil {
		t.Fatalf("intact object failed verification: %v", err)
	}
	if err := v.check(`"00000000000000000000000000000000"`); err == nil {
		t.Fatal("wrong MD5 ETag passed")
	}
	if err := v.check(`"abc-2"`); err != nil {
		t.Fatalf("multipart ETag is not an MD5 and must be skipped: %v", err)
	}
	bad := bytes.Clone(viaRead.Bytes())
	bad[len(bad)/2] ^= 1
	v = p.verifier(key)
	_, _ = v.Write(bad)
	if err := v.check(""); err == nil {
		t.Fatal("corrupted object passed")
	}
	if keyOffset("a") == keyOffset("b") {
		t.Fatal("keys share a start offset")
	}
}

func BenchmarkPayloadWriteTo(b *testing.B) {
	p := NewPayload(1)
	b.SetBytes(1 << 20)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = p.Reader("k", 0, 1<<20).WriteTo(io.Discard)
	}
}
