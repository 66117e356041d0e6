package sigv4

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

func randomBytes(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

func TestChunkedRoundTrip(t *testing.T) {
	sizes := []int{0, 1, 7, 8191, 8192, 8193, 3*8192 + 5}
	for _, mode := range chunkedModes {
		var trailers []Trailer
		if mode != StreamingPayload {
			trailers = []Trailer{{"x-amz-checksum-crc32", "AAAAAA=="}, {"x-amz-meta-note", "a b"}}
		}
		for _, size := range sizes {
			for _, chunk := range []int{1, 7, 8192, 64 << 10} {
				if chunk == 1 && size > 8193 {
					continue
				}
				data := randomBytes(uint64(size), size)
				body := encodeChunked(t, chunkedResult(mode), data, chunk, trailers)
				readers := map[string]io.Reader{
					"plain":    bytes.NewReader(body),
					"one-byte": iotest.OneByteReader(bytes.NewReader(body)),
					"half":     iotest.HalfReader(bytes.NewReader(body)),
					"data-err": iotest.DataErrReader(bytes.NewReader(body)),
				}
				for name, r := range readers {
					got, cr, err := decodeChunked(t, r, chunkedResult(mode), int64(size), trailerNames(trailers)...)
					if err != nil || !bytes.Equal(got, data) {
						t.Fatalf("%s size %d chunk %d %s: %d bytes, %v", mode, size, chunk, name, len(got), err)
					}
					for _, tr := range trailers {
						if cr.Trailer(tr.Name) != tr.Value {
							t.Errorf("%s: trailer %s = %q", mode, tr.Name, cr.Trailer(tr.Name))
						}
					}
				}
			}
		}
	}
}

// TestChunkedReaderContract runs the io.Reader conformance checks, which
// include small reads and reads after EOF.
func TestChunkedReaderContract(t *testing.T) {
	data := randomBytes(1, 20000)
	for _, mode := range chunkedModes {
		body := encodeChunked(t, chunkedResult(mode), data, 8192, nil)
		cr, err := NewChunkedReader(bytes.NewReader(body), chunkedResult(mode), int64(len(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := iotest.TestReader(cr, data); err != nil {
			t.Errorf("%s: %v", mode, err)
		}
	}
}

// TestChunkedUnsignedStreams: in the unsigned mode bytes reach the caller
// as they arrive, before their chunk is complete.
func TestChunkedUnsignedStreams(t *testing.T) {
	pr, pw := io.Pipe()
	cr, err := NewChunkedReader(pr, chunkedResult(StreamingUnsignedPayloadTrailer), 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		_, _ = pw.Write([]byte("a\r\nfirst"))
		_, _ = pw.Write([]byte("-half\r\n0\r\n\r\n"))
		pw.Close()
	}()
	buf := make([]byte, 64)
	n, err := cr.Read(buf)
	if err != nil || string(buf[:n]) != "first" {
		t.Fatalf("first read %q, %v", buf[:n], err)
	}
	rest, err := io.ReadAll(cr)
	if err != nil || string(rest) != "-half" {
		t.Fatalf("rest %q, %v", rest, err)
	}
}

func TestSignChunkedRequest(t *testing.T) {
	data := randomBytes(7, 100000)
	for _, mode := range chunkedModes {
		u := ChunkedUpload{Mode: mode, DecodedLength: int64(len(data)), ChunkSize: 8192}
		if mode != StreamingPayload {
			u.TrailerNames = []string{"X-Amz-Checksum-Crc32"}
			u.Trailers = func() []Trailer { return []Trailer{{"x-amz-checksum-crc32", "AAAAAA=="}} }
		}
		r := awsChunkedExample(nil, false)
		r.Header.Del("Authorization")
		r.Header.Del("Content-Length")
		if err := SignChunkedRequest(r, exampleAccessKey, exampleSecret, "us-east-1", exampleTime, bytes.NewReader(data), u); err != nil {
			t.Fatal(err)
		}
		res, err := exampleVerifier().Verify(r)
		if err != nil {
			t.Fatalf("%s: Verify: %v", mode, err)
		}
		got, cr, err := decodeChunked(t, r.Body, res, int64(len(data)), r.Header.Values("X-Amz-Trailer")...)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: %d bytes, %v", mode, len(got), err)
		}
		if mode != StreamingPayload && cr.Trailer("x-amz-checksum-crc32") != "AAAAAA==" {
			t.Errorf("%s: trailer missing", mode)
		}
	}
	r := awsChunkedExample(nil, false)
	if err := SignChunkedRequest(r, "a", "b", "us-east-1", exampleTime, nil, ChunkedUpload{Mode: UnsignedPayload}); err == nil {
		t.Error("accepted a non-chunked mode")
	}
}

func BenchmarkChunkedReader(b *testing.B) {
	data := randomBytes(8, 4<<20)
	for _, mode := range chunkedModes {
		body := encodeChunked(b, chunkedResult(mode), data, DefaultChunkSize, nil)
		b.Run(mode, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			buf := make([]byte, 1<<20)
			for b.Loop() {
				cr, _ := NewChunkedReader(bytes.NewReader(body), chunkedResult(mode), int64(len(data)), nil)
				if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{cr}, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
