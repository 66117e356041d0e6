package framing

import "bytes"

// tracker follows a connection's HTTP/1.x request stream as net/http
// reads it — a head, then its body framed by Transfer-Encoding: chunked
// or Content-Length, then the next head — and notes a head that carries
// both. Where net/http would refuse the stream (a malformed chunk, an
// invalid Content-Length) it closes the connection, so the tracker may
// stop (off) rather than follow.
type tracker struct {
	st     state
	off    bool  // stopped following: the stream is net/http's to refuse
	both   bool  // a head carried Content-Length and Transfer-Encoding
	heads  int   // request heads ended
	remain int64 // body or chunk data bytes still to come

	// The current line.
	n          int  // its length so far
	lastCR     bool // its last byte so far is '\r'
	field      fieldKind
	name       [len("transfer-encoding")]byte
	nameLen    int  // bytes of the field name so far; -1 once past ':'
	tooLong    bool // the name is longer than any tracked one
	sawDigits  bool // a hex digit of the chunk size
	chunkExt   bool // past the chunk size's ';'
	crlf       int  // bytes of the CRLF after chunk data seen
	chunkSize  uint64
	chunkDigit int

	// The current head.
	started    bool // the request line has begun
	reqLineEnd bool // the request line has ended
	version    [len("HTTP/1.0")]byte
	cl, te     bool
	clVal      uint64
	clDigits   int  // significant digits of the Content-Length value
	clBad      bool // a Content-Length value that does not parse
	clDone     bool // the first Content-Length's value is read
	prevField  fieldKind
}

type state uint8

const (
	stHead      state = iota // request line and header fields
	stBody                   // remain bytes of a Content-Length body
	stChunkLine              // a chunk-size line
	stChunkData              // remain bytes of chunk data
	stChunkCRLF              // the CRLF after chunk data
	stTrailer                // trailer fields after the last chunk
)

type fieldKind uint8

const (
	fieldOther fieldKind = iota
	fieldCL
	fieldTE
)

// feed follows the bytes p, read from the connection in order.
func (t *tracker) feed(p []byte) {
	for len(p) > 0 && !t.off {
		switch t.st {
		case stBody, stChunkData:
			n := int64(len(p))
			if n > t.remain {
				n = t.remain
			}
			p, t.remain = p[n:], t.remain-n
			if t.remain == 0 {
				if t.st == stBody {
					t.st = stHead
				} else {
					t.st, t.crlf = stChunkCRLF, 0
				}
			}
		case stChunkCRLF:
			if p[0] != "\r\n"[t.crlf] {
				t.off = true // net/http: malformed chunked encoding
				return
			}
			p = p[1:]
			if t.crlf++; t.crlf == 2 {
				t.st = stChunkLine
			}
		default:
			p = t.line(p)
		}
	}
}

// line follows p up to the end of the current line, and returns the
// rest.
func (t *tracker) line(p []byte) []byte {
	i := bytes.IndexByte(p, '\n')
	span := p
	if i >= 0 {
		span = p[:i]
	}
	if len(span) > 0 {
		switch t.st {
		case stHead:
			t.headSpan(span)
		case stChunkLine:
			for _, b := range span {
				if t.chunkByte(b); t.off {
					return nil
				}
			}
		}
		t.n += len(span)
		t.lastCR = span[len(span)-1] == '\r'
	}
	if i < 0 || t.off {
		return nil
	}
	t.endLine()
	t.n, t.lastCR, t.field, t.nameLen, t.tooLong, t.sawDigits, t.chunkExt = 0, false, fieldOther, 0, false, false, false
	return p[i+1:]
}

// empty reports whether the line that just ended is empty ("" or "\r").
func (t *tracker) empty() bool { return t.n == 0 || t.n == 1 && t.lastCR }

