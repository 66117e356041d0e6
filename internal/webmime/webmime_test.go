package webmime

import (
	"slices"
	"strings"
	"testing"
)

// TestParse: the cases of web-platform-tests' mimesniff/mime-types
// (resources/mime-types.json): input, and its serialization after
// parsing ("" where parsing fails).
func TestParse(t *testing.T) {
	long := strings.Repeat("0123456789", 13)
	for _, c := range []struct{ in, want string }{
		// Basics
		{"text/html;charset=gbk", "text/html;charset=gbk"},
		{"TEXT/HTML;CHARSET=GBK", "text/html;charset=GBK"},
		// Legacy comment syntax
		{"text/html;charset=gbk(", `text/html;charset="gbk("`},
		{"text/html;x=(;charset=gbk", `text/html;x="(";charset=gbk`},
		// Duplicate parameter
		{"text/html;charset=gbk;charset=windows-1255", "text/html;charset=gbk"},
		{"text/html;charset=();charset=GBK", `text/html;charset="()"`},
		// Spaces
		{"text/html;charset =gbk", "text/html"},
		{"text/html ;charset=gbk", "text/html;charset=gbk"},
		{"text/html; charset=gbk", "text/html;charset=gbk"},
		{"text/html;charset= gbk", `text/html;charset=" gbk"`},
		{`text/html;charset= "gbk"`, `text/html;charset=" \"gbk\""`},
		// Single quotes are a token, not a delimiter
		{"text/html;charset='gbk'", "text/html;charset='gbk'"},
		{"text/html;charset='gbk", "text/html;charset='gbk"},
		{"text/html;charset=gbk'", "text/html;charset=gbk'"},
		{"text/html;charset=';charset=GBK", "text/html;charset='"},
		// Invalid parameters
		{"text/html;test;charset=gbk", "text/html;charset=gbk"},
		{"text/html;test=;charset=gbk", "text/html;charset=gbk"},
		{"text/html;';charset=gbk", "text/html;charset=gbk"},
		{`text/html;";charset=gbk`, "text/html;charset=gbk"},
		{"text/html ; ; charset=gbk", "text/html;charset=gbk"},
		{"text/html;;;;charset=gbk", "text/html;charset=gbk"},
		{"text/html;charset= \"\x7f;charset=GBK", "text/html;charset=GBK"},
		{"text/html;charset=\"\x7f;charset=foo\";charset=GBK", "text/html;charset=GBK"},
		// Double quotes
		{`text/html;charset="gbk"`, "text/html;charset=gbk"},
		{`text/html;charset="gbk`, "text/html;charset=gbk"},
		{`text/html;charset=gbk"`, `text/html;charset="gbk\""`},
		{`text/html;charset=" gbk"`, `text/html;charset=" gbk"`},
		{`text/html;charset="gbk "`, `text/html;charset="gbk "`},
		{`text/html;charset="\ gbk"`, `text/html;charset=" gbk"`},
		{`text/html;charset="\g\b\k"`, "text/html;charset=gbk"},
		{`text/html;charset="gbk"x`, "text/html;charset=gbk"},
		{`text/html;charset="";charset=GBK`, `text/html;charset=""`},
		{`text/html;charset=";charset=GBK`, `text/html;charset=";charset=GBK"`},
		// Unexpected code points
		{"text/html;charset={gbk}", `text/html;charset="{gbk}"`},
		// Names and types longer than 127
		{"text/html;" + long + "=x;charset=gbk", "text/html;" + long + "=x;charset=gbk"},
		{long + "/" + long, long + "/" + long},
		// End of input
		{"x/x;test", "x/x"},
		{`x/x;test="\`, `x/x;test="\\"`},
		{"x/x;x= ", "x/x"},
		{"x/x;x=\t", "x/x"},
		// Latin-1 (a header's bytes)
		{"text/html;test=\xff;charset=gbk", "text/html;test=\"\xff\";charset=gbk"},
		// Failures
		{"", ""}, {"\t", ""}, {"/", ""}, {"bogus", ""}, {"bogus/", ""}, {"bogus/ ", ""},
		{"bogus/bogus/;", ""}, {"</>", ""}, {"(/)", ""}, {"\xff/\xff", ""},
		{"text/html(;doesnot=matter", ""}, {"{/}", ""},
	} {
		got := ""
		if m, ok := Parse(c.in); ok {
			got = m.String()
		}
		if got != c.want {
			t.Errorf("Parse(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestExtract: the cases of web-platform-tests' fetch/content-type
// (resources/content-types.json), each list given as one header value
// (", "-joined) and as header lines joined by ",", as SigV4 and JOG store
// them; then the lists of JOG's issue 37 (Chromium rendered their HTML).
func TestExtract(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{"", "text/plain"}, "text/plain"},
		{[]string{"text/plain", ""}, "text/plain"},
		{[]string{"text/html", "text/plain"}, "text/plain"},
		{[]string{"text/plain;charset=gbk", "text/html"}, "text/html"},
		{[]string{"text/plain;charset=gbk", "text/html;charset=windows-1254"}, "text/html;charset=windows-1254"},
		{[]string{"text/plain;charset=gbk", "text/plain"}, "text/plain;charset=gbk"},
		{[]string{"text/plain;charset=gbk", "text/plain;charset=windows-1252"}, "text/plain;charset=windows-1252"},
		{[]string{"text/html;charset=gbk", `text/html;x=",text/plain`}, `text/html;x=",text/plain";charset=gbk`},
		{[]string{"text/html;charset=gbk", "text/plain", "text/html"}, "text/html"},
		{[]string{"text/plain", "*/*"}, "text/plain"},
		{[]string{"text/html", "*/*"}, "text/html"},
		{[]string{"*/*", "text/html"}, "text/html"},
		{[]string{"text/plain", "*/*;charset=gbk"}, "text/plain"},
		{[]string{"text/html", "*/*;charset=gbk"}, "text/html"},
		{[]string{`text/html;x="`, "text/plain"}, `text/html;x=", text/plain"`},
		{[]string{`text/html;"`, "text/plain"}, "text/html"},
	} {
		if got := extracted(strings.Join(c.in, ", ")); got != c.want {
			t.Errorf("Extract(%q) = %q, want %q", strings.Join(c.in, ", "), got, c.want)
		}
		// Joined without the space, a quoted string's text differs.
		if want := strings.ReplaceAll(c.want, `", text`, `",text`); extracted(strings.Join(c.in, ",")) != want {
			t.Errorf("Extract(%q) = %q, want %q", strings.Join(c.in, ","), extracted(strings.Join(c.in, ",")), want)
		}
	}
	for in, want := range map[string]string{
		"text/plain, text/html":               "text/html",
		"text/plain,text/html":                "text/html",
		"foo, text/html":                      "text/html",
		"text/html, ":                         "text/html",
		"application/octet-stream, text/html": "text/html",
		"image/png, text/html;charset=utf-8":  "text/html;charset=utf-8",
		"text/html, image/png":                "image/png",
		"":                                    "",
		" , ,":                                "",
		"*/*":                                 "",
	} {
		if got := extracted(in); got != want {
			t.Errorf("Extract(%q) = %q, want %q", in, got, want)
		}
	}
}

func extracted(v string) string {
	if m, ok := Extract(v); ok {
		return m.String()
	}
	return ""
}

// TestSplit: commas inside quoted strings do not split; elements are
// trimmed of tabs and spaces; empty elements are kept.
func TestSplit(t *testing.T) {
	for in, want := range map[string][]string{
		"":                        {""},
		"a":                       {"a"},
		"a, b":                    {"a", "b"},
		" a ,\tb\t,":              {"a", "b", ""},
		`a;x=",b", c`:             {`a;x=",b"`, "c"},
		`a;x="\",b", c`:           {`a;x="\",b"`, "c"},
		`a;"`:                     {`a;"`},
		`text/html;", text/plain`: {`text/html;", text/plain`},
	} {
		if got := Split(in); !slices.Equal(got, want) {
			t.Errorf("Split(%q) = %q, want %q", in, got, want)
		}
	}
}
