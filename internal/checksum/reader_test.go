package checksum

import (
	"bytes"
	"crypto/md5"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func expectFrom(m map[Algorithm]string) func(Algorithm) string {
	return func(a Algorithm) string { return m[a] }
}

func TestReaderMatch(t *testing.T) {
	body := "hello world"
	readers := map[string]func() io.Reader{
		"plain":    func() io.Reader { return strings.NewReader(body) },
		"one-byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(body)) },
		"data-err": func() io.Reader { return iotest.DataErrReader(strings.NewReader(body)) },
	}
	for name, mk := range readers {
		r := NewReader(mk(), Algorithms, expectFrom(helloWorld))
		got, err := io.ReadAll(r)
		if err != nil || string(got) != body {
			t.Fatalf("%s: %q, %v", name, got, err)
		}
		for _, a := range Algorithms {
			if Encode(r.Sum(a)) != helloWorld[a] {
				t.Errorf("%s: Sum(%s) = %s", name, a, Encode(r.Sum(a)))
			}
		}
	}
	// iotest.TestReader checks the io.Reader contract, including reads
	// after EOF.
	if err := iotest.TestReader(NewReader(strings.NewReader(body), []Algorithm{CRC32C}, expectFrom(helloWorld)), []byte(body)); err != nil {
		t.Error(err)
	}
}

func TestReaderMismatch(t *testing.T) {
	for _, a := range Algorithms {
		want := map[Algorithm]string{a: helloWorld[a]}
		r := NewReader(strings.NewReader("hello world!"), []Algorithm{a, CRC32}, expectFrom(want))
		got, err := io.ReadAll(r)
		var mm ErrChecksumMismatch
		if !errors.As(err, &mm) || mm.Algorithm != a || mm.Expected != helloWorld[a] {
			t.Fatalf("%s: err %v", a, err)
		}
		if string(got) != "hello world!" {
			t.Errorf("%s: bytes must pass through, got %q", a, got)
		}
		if mm.Computed != Encode(r.Sum(a)) || mm.Computed == mm.Expected {
			t.Errorf("%s: mismatch %+v", a, mm)
		}
		if _, err := r.Read(make([]byte, 1)); !errors.As(err, &mm) {
			t.Errorf("%s: mismatch must be sticky, got %v", a, err)
		}
		if !strings.Contains(mm.Error(), a.HeaderName()) {
			t.Errorf("message %q", mm.Error())
		}
	}
	// A malformed expected value never matches.
	r := NewReader(strings.NewReader("hello world"), []Algorithm{CRC32}, expectFrom(map[Algorithm]string{CRC32: "DUoRhQ"}))
	if _, err := io.ReadAll(r); !errors.As(err, new(ErrChecksumMismatch)) {
		t.Errorf("malformed expectation: %v", err)
	}
}

func TestReaderExpectedIsLazy(t *testing.T) {
	var trailer string // set only once the body has been read, like an aws-chunked trailer
	calls := 0
	pr, pw := io.Pipe()
	r := NewReader(pr, []Algorithm{CRC32C, SHA256}, func(a Algorithm) string {
		calls++
		if a == CRC32C {
			return trailer
		}
		return ""
	})
	go func() {
		_, _ = pw.Write([]byte("hello "))
		_, _ = pw.Write([]byte("world"))
		trailer = helloWorld[CRC32C]
		pw.Close()
	}()
	buf := make([]byte, 64)
	n, err := r.Read(buf)
	if err != nil || string(buf[:n]) != "hello " {
		t.Fatalf("first read %q, %v: bytes must stream before the body ends", buf[:n], err)
	}
	if calls != 0 || r.Sum(CRC32C) != nil {
		t.Fatalf("expected called %d times / Sum available before EOF", calls)
	}
	if _, err := io.ReadAll(r); err != nil {
		t.Fatal(err)
	}
	if calls != 2 {
		t.Errorf("expected called %d times, want once per algorithm", calls)
	}
	if r.Sum(CRC32) != nil {
		t.Error("Sum of an algorithm not hashed should be nil")
	}
}

func TestReaderNoExpectations(t *testing.T) {
	r := NewReader(strings.NewReader("hello world"), []Algorithm{SHA1, SHA1}, nil)
	if _, err := io.ReadAll(r); err != nil {
		t.Fatal(err)
	}
	if Encode(r.Sum(SHA1)) != helloWorld[SHA1] {
		t.Error("duplicate algorithms must be hashed once")
	}
}

func TestReaderPassesErrors(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(boom)), Algorithms, expectFrom(helloWorld))
	if _, err := io.ReadAll(r); err != boom {
		t.Fatalf("err %v, want the underlying error", err)
	}
}

// TestReaderStreamsLargeBody: 1 GiB of zeros passes through in small reads;
// the reader holds nothing back, so memory stays flat.
func TestReaderStreamsLargeBody(t *testing.T) {
	size := int64(1 << 30)
	if testing.Short() {
		size = 64 << 20
	}
	r := NewReader(io.LimitReader(zeros{}, size), []Algorithm{CRC32C, CRC64NVME}, nil)
	n, err := io.CopyBuffer(io.Discard, r, make([]byte, 1<<20))
	if err != nil || n != size {
		t.Fatalf("copied %d, %v", n, err)
	}
	// The CRCs of a run of zeros, built from CombineCRC of 1 MiB blocks:
	// independent of the streaming path.
	block := make([]byte, 1<<20)
	for _, a := range []Algorithm{CRC32C, CRC64NVME} {
		b := sum(a, block)
		acc := sum(a, nil)
		for i := int64(0); i < size>>20; i++ {
			acc, err = CombineCRC(a, acc, b, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(acc, r.Sum(a)) {
			t.Errorf("%s of %d zeros: streamed %x, combined %x", a, size, r.Sum(a), acc)
		}
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func BenchmarkReader(b *testing.B) {
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	for _, bc := range []struct {
		name string
		algs []Algorithm
		md5  bool
	}{
		{"CRC32C", []Algorithm{CRC32C}, false},
		{"CRC32C+MD5", []Algorithm{CRC32C}, true},
		{"CRC32", []Algorithm{CRC32}, false},
		{"CRC64NVME", []Algorithm{CRC64NVME}, false},
		{"SHA256", []Algorithm{SHA256}, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(buf)))
			out := make([]byte, 1<<20)
			for b.Loop() {
				var src io.Reader = bytes.NewReader(buf)
				if bc.md5 {
					// The object path hashes MD5 for the ETag alongside.
					src = io.TeeReader(src, md5.New())
				}
				r := NewReader(src, bc.algs, nil)
				for {
					if _, err := r.Read(out); err != nil {
						break
					}
				}
			}
		})
	}
}
