package sigv4

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func hexSHA(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestPayloadVerifierMatch(t *testing.T) {
	for _, body := range []string{"", "hello", strings.Repeat("0123456789", 100000)} {
		readers := map[string]io.Reader{
			"plain":    strings.NewReader(body),
			"one-byte": iotest.OneByteReader(strings.NewReader(body)),
			"data-err": iotest.DataErrReader(strings.NewReader(body)),
			"half":     iotest.HalfReader(strings.NewReader(body)),
		}
		for name, r := range readers {
			got, err := io.ReadAll(NewPayloadVerifier(r, hexSHA(body)))
			if err != nil || string(got) != body {
				t.Errorf("%s len %d: err %v, read %d bytes", name, len(body), err, len(got))
			}
		}
	}
	if err := iotest.TestReader(NewPayloadVerifier(strings.NewReader("abcdef"), hexSHA("abcdef")), []byte("abcdef")); err != nil {
		t.Error(err)
	}
}

func TestPayloadVerifierMismatch(t *testing.T) {
	cases := map[string]string{
		"altered body":   "hello, world!",
		"truncated body": "hello",
		"extended body":  "hello, world and more",
	}
	want := hexSHA("hello, world")
	for name, body := range cases {
		pv := NewPayloadVerifier(strings.NewReader(body), want)
		got, err := io.ReadAll(pv)
		if !errors.Is(err, ErrContentSHA256Mismatch) {
			t.Errorf("%s: err %v, want ErrContentSHA256Mismatch", name, err)
		}
		if string(got) != body {
			t.Errorf("%s: bytes must pass through unchanged, got %q", name, got)
		}
		if _, err := pv.Read(make([]byte, 1)); !errors.Is(err, ErrContentSHA256Mismatch) {
			t.Errorf("%s: mismatch must be sticky, got %v", name, err)
		}
	}
	// Upper-case or malformed expectations never match.
	for _, exp := range []string{strings.ToUpper(hexSHA("x")), "", "zz"} {
		if _, err := io.ReadAll(NewPayloadVerifier(strings.NewReader("x"), exp)); !errors.Is(err, ErrContentSHA256Mismatch) {
			t.Errorf("expected %q: err %v", exp, err)
		}
	}
}

// TestPayloadVerifierStreams: bytes reach the caller before the body ends;
// the verifier holds nothing back.
func TestPayloadVerifierStreams(t *testing.T) {
	pr, pw := io.Pipe()
	pv := NewPayloadVerifier(pr, hexSHA("first second"))
	go func() {
		_, _ = pw.Write([]byte("first "))
		_, _ = pw.Write([]byte("second"))
		pw.Close()
	}()
	buf := make([]byte, 64)
	n, err := pv.Read(buf)
	if err != nil || string(buf[:n]) != "first " {
		t.Fatalf("first read %q, %v", buf[:n], err)
	}
	rest, err := io.ReadAll(pv)
	if err != nil || string(rest) != "second" {
		t.Fatalf("rest %q, %v", rest, err)
	}
}

func TestPayloadVerifierPassesErrors(t *testing.T) {
	boom := errors.New("boom")
	_, err := io.ReadAll(NewPayloadVerifier(iotest.ErrReader(boom), EmptySHA256))
	if err != boom {
		t.Fatalf("err %v, want the underlying error", err)
	}
}

func TestValidContentSHA256(t *testing.T) {
	good := []string{EmptySHA256, UnsignedPayload, StreamingUnsignedPayloadTrailer, StreamingPayload,
		StreamingPayloadTrailer, StreamingECDSAPayload, StreamingECDSAPayloadTrailer}
	for _, v := range good {
		if !validContentSHA256(v) {
			t.Errorf("%q rejected", v)
		}
	}
	bad := []string{"", "unsigned-payload", "STREAMING-FOO", EmptySHA256[:63], EmptySHA256 + "0",
		strings.ToUpper(EmptySHA256), strings.Replace(EmptySHA256, "e", "g", 1)}
	for _, v := range bad {
		if validContentSHA256(v) {
			t.Errorf("%q accepted", v)
		}
	}
}
