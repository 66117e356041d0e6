// Package webmime reads a Content-Type header as browsers do: the WHATWG
// MIME Sniffing standard's "parse a MIME type" and the Fetch standard's
// "extract a MIME type" (a comma-separated list, quoted strings honoured,
// the last valid type winning, with its charset rule). Go's
// mime.ParseMediaType follows RFC 2045 instead: it refuses a list whose
// last type a browser takes.
//
// Strings are the standards' isomorphic-decoded header values: each byte
// is one code point (U+0000 to U+00FF).
package webmime

import "strings"

// Type is a parsed MIME type: type and subtype ASCII-lowercased, the
// parameters in order (names lowercased, the first of each name kept).
type Type struct {
	Type, Subtype string
	Params        []Param
}

// Param is one parameter of a Type.
type Param struct{ Name, Value string }

// Essence is "type/subtype".
func (t Type) Essence() string { return t.Type + "/" + t.Subtype }

// Param returns the value of the parameter name (lowercase) and whether
// t has it.
func (t Type) Param(name string) (string, bool) {
	for _, p := range t.Params {
		if p.Name == name {
			return p.Value, true
		}
	}
	return "", false
}

// setParam sets name's value, adding the parameter when absent.
func (t *Type) setParam(name, value string) {
	for i := range t.Params {
		if t.Params[i].Name == name {
			t.Params[i].Value = value
			return
		}
	}
	t.Params = append(t.Params, Param{Name: name, Value: value})
}

// String serializes t as the standard does: each parameter after a ";",
// a value that is not a non-empty token quoted, with '"' and '\' escaped.
func (t Type) String() string {
	var b strings.Builder
	b.WriteString(t.Essence())
	for _, p := range t.Params {
		b.WriteString(";" + p.Name + "=")
		if p.Value != "" && all(p.Value, isToken) {
			b.WriteString(p.Value)
			continue
		}
		b.WriteByte('"')
		for i := 0; i < len(p.Value); i++ {
			if c := p.Value[i]; c == '"' || c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(p.Value[i])
		}
		b.WriteByte('"')
	}
	return b.String()
}

// Parse parses s as one MIME type ("parse a MIME type"); ok is false
// where the standard fails.
func Parse(s string) (t Type, ok bool) {
	s = strings.Trim(s, httpWhitespace)
	pos := 0
	typ := collect(s, &pos, func(c byte) bool { return c != '/' })
	if typ == "" || !all(typ, isToken) || pos >= len(s) {
		return Type{}, false
	}
	pos++ // the "/"
	sub := strings.TrimRight(collect(s, &pos, func(c byte) bool { return c != ';' }), httpWhitespace)
	if sub == "" || !all(sub, isToken) {
		return Type{}, false
	}
	t = Type{Type: strings.ToLower(typ), Subtype: strings.ToLower(sub)}
	for pos < len(s) {
		pos++ // the ";"
		collect(s, &pos, isHTTPWhitespace)
		name := strings.ToLower(collect(s, &pos, func(c byte) bool { return c != ';' && c != '=' }))
		if pos < len(s) {
			if s[pos] == ';' {
				continue
			}
			pos++ // the "="
		}
		if pos >= len(s) {
			break
		}
		var value string
		if s[pos] == '"' {
			value = collectQuoted(s, &pos, true)
			collect(s, &pos, func(c byte) bool { return c != ';' })
		} else {
			value = strings.TrimRight(collect(s, &pos, func(c byte) bool { return c != ';' }), httpWhitespace)
			if value == "" {
				continue
			}
		}
		if name != "" && all(name, isToken) && all(value, isQuotedStringToken) {
			if _, dup := t.Param(name); !dup {
				t.Params = append(t.Params, Param{Name: name, Value: value})
			}
		}
	}
	return t, true
}

// Extract is Fetch's "extract a MIME type" from a Content-Type header
// value (several header lines joined by ", "): each element of the list
// (Split) is parsed; failures and "*/*" are skipped; the last one left
// wins, keeping the charset of an earlier element of the same essence
// when it has none. ok is false when no element parses.
func Extract(value string) (t Type, ok bool) {
	var charset, essence string
	hasCharset := false
	for _, v := range Split(value) {
		m, valid := Parse(v)
		if !valid || m.Essence() == "*/*" {
			continue
		}
		t, ok = m, true
		if m.Essence() != essence {
			charset, hasCharset = m.Param("charset")
			essence = m.Essence()
		} else if _, has := m.Param("charset"); !has && hasCharset {
			t.setParam("charset", charset)
		}
	}
	return t, ok
}

// Split splits a header value into its comma-separated elements as
// Fetch's "get, decode, and split" does: a comma inside a quoted string
// does not split; each element is trimmed of tabs and spaces.
func Split(value string) []string {
	var values []string
	pos := 0
	var cur strings.Builder
	for {
		cur.WriteString(collect(value, &pos, func(c byte) bool { return c != '"' && c != ',' }))
		if pos < len(value) && value[pos] == '"' {
			cur.WriteString(collectQuoted(value, &pos, false))
			if pos < len(value) {
				continue
			}
		}
		values = append(values, strings.Trim(cur.String(), "\t "))
		cur.Reset()
		if pos >= len(value) {
			return values
		}
		pos++ // the ","
	}
}

// collect returns the run of s from *pos whose bytes match ok, moving
// *pos past it.
func collect(s string, pos *int, ok func(byte) bool) string {
	start := *pos
	for *pos < len(s) && ok(s[*pos]) {
		*pos++
	}
	return s[start:*pos]
}

// collectQuoted is Fetch's "collect an HTTP quoted string" at s[*pos]
// (a '"'): with extract, the string's value (escapes resolved); else the
// text it spans, quotes included.
func collectQuoted(s string, pos *int, extract bool) string {
	start := *pos
	var value strings.Builder
	*pos++ // the opening '"'
	for {
		value.WriteString(collect(s, pos, func(c byte) bool { return c != '"' && c != '\\' }))
		if *pos >= len(s) {
			break
		}
		quoteOrBackslash := s[*pos]
		*pos++
		if quoteOrBackslash == '"' {
			break
		}
		if *pos >= len(s) {
			value.WriteByte('\\')
			break
		}
		value.WriteByte(s[*pos])
		*pos++
	}
	if extract {
		return value.String()
	}
	return s[start:*pos]
}

// httpWhitespace is HTTP whitespace: LF, CR, tab and space.
const httpWhitespace = "\n\r\t "

func isHTTPWhitespace(c byte) bool { return strings.IndexByte(httpWhitespace, c) >= 0 }

// isToken reports an HTTP token code point.
func isToken(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// isQuotedStringToken reports an HTTP quoted-string token code point:
// tab, U+0020 to U+007E, U+0080 to U+00FF.
func isQuotedStringToken(c byte) bool { return c == '\t' || (c >= 0x20 && c != 0x7f) }

func all(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}
