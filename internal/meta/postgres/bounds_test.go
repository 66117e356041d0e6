package postgres

import (
	"strings"
	"testing"
)

// universe is every representable string of up to three characters from
// an alphabet of boundary characters, in no particular order.
func universe() []string {
	chars := []string{"\x01", "/", "a", "\x7f", "\u0080", "é", "\u07ff", "\u0800", "\ud7ff", "\ue000", "\uffff",
		"\U00010000", "\U0010FFFE", "\U0010FFFF"}
	out := []string{""}
	level := []string{""}
	for range 3 {
		var next []string
		for _, s := range level {
			for _, c := range chars {
				next = append(next, s+c)
			}
		}
		out = append(out, next...)
		level = next
	}
	return out
}

// boundCases are bounds a listing may be given: representable or not.
var boundCases = []string{
	"", "a", "a\x00", "\x00", "a\x00b", "\xff", "a\xff", "\xc3", "a\xc3", "é\xc3", "\xc3\xa9\xff", "\xed\xa0\x80",
	"\xed\x9f\xbf\x80", "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf\xff", "\xf4\x90", "\U0010FFFF\xff", "\U0010FFFF\U0010FFFF\xc0",
	"a\U0010FFFF\xff", "\x7f\x80", "\xe0\x80", "\xc0\xaf", "\x80", "é", "\U0010FFFE\xf5",
}

// TestCeilText: every representable string is at or above a bound exactly
// when it is at or above the bound's ceilText (ok false: none is).
func TestCeilText(t *testing.T) {
	u := universe()
	for _, s := range boundCases {
		c, ok := ceilText(s)
		if ok && !representable(c) {
			t.Errorf("ceilText(%+q) = %+q, not representable", s, c)
		}
		for _, k := range u {
			if want, got := k >= s, ok && k >= c; want != got {
				t.Errorf("ceilText(%+q) = %+q, %v: %+q >= bound is %v, >= ceiling %v", s, c, ok, k, want, got)
			}
		}
	}
}

// TestSuccText: a representable string is at or above succText(v) exactly
// when it is above every string that starts with v.
func TestSuccText(t *testing.T) {
	u := universe()
	for _, v := range []string{"", "a", "a/", "é", "\ud7ff", "\U0010FFFF", "a\U0010FFFF", "\U0010FFFF\U0010FFFF", "/\U0010FFFE"} {
		c, ok := succText(v)
		for _, k := range u {
			want := k > v && !strings.HasPrefix(k, v)
			if got := ok && k >= c; want != got {
				t.Errorf("succText(%+q) = %+q, %v: %+q above the group is %v, >= successor %v", v, c, ok, k, want, got)
			}
		}
	}
}

// TestBounds: lowerBound and upperBound admit exactly the keys the raw
// bounds do.
func TestBounds(t *testing.T) {
	u := universe()
	for _, s := range boundCases {
		for _, inclusive := range []bool{false, true} {
			lo, ok := lowerBound(s, inclusive)
			for _, k := range u {
				want := k > s || inclusive && k == s
				if got := ok && k >= lo; want != got {
					t.Errorf("lowerBound(%+q, %v) = %+q, %v: key %+q admitted %v, want %v", s, inclusive, lo, ok, k, got, want)
				}
			}
		}
		hi, has := upperBound(s)
		for _, k := range u {
			want := s == "" || k < s
			if got := !has || k < hi; want != got {
				t.Errorf("upperBound(%+q) = %+q, %v: key %+q admitted %v, want %v", s, hi, has, k, got, want)
			}
		}
	}
}
