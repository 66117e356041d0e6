package postgres

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Keys are text in a UTF8 database: valid UTF-8 without NUL, compared
// byte-wise (COLLATE "C"). A listing's bounds are arbitrary bytes, though:
// a prefix, marker or StartAfter the client sent, or a meta.PrefixEnd
// (which may end in a byte that no UTF-8 string has there), and PostgreSQL
// refuses such a string as a parameter. Every stored key is representable,
// so each bound is replaced by the representable one that admits exactly
// the same keys: the smallest representable string at or above it.

// representable reports whether s can be a text value: valid UTF-8
// without NUL.
func representable(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// nonSurrogates is the number of runes from U+0001 to U+10FFFF, surrogates
// (U+D800–U+DFFF) left out: the characters a representable string is made
// of, in the order of their encodings.
const nonSurrogates = utf8.MaxRune - 0x800

// nthRune is the i-th of them (0 is U+0001).
func nthRune(i int) rune {
	r := rune(i + 1)
	if r >= 0xD800 {
		r += 0x800
	}
	return r
}

// ceilText returns the smallest representable string at or above s, and
// false when every representable string is below s.
func ceilText(s string) (string, bool) {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == 0 || r == utf8.RuneError && n == 1 {
			break
		}
		i += n
	}
	if i == len(s) {
		return s, true
	}
	// s[i:] starts with no character: the answer is s[:i] followed by the
	// first character whose encoding sorts above s[i:] (none is a prefix
	// of it), or, when none does, the successor of s[:i].
	rest := s[i:]
	if j := sort.Search(nonSurrogates, func(j int) bool { return string(nthRune(j)) > rest }); j < nonSurrogates {
		return s[:i] + string(nthRune(j)), true
	}
	return succText(s[:i])
}

// succText returns the smallest representable string above every string
// that starts with representable v (the representable meta.PrefixEnd),
// and false when there is none (v empty or all U+10FFFF).
func succText(v string) (string, bool) {
	for v != "" {
		r, n := utf8.DecodeLastRuneInString(v)
		v = v[:len(v)-n]
		if r < utf8.MaxRune {
			return v + string(nextRune(r)), true
		}
	}
	return "", false
}

// nextRune is the character after r (< U+10FFFF) in encoding order.
func nextRune(r rune) rune {
	if r == 0xD7FF {
		return 0xE000
	}
	return r + 1
}

// lowerBound turns "key > start" (or ≥ when inclusive) into the
// equivalent "key >= lo" over representable keys; ok is false when no key
// can qualify.
func lowerBound(start string, inclusive bool) (lo string, ok bool) {
	if !representable(start) {
		return ceilText(start) // start is no key: > and ≥ agree
	}
	if inclusive {
		return start, true
	}
	return start + "\x01", true // the smallest representable string above start
}

// upperBound turns "key < end" ("" for no bound) into the equivalent
// "key < hi"; has is false when there is no bound.
func upperBound(end string) (hi string, has bool) {
	if end == "" {
		return "", false
	}
	return ceilText(end)
}