// headSpan follows s, the next bytes of a head line.
func (t *tracker) headSpan(s []byte) {
	if !t.reqLineEnd {
		s = bytes.TrimRight(s, "\r")
		if len(s) == 0 {
			return
		}
		t.started = true
		v := t.version[:]
		if len(s) >= len(v) { // keep the last bytes: the version
			copy(v, s[len(s)-len(v):])
		} else {
			copy(v, v[len(s):])
			copy(v[len(v)-len(s):], s)
		}
		return
	}
	if t.n == 0 {
		if s[0] == ' ' || s[0] == '\t' {
			t.field, t.nameLen = t.prevField, -1 // obs-fold: the previous value goes on
		} else if t.prevField == fieldCL {
			t.clDone = true // net/http checks that the others are equal
		}
	}
	if t.nameLen >= 0 { // the field's name
		j := bytes.IndexByte(s, ':')
		name := s
		if j >= 0 {
			name = s[:j]
		}
		if t.nameLen+len(name) > len(t.name) {
			t.tooLong = true // longer than any name followed
		} else {
			for i, b := range name {
				t.name[t.nameLen+i] = lower(b)
			}
		}
		t.nameLen += len(name)
		if j < 0 {
			return
		}
		t.field, t.nameLen = t.fieldOf(), -1
		s = s[j+1:]
	}
	if t.field == fieldCL && !t.clDone {
		for _, b := range s {
			t.clByte(b)
		}
	}
}

// fieldOf is the kind of the field whose name has just ended, noted in
// the head.
func (t *tracker) fieldOf() fieldKind {
	if t.tooLong {
		return fieldOther
	}
	switch string(t.name[:t.nameLen]) {
	case "content-length":
		t.cl = true
		return fieldCL
	case "transfer-encoding":
		t.te = true
		return fieldTE
	}
	return fieldOther
}

// clByte follows one byte of the first Content-Length's value. Blanks
// and leading zeros are dropped, as net/http trims the value and parses
// it in base 10.
func (t *tracker) clByte(b byte) {
	switch {
	case b == ' ' || b == '\t' || b == '\r':
	case b >= '0' && b <= '9':
		if t.clDigits == 0 && b == '0' {
			return
		}
		if t.clDigits++; t.clDigits > 18 {
			t.clBad = true
			return
		}
		t.clVal = t.clVal*10 + uint64(b-'0')
	default:
		t.clBad = true
	}
}

// chunkByte follows one byte of a chunk-size line: hex digits, then an
// extension after ';' that net/http ignores.
func (t *tracker) chunkByte(b byte) {
	if t.chunkExt || b == '\r' {
		return
	}
	var d byte
	switch {
	case b == ';':
		t.chunkExt = true
		return
	case b >= '0' && b <= '9':
		d = b - '0'
	case b >= 'a' && b <= 'f':
		d = b - 'a' + 10
	case b >= 'A' && b <= 'F':
		d = b - 'A' + 10
	default:
		t.off = true // net/http: invalid byte in chunk length
		return
	}
	if t.chunkDigit++; t.chunkDigit > 15 {
		t.off = true // net/http: chunk length too large (or past int64)
		return
	}
	t.sawDigits = true
	t.chunkSize = t.chunkSize<<4 | uint64(d)
}

// endLine acts on the line that has just ended.
func (t *tracker) endLine() {
	switch t.st {
	case stHead:
		switch {
		case !t.reqLineEnd:
			if t.started { // blank lines before a request line are skipped
				t.reqLineEnd = true
			}
		case t.empty():
			t.endHead()
		default:
			t.prevField = t.field
		}
	case stChunkLine:
		if !t.sawDigits {
			t.off = true // net/http: empty hex number for chunk length
			return
		}
		if t.chunkSize == 0 {
			t.st = stTrailer
		} else {
			t.st, t.remain = stChunkData, int64(t.chunkSize)
		}
		t.chunkSize, t.chunkDigit = 0, 0
	case stTrailer:
		if t.empty() {
			t.st = stHead
		}
	}
}

// endHead chooses how the body of the head that has just ended is framed,
// as net/http does: chunked when Transfer-Encoding is present (but on
// HTTP/1.0, which ignores it), else Content-Length bytes, else none.
func (t *tracker) endHead() {
	t.heads++
	http10 := string(t.version[:]) == "HTTP/1.0"
	switch {
	case t.cl && t.te:
		t.both, t.off = true, true // the connection is refused and closed
	case t.te && !http10:
		t.st = stChunkLine
	case t.cl && t.clBad:
		t.off = true // net/http: bad Content-Length
	case t.cl && t.clVal > 0:
		t.st, t.remain = stBody, int64(t.clVal)
	}
	t.started, t.reqLineEnd, t.version = false, false, [len(t.version)]byte{}
	t.cl, t.te, t.clVal, t.clDigits, t.clBad, t.clDone, t.prevField = false, false, 0, 0, false, false, fieldOther
}

func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}
