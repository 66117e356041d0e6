// Package framing refuses HTTP/1.1 requests whose body length two
// parsers could read differently: a head with both Content-Length and
// Transfer-Encoding (also a Transfer-Encoding folded onto a second line).
// net/http takes the chunked framing and drops Content-Length without a
// trace; a proxy in front that frames by Content-Length would then see
// another request boundary than JOG does (request smuggling), and RFC 9112
// §6.1 says the server must close the connection after such a request.
//
// Listen wraps a plain-TCP listener so that each connection follows its
// request stream (tracker); ConnContext hands the connection to the
// requests read from it; Guard answers a request of a connection that
// carried such a head with 400 and closes the connection, before the
// handler, and reads nothing more from it. Over TLS net/http holds the
// plaintext, so the stream cannot be followed: there Guard closes the
// connection after every chunked request instead.
package framing

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// Listen returns ln with each accepted connection followed.
func Listen(ln net.Listener) net.Listener { return listener{ln} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c}, nil
}

// conn follows what net/http reads from it. net/http reads a connection
// from one goroutine at a time; refused is read by the handlers'.
type conn struct {
	net.Conn
	t       tracker
	refused atomic.Bool
}

func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.t.off {
		c.t.feed(p[:n])
		if c.t.both {
			c.refused.Store(true)
		}
	}
	return n, err
}

// ReadFrom keeps net/http's sendfile path for responses.
func (c *conn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(c.Conn, r)
}

// CloseWrite lets net/http half-close the connection after an error, as
// it does a *net.TCPConn.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

type connKey struct{}

// ConnContext is an http.Server's ConnContext: it gives the requests of
// a connection Listen accepted their connection, for Guard.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if fc, ok := c.(*conn); ok {
		return context.WithValue(ctx, connKey{}, fc)
	}
	return ctx
}

// Guard serves h, but for a request whose connection has carried a head
// with both Content-Length and Transfer-Encoding: that one (and one
// pipelined before it whose handler had not started) is refused.
func Guard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, _ := r.Context().Value(connKey{}).(*conn); c != nil && c.refused.Load() {
			refuse(w)
			return
		}
		if r.TLS != nil && len(r.TransferEncoding) > 0 {
			w.Header().Set("Connection", "close")
		}
		h.ServeHTTP(w, r)
	})
}

// refusal is the answer to an ambiguous request: plain text, as net/http
// answers the malformed framing it refuses itself.
const refusal = "400 Bad Request: Content-Length with Transfer-Encoding"

// refuse answers 400 and closes the connection without reading the body
// (net/http would read on through the chunked body, taking what follows
// for its data): it takes the connection over, answers, half-closes it
// and lets the client read the answer before closing (a close with
// unread bytes resets the connection, and the answer could be lost).
func refuse(w http.ResponseWriter) {
	c, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		w.Header().Set("Connection", "close")
		http.Error(w, refusal, http.StatusBadRequest)
		return
	}
	defer c.Close()
	fmt.Fprintf(buf, "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s\n", len(refusal)+1, refusal)
	if buf.Flush() != nil {
		return
	}
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	_, _ = io.CopyN(io.Discard, c, 1<<20)
}
