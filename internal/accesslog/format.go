package accesslog

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/jogstore/jog/internal/s3api"
)

// Format is how a line is written.
type Format int

const (
	// JSON: one object per line, fields named as in Fields.
	JSON Format = iota
	// Text: key=value pairs, values quoted (Go syntax) when they hold a
	// space, a quote, '=' or anything unprintable; "" fields omitted.
	Text
)

// ParseFormat parses "json" or "text".
func ParseFormat(s string) (Format, bool) {
	switch s {
	case "json":
		return JSON, true
	case "text":
		return Text, true
	}
	return JSON, false
}

// Fields are the names of a line's fields, in order (docs/OPERATIONS.md):
//
//	time        when the request arrived, RFC 3339 UTC with nanoseconds
//	id          the request ID (x-amz-request-id)
//	remote      the client's address (host:port of the connection)
//	principal   root, anonymous, or the IAM user's or role session's ARN
//	access_key  the access key the request was signed with ("" unsigned)
//	method      the HTTP method
//	op          the S3 operation (GetObject), Unknown or Unsupported
//	bucket, key the resource ("" when none)
//	status      the HTTP status sent
//	code        the S3 error code ("" on success)
//	bytes_in    request body bytes read
//	bytes_out   response body bytes written
//	duration_ms from arrival to the handler's return, in milliseconds
//	ttfb_ms     from arrival to the response header (0: none was sent)
var Fields = []string{"time", "id", "remote", "principal", "access_key", "method", "op", "bucket", "key",
	"status", "code", "bytes_in", "bytes_out", "duration_ms", "ttfb_ms"}

// AppendLine appends r's line in format f, newline included, to b.
func AppendLine(b []byte, f Format, r *s3api.Record) []byte {
	e := enc{b: b, f: f}
	e.begin()
	e.time("time", r.Start)
	e.str("id", r.ID)
	remote, method := "", ""
	if r.Request != nil {
		remote, method = r.Request.RemoteAddr, r.Request.Method
	}
	e.str("remote", remote)
	e.str("principal", r.Principal.Name())
	e.str("access_key", r.AccessKey)
	e.str("method", method)
	e.str("op", r.Op.String())
	e.str("bucket", r.Bucket)
	e.str("key", r.Key)
	e.num("status", int64(r.Status))
	e.str("code", r.Code)
	e.num("bytes_in", r.BytesIn)
	e.num("bytes_out", r.BytesOut)
	e.ms("duration_ms", r.Duration)
	e.ms("ttfb_ms", r.FirstByte)
	return e.end()
}

// enc appends one line's fields.
type enc struct {
	b []byte
	f Format
	n int
}

func (e *enc) begin() {
	if e.f == JSON {
		e.b = append(e.b, '{')
	}
}

func (e *enc) end() []byte {
	if e.f == JSON {
		e.b = append(e.b, '}')
	}
	return append(e.b, '\n')
}

func (e *enc) key(k string) {
	if e.n > 0 {
		if e.f == JSON {
			e.b = append(e.b, ',')
		} else {
			e.b = append(e.b, ' ')
		}
	}
	e.n++
	if e.f == JSON {
		e.b = append(e.b, '"')
		e.b = append(e.b, k...)
		e.b = append(e.b, '"', ':')
		return
	}
	e.b = append(e.b, k...)
	e.b = append(e.b, '=')
}

func (e *enc) str(k, v string) {
	if e.f == Text && v == "" {
		return
	}
	e.key(k)
	if e.f == JSON {
		e.b = appendJSONString(e.b, v)
		return
	}
	if needsQuote(v) {
		e.b = strconv.AppendQuote(e.b, v)
		return
	}
	e.b = append(e.b, v...)
}

// time writes t in UTC, RFC 3339 with nanoseconds: nothing to escape.
func (e *enc) time(k string, t time.Time) {
	e.key(k)
	if e.f == JSON {
		e.b = append(e.b, '"')
	}
	e.b = t.UTC().AppendFormat(e.b, time.RFC3339Nano)
	if e.f == JSON {
		e.b = append(e.b, '"')
	}
}

func (e *enc) num(k string, v int64) {
	e.key(k)
	e.b = strconv.AppendInt(e.b, v, 10)
}

// ms writes d in milliseconds with microsecond precision.
func (e *enc) ms(k string, d time.Duration) {
	e.key(k)
	e.b = strconv.AppendFloat(e.b, float64(d.Microseconds())/1000, 'f', -1, 64)
}

// needsQuote reports whether a text value must be quoted to stay one
// field: empty, or holding a space, '"', '=', a control character or
// anything but printable UTF-8.
func needsQuote(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c == '"' || c == '=' || c == '\\' || c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string: '"' and '\' escaped,
// control characters as \u00XX, invalid UTF-8 as U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= ' ' && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
