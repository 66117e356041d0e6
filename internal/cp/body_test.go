package cp

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSectionBody sends a file's section over a loopback TCP connection
// the way the HTTP transport does (ReadFrom of a LimitReader, then a read
// for extra bytes) and by Read, and gets exactly the section.
func TestSectionBody(t *testing.T) {
	data := testData(300_000)
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	const off, n = 70_001, 150_000
	want := data[off : off+n]

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer c.Close()
		b, _ := io.ReadAll(c)
		got <- b
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	body, err := opener(path, off, n)()
	if err != nil {
		t.Fatal(err)
	}
	sent, err := fileConn{conn}.ReadFrom(io.LimitReader(body, n))
	if err != nil || sent != n {
		t.Fatalf("ReadFrom sent %d, %v; want %d", sent, err, n)
	}
	if extra, err := io.Copy(io.Discard, body); extra != 0 || err != nil {
		t.Fatalf("after the section: %d more bytes, %v", extra, err)
	}
	body.Close()
	conn.Close()
	select {
	case b := <-got:
		if !bytes.Equal(b, want) {
			t.Fatalf("received %d bytes, want the %d of the section", len(b), n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nothing received")
	}

	// Read (TLS and retries) serves the same bytes.
	body, _ = opener(path, off, n)()
	defer body.Close()
	b, err := io.ReadAll(body)
	if err != nil || !bytes.Equal(b, want) {
		t.Fatalf("Read: %d bytes, %v; want the section", len(b), err)
	}
	// A file shorter than the section is an error, not a short body.
	short, _ := opener(path, int64(len(data))-10, 100)()
	defer short.Close()
	if _, err := io.ReadAll(short); err == nil {
		t.Fatal("a section past the end of the file: no error")
	}
}

func TestProgressLine(t *testing.T) {
	now := time.Unix(1000, 0)
	p := &Progress{now: func() time.Time { return now }, start: now}
	p.AddTotal(100 << 20)
	p.skip(20 << 20) // kept by a resume: done, but not in the rate
	p.add(40 << 20)
	now = now.Add(2 * time.Second)
	line := p.line()
	for _, want := range []string{"60.0 MiB / 100.0 MiB", " 60%", "20.0 MiB/s", "ETA 2s", "[" + strings.Repeat("=", 14)} {
		if !strings.Contains(line, want) {
			t.Errorf("progress line %q: want %q in it", line, want)
		}
	}
	var nilP *Progress
	nilP.add(1) // a nil progress counts nothing and does not panic
	nilP.Finish()
}
