package sched

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"slices"
	"testing"
)

// sizes records the length of every Read or Write passed through it.
type sizes struct {
	max, calls int
}

func (s *sizes) see(n int) {
	s.calls++
	s.max = max(s.max, n)
}

type sizedReader struct {
	r io.Reader
	s *sizes
}

func (r sizedReader) Read(p []byte) (int, error) { r.s.see(len(p)); return r.r.Read(p) }

type sizedWriter struct {
	w io.Writer
	s *sizes
}

func (w sizedWriter) Write(p []byte) (int, error) { w.s.see(len(p)); return w.w.Write(p) }

func copyThrough(t *testing.T, d *Direction, data []byte) (reads, writes sizes) {
	t.Helper()
	ctx := context.Background()
	f := d.Flow("r", "p")
	var out bytes.Buffer
	// A plain buffer in between so io.Copy uses Read and Write, as the
	// data path's copy loops do.
	buf := make([]byte, 1<<20)
	_, err := io.CopyBuffer(
		struct{ io.Writer }{Writer(ctx, sizedWriter{&out, &writes}, f)},
		struct{ io.Reader }{Reader(ctx, sizedReader{bytes.NewReader(data), &reads}, f)},
		buf)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), data) {
		t.Fatal("bytes changed on the way through")
	}
	return reads, writes
}

func TestReaderWriterUnscheduledPassThrough(t *testing.T) {
	d := NewDirection(Config{Capacity: 1, Chunk: testChunk})
	data := make([]byte, 3<<20)
	rand.Read(data)
	reads, writes := copyThrough(t, d, data)
	if reads.max != 1<<20 || writes.max != 1<<20 {
		t.Errorf("unscheduled: largest read %d, write %d; want the caller's 1 MiB untouched", reads.max, writes.max)
	}
}

func TestReaderWriterScheduledChunks(t *testing.T) {
	d := NewDirection(Config{Capacity: 1e12, Chunk: testChunk})
	if err := d.Reserve("r", Spec{Rate: 1e9}); err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 3<<20+12345)
	rand.Read(data)
	reads, writes := copyThrough(t, d, data)
	if reads.max != testChunk || writes.max != testChunk {
		t.Errorf("scheduled: largest read %d, write %d; want one chunk, %d", reads.max, writes.max, testChunk)
	}
}

func TestReaderWriterCancelled(t *testing.T) {
	d := NewDirection(Config{Capacity: 1e12, Chunk: testChunk})
	if err := d.Reserve("r", Spec{Rate: 1e9}); err != nil {
		t.Fatal(err)
	}
	ctx := canceled()
	f := d.Flow("r", "p")
	n, err := Reader(ctx, bytes.NewReader(make([]byte, 100)), f).Read(make([]byte, 100))
	if n != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("Read with a cancelled context = %d, %v", n, err)
	}
	var out bytes.Buffer
	n, err = Writer(ctx, &out, f).Write(make([]byte, 100))
	if n != 0 || out.Len() != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("Write with a cancelled context = %d, %v (%d bytes through)", n, err, out.Len())
	}
}

func BenchmarkReaderUnscheduled(b *testing.B) {
	d := NewDirection(Config{Capacity: 100 * mb})
	r := Reader(context.Background(), zeros{}, d.Flow("", "p"))
	p := make([]byte, 32<<10)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Read(p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReaderPlain(b *testing.B) {
	var r io.Reader = zeros{}
	p := make([]byte, 32<<10)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Read(p); err != nil {
			b.Fatal(err)
		}
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { return len(p), nil }

// fromRecorder is a writer with ReadFrom, like an HTTP/1 response writer,
// that records what each ReadFrom call was handed.
type fromRecorder struct {
	bytes.Buffer
	limits []int64
	direct bool // every call got an *io.LimitedReader straight over the source
	src    io.Reader
	writes int
}

func (f *fromRecorder) ReadFrom(r io.Reader) (int64, error) {
	lr, ok := r.(*io.LimitedReader)
	f.direct = f.direct && ok && lr.R == f.src
	if ok {
		f.limits = append(f.limits, lr.N)
	}
	return f.Buffer.ReadFrom(r)
}

func (f *fromRecorder) Write(p []byte) (int, error) { f.writes++; return f.Buffer.Write(p) }

func TestWriterReadFromKeepsSendfilePath(t *testing.T) {
	data := make([]byte, 9<<20+7)
	rand.Read(data)
	for _, tc := range []struct {
		name      string
		scheduled bool
		maxLimit  int64
	}{
		{"unscheduled", false, unscheduledSlice},
		{"scheduled", true, testChunk},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDirection(Config{Capacity: 1e12, Chunk: testChunk})
			if tc.scheduled {
				if err := d.Reserve("r", Spec{Rate: 1e9}); err != nil {
					t.Fatal(err)
				}
			}
			src := bytes.NewReader(data)
			rec := &fromRecorder{direct: true, src: src}
			// As the GET path does: io.CopyN from the blob.
			n, err := io.CopyN(Writer(context.Background(), rec, d.Flow("r", "p")), src, int64(len(data)-5))
			if err != nil || n != int64(len(data)-5) || !bytes.Equal(rec.Bytes(), data[:len(data)-5]) {
				t.Fatalf("CopyN = %d, %v; bytes equal %v", n, err, bytes.Equal(rec.Bytes(), data[:n]))
			}
			if !rec.direct || rec.writes != 0 {
				t.Errorf("ReadFrom got a wrapped source (direct %v) or fell back to %d Writes", rec.direct, rec.writes)
			}
			if m := slices.Max(rec.limits); m != tc.maxLimit {
				t.Errorf("largest slice %d, want %d", m, tc.maxLimit)
			}
		})
	}
}

func TestWriterReadFromUnknownLength(t *testing.T) {
	d := NewDirection(Config{Capacity: 1e12, Chunk: testChunk})
	if err := d.Reserve("r", Spec{Rate: 1e9}); err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 1<<20+3)
	rand.Read(data)
	// A writer without ReadFrom (sizedWriter hides it): chunk by chunk.
	rec := &fromRecorder{direct: true}
	var sz sizes
	w := Writer(context.Background(), sizedWriter{rec, &sz}, d.Flow("r", "p"))
	if _, err := io.Copy(w, struct{ io.Reader }{bytes.NewReader(data)}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rec.Bytes(), data) || sz.max > testChunk {
		t.Errorf("bytes equal %v, largest write %d", bytes.Equal(rec.Bytes(), data), sz.max)
	}
	// A writer with ReadFrom, but a source of unknown length: through Write.
	rec = &fromRecorder{direct: true}
	w = Writer(context.Background(), rec, d.Flow("r", "p"))
	if _, err := io.Copy(w, struct{ io.Reader }{bytes.NewReader(data)}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rec.Bytes(), data) || rec.writes == 0 {
		t.Errorf("unknown length while scheduled: bytes equal %v, %d writes", bytes.Equal(rec.Bytes(), data), rec.writes)
	}
}
