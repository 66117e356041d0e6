package policy

import (
	"strings"
	"unicode/utf8"
)

// A pattern is a compiled Action, Resource or condition value: literal
// text, the wildcards * and ? (when the element allows them) and policy
// variables ${key} and ${key, 'default'} (in 2012-10-17 policies). ${*},
// ${?} and ${$} are a literal *, ? and $.
//
// Matching needs no allocation: a variable is resolved to the request's
// value in place, never substituted into a new string.
type pattern struct {
	toks []token
	// literal is the whole pattern when it is one literal token (no
	// wildcard, no variable): compared directly.
	literal string
	simple  bool
	any     bool // the pattern is "*": matches everything
}

type tokKind uint8

const (
	tLit tokKind = iota
	tStar
	tQmark
	tVar
)

type token struct {
	kind   tokKind
	lit    string // tLit: the text; tVar: the default
	key    string // tVar: the condition key, lower case
	hasDef bool
}

// compilePattern compiles s. wild makes * and ? wildcards; vars makes
// ${…} policy variables.
func compilePattern(s string, wild, vars bool) pattern {
	var toks []token
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			toks = append(toks, token{kind: tLit, lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case wild && c == '*':
			flush()
			if n := len(toks); n == 0 || toks[n-1].kind != tStar { // ** is *
				toks = append(toks, token{kind: tStar})
			}
			i++
			continue
		case wild && c == '?':
			flush()
			toks = append(toks, token{kind: tQmark})
			i++
			continue
		case vars && c == '$' && strings.HasPrefix(s[i:], "${"):
			if t, n, ok := parseVariable(s[i:]); ok {
				if t.kind == tLit {
					lit.WriteString(t.lit)
				} else {
					flush()
					toks = append(toks, t)
				}
				i += n
				continue
			}
		}
		lit.WriteByte(c)
		i++
	}
	flush()
	p := pattern{toks: toks}
	switch {
	case len(toks) == 0:
		p.simple = true
	case len(toks) == 1 && toks[0].kind == tLit:
		p.simple, p.literal = true, toks[0].lit
	case len(toks) == 1 && toks[0].kind == tStar:
		p.any = true
	}
	return p
}

// parseVariable parses the variable at the start of s ("${…}"), returning
// its token and length. Text that is not a well-formed variable is not one
// (ok false) and stays literal.
func parseVariable(s string) (token, int, bool) {
	body := s[2:]
	// The end is the first '}' outside a quoted default.
	end, quoted := -1, false
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '\'':
			quoted = !quoted // '' inside a default toggles twice
		case '}':
			if !quoted {
				end = i
			}
		}
		if end >= 0 {
			break
		}
	}
	if end < 0 {
		return token{}, 0, false
	}
	inner := strings.TrimSpace(body[:end])
	n := 2 + end + 1
	switch inner {
	case "*", "?", "$":
		return token{kind: tLit, lit: inner}, n, true
	case "":
		return token{}, 0, false
	}
	key, def, hasDef := strings.Cut(inner, ",")
	key = strings.TrimSpace(key)
	if key == "" || strings.ContainsAny(key, " '") {
		return token{}, 0, false
	}
	t := token{kind: tVar, key: strings.ToLower(key)}
	if hasDef {
		def = strings.TrimSpace(def)
		if len(def) < 2 || def[0] != '\'' || def[len(def)-1] != '\'' {
			return token{}, 0, false
		}
		def = def[1 : len(def)-1]
		if strings.Count(strings.ReplaceAll(def, "''", ""), "'") > 0 {
			return token{}, 0, false
		}
		t.lit, t.hasDef = strings.ReplaceAll(def, "''", "'"), true
	}
	return t, n, true
}

// resolve is a variable's value: the request's single value of the key,
// else the default; ok is false when there is neither (the pattern then
// matches nothing).
func (t *token) resolve(r *Request) (string, bool) {
	if vs := r.values(t.key); len(vs) == 1 {
		return vs[0], true
	}
	return t.lit, t.hasDef
}

// match reports whether s matches the pattern; fold compares letters
// without case.
func (p *pattern) match(s string, fold bool, r *Request) bool {
	if p.any {
		return true
	}
	if p.simple {
		if fold {
			return strings.EqualFold(s, p.literal)
		}
		return s == p.literal
	}
	toks := p.toks
	ti, si := 0, 0
	starTi, starSi := -1, 0
	for {
		if ti < len(toks) {
			t := &toks[ti]
			switch t.kind {
			case tStar:
				starTi, starSi = ti, si
				ti++
				continue
			case tQmark:
				if si < len(s) {
					_, n := utf8.DecodeRuneInString(s[si:])
					si += n
					ti++
					continue
				}
			default:
				lit := t.lit
				if t.kind == tVar {
					v, ok := t.resolve(r)
					if !ok {
						return false
					}
					lit = v
				}
				if hasPrefix(s[si:], lit, fold) {
					si += len(lit)
					ti++
					continue
				}
			}
		} else if si == len(s) {
			return true
		}
		// Mismatch: let the last * take one more character.
		if starTi < 0 || starSi >= len(s) {
			return false
		}
		_, n := utf8.DecodeRuneInString(s[starSi:])
		starSi += n
		ti, si = starTi+1, starSi
	}
}

func hasPrefix(s, prefix string, fold bool) bool {
	if len(s) < len(prefix) {
		return false
	}
	if fold {
		return strings.EqualFold(s[:len(prefix)], prefix)
	}
	return s[:len(prefix)] == prefix
}
