package tagging

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseXML(t *testing.T) {
	s, err := ParseXML([]byte(`<Tagging><TagSet><Tag><Key>a b</Key><Value>1+2=3</Value></Tag><Tag><Key>é:/@</Key><Value></Value></Tag></TagSet></Tagging>`), MaxObjectTags)
	if err != nil || len(s) != 2 || !s.Has("a b", "1+2=3") || !s.Has("é:/@", "") {
		t.Fatalf("ParseXML = %v, %v", s, err)
	}
	for _, doc := range []string{`<Tagging>`, `<Tagging></Tagging>`, `<Tagging><TagSet><Tag><Key>a</Key></Tag></TagSet></Tagging>`, `<Other/>`} {
		if _, err := ParseXML([]byte(doc), MaxObjectTags); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseXML(%s) = %v, want ErrMalformed", doc, err)
		}
	}
}

func tags(n int) Set {
	var s Set
	for i := range n {
		s = append(s, Tag{fmt.Sprint("k", i), "v"})
	}
	return s
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		s    Set
		max  int
		code string
	}{
		{tags(10), MaxObjectTags, ""},
		{tags(11), MaxObjectTags, "BadRequest"},
		{tags(50), MaxBucketTags, ""},
		{tags(51), MaxBucketTags, "BadRequest"},
		{Set{{strings.Repeat("é", 128), strings.Repeat("é", 256)}}, 10, ""},
		{Set{{strings.Repeat("k", 129), ""}}, 10, "InvalidTag"},
		{Set{{"k", strings.Repeat("v", 257)}}, 10, "InvalidTag"},
		{Set{{"", "v"}}, 10, "InvalidTag"},
		{Set{{"a", "1"}, {"a", "2"}}, 10, "InvalidTag"},
		{Set{{"a&b", "1"}}, 10, "InvalidTag"},
		{Set{{"a", "<1>"}}, 10, "InvalidTag"},
	} {
		err := c.s.Validate(c.max)
		var te *Error
		if c.code == "" && err != nil || c.code != "" && (!errors.As(err, &te) || te.Code != c.code) {
			t.Errorf("Validate(%.40v, %d) = %v, want %q", c.s, c.max, err, c.code)
		}
	}
}

func TestQuery(t *testing.T) {
	s, err := ParseQuery("b=2&a=x%20y&c=")
	if err != nil || len(s) != 3 || !s.Has("a", "x y") || !s.Has("c", "") {
		t.Fatalf("ParseQuery = %v, %v", s, err)
	}
	if q := s.Query(); q != "a=x+y&b=2&c=" {
		t.Errorf("Query = %q", q)
	}
	if back := ParseStored(s.Query()); len(back) != 3 || back.Map()["a"] != "x y" || back.Map()["c"] != "" {
		t.Errorf("ParseStored(%q) = %v", s.Query(), back)
	}
	if back := ParseStored(""); len(back) != 0 || back.Map() != nil {
		t.Errorf("ParseStored(\"\") = %v", back)
	}
	if s, err := ParseQuery(""); s != nil || err != nil {
		t.Errorf("ParseQuery(\"\") = %v, %v", s, err)
	}
	var te *Error
	if _, err := ParseQuery("a=1&a=2"); !errors.As(err, &te) || te.Code != "InvalidArgument" {
		t.Errorf("duplicate keys: %v", err)
	}
	for _, q := range []string{"aws:x=1", "AWS%3Ax=1", "a=1&Aws:cloudformation:stack-name=s"} {
		if _, err := ParseQuery(q); !errors.As(err, &te) || te.Code != "InvalidTag" || !strings.Contains(te.Msg, "aws:") {
			t.Errorf("ParseQuery(%q): %v", q, err)
		}
	}
	if _, err := ParseXML([]byte(`<Tagging><TagSet><Tag><Key>aws:x</Key><Value>1</Value></Tag></TagSet></Tagging>`), MaxBucketTags); !errors.As(err, &te) || te.Code != "InvalidTag" {
		t.Errorf("ParseXML of an aws: key: %v", err)
	}
	if _, err := ParseQuery("awsx=1&my:aws:k=2"); err != nil {
		t.Errorf("keys that only contain aws: refused: %v", err)
	}
	if _, err := ParseQuery("a=%zz"); !errors.As(err, &te) || te.Code != "InvalidArgument" {
		t.Errorf("bad escape: %v", err)
	}
}
