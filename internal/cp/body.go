package cp

import (
	"io"
	"net"
	"os"
)

// sectionBody is a request body: n bytes of a file from off. Read serves
// it with ReadAt (over TLS); fileConn.ReadFrom sends it with sendfile, the
// file's pages going to the socket without a copy through user space.
type sectionBody struct {
	f           *os.File
	off, n, pos int64 // pos: bytes already sent
}

// opener opens path for a request body of n bytes from off; a transport
// retry opens it again.
func opener(path string, off, n int64) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		return &sectionBody{f: f, off: off, n: n}, nil
	}
}

func (b *sectionBody) Read(p []byte) (int, error) {
	if b.pos >= b.n {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), b.n-b.pos)]
	k, err := b.f.ReadAt(p, b.off+b.pos)
	b.pos += int64(k)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF // the file shrank
	}
	return k, err
}

func (b *sectionBody) Close() error { return b.f.Close() }

// sendTo writes up to limit bytes of what is left of b to w (a TCP
// connection, which sends a limited *os.File with sendfile).
func (b *sectionBody) sendTo(w io.Writer, limit int64) (int64, error) {
	if _, err := b.f.Seek(b.off+b.pos, io.SeekStart); err != nil {
		return 0, err
	}
	n, err := io.Copy(w, &io.LimitedReader{R: b.f, N: min(limit, b.n-b.pos)})
	b.pos += n
	return n, err
}

// fileConn is a client connection that sends a sectionBody with sendfile.
// The HTTP/1 transport copies a request body of known length to the
// connection's ReadFrom as io.LimitReader(body, length); a *net.TCPConn
// would only use sendfile for an *os.File there, and a bare *os.File body
// cannot end at its section's end.
type fileConn struct{ net.Conn }

func (c fileConn) ReadFrom(r io.Reader) (int64, error) {
	if lr, ok := r.(*io.LimitedReader); ok {
		if b, ok := lr.R.(*sectionBody); ok {
			n, err := b.sendTo(c.Conn, lr.N)
			lr.N -= n
			return n, err
		}
	}
	return io.Copy(c.Conn, r)
}
