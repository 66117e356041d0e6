package policy

import (
	"math/rand/v2"
	"testing"
)

// globRef is a plain recursive matcher of * and ? to check the compiled
// one against.
func globRef(p, s string) bool {
	if p == "" {
		return s == ""
	}
	switch p[0] {
	case '*':
		for i := 0; i <= len(s); i++ {
			if globRef(p[1:], s[i:]) {
				return true
			}
		}
		return false
	case '?':
		return s != "" && globRef(p[1:], s[1:])
	}
	return s != "" && s[0] == p[0] && globRef(p[1:], s[1:])
}

// The compiled matcher agrees with the reference on random patterns and
// strings over a small alphabet (where backtracking matters).
func TestPatternMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func(alphabet string, n int) string {
		b := make([]byte, rng.IntN(n+1))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for i := 0; i < 20000; i++ {
		p, s := gen("ab*?", 7), gen("ab", 9)
		c := compilePattern(p, true, false)
		if got, want := c.match(s, false, &Request{}), globRef(p, s); got != want {
			t.Fatalf("pattern %q on %q: got %v, want %v", p, s, got, want)
		}
	}
}

// Policy variable syntax: defaults with quotes, escapes, and text that is
// not a variable staying literal.
func TestPatternVariables(t *testing.T) {
	r := &Request{Context: Context{}}
	r.Context.Set("aws:username", "Ann")
	cases := []struct {
		pattern, s string
		want       bool
	}{
		{"${aws:username}", "Ann", true},
		{"${AWS:UserName}", "Ann", true}, // key names without case
		{"${ aws:username }", "Ann", true},
		{"${aws:username}", "ann", false},
		{"${aws:nothing, 'it''s'}", "it's", true},
		{"${aws:nothing, 'a,b'}", "a,b", true},
		{"${aws:username, 'x'}", "Ann", true},
		{"${aws:nothing}", "", false}, // no value, no default: no match
		{"${aws:username", "${aws:username", true},
		{"${}", "${}", true},
		{"${aws:nothing, x}", "${aws:nothing, x}", true},
		{"${*}", "*", true},
		{"${*}", "x", false},
		{"a${?}b", "a?b", true},
		{"a${?}b", "axb", false},
		{"${$}{x}", "${x}", true},
		{"home/${aws:username}/*", "home/Ann/a/b", true},
	}
	for _, c := range cases {
		p := compilePattern(c.pattern, true, true)
		if got := p.match(c.s, false, r); got != c.want {
			t.Errorf("%q on %q: got %v, want %v", c.pattern, c.s, got, c.want)
		}
	}
}
