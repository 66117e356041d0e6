package cors

import (
	"errors"
	"net/http"
	"reflect"
	"testing"
)

func ptr(n int) *int { return &n }

var testRules = Compile(Config{Rules: []Rule{
	{AllowedOrigins: []string{"https://app.example.com"}, AllowedMethods: []string{"GET", "PUT"},
		AllowedHeaders: []string{"x-amz-*", "Content-Type"}, ExposeHeaders: []string{"ETag", "x-amz-request-id"}, MaxAgeSeconds: ptr(3000)},
	{AllowedOrigins: []string{"http://*.example.com"}, AllowedMethods: []string{"DELETE"}},
	{AllowedOrigins: []string{"*suffix", "start*end"}, AllowedMethods: []string{"HEAD"}},
	{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"GET"}, AllowedHeaders: []string{"*"}},
}})

func TestPatternMatch(t *testing.T) {
	cases := []struct {
		pattern, s string
		want       bool
	}{
		{"http://a.com", "http://a.com", true},
		{"http://a.com", "http://a.com/", false},
		{"http://a.com", "https://a.com", false},
		{"http://a.com", "http://A.com", false}, // origins are exact
		{"http://*.a.com", "http://x.a.com", true},
		{"http://*.a.com", "http://x.y.a.com", true},
		{"http://*.a.com", "http://.a.com", true}, // "*" matches the empty run
		{"http://*.a.com", "http://a.com", false},
		{"http://*.a.com", "https://x.a.com", false},
		{"start*end", "startend", true},
		{"start*end", "0start12end", false},
		{"ab*ba", "aba", false}, // prefix and suffix may not overlap
		{"prefix*", "prefix", true},
		{"*suffix", "foo.suffix.get", false},
		{"*", "", true},
		{"", "", true},
		{"", "x", false},
	}
	for _, c := range cases {
		if got := newPattern(c.pattern).match(c.s); got != c.want {
			t.Errorf("%q matches %q = %v, want %v", c.pattern, c.s, got, c.want)
		}
	}
}

func TestPreflight(t *testing.T) {
	cases := []struct {
		name                    string
		rules                   *Rules
		origin, method, headers string
		noMethod                bool
		wantErr                 error
		want                    http.Header
	}{
		{name: "no origin", rules: testRules, method: "GET", wantErr: ErrNoOrigin},
		{name: "no origin, no configuration", origin: "", method: "GET", wantErr: ErrNoOrigin},
		{name: "no configuration", origin: "https://app.example.com", method: "GET", wantErr: ErrNotEnabled},
		{name: "no configuration, no method", origin: "https://app.example.com", noMethod: true, wantErr: ErrNotEnabled},
		{name: "no method", rules: testRules, origin: "https://app.example.com", noMethod: true,
			wantErr: &MethodError{Missing: true}},
		{name: "bad method", rules: testRules, origin: "https://app.example.com", method: "PATCH",
			wantErr: &MethodError{Method: "PATCH"}},
		{name: "lowercase method", rules: testRules, origin: "https://app.example.com", method: "get",
			wantErr: &MethodError{Method: "get"}},
		{name: "exact origin, headers case-insensitive", rules: testRules, origin: "https://app.example.com", method: "PUT",
			headers: "X-Amz-Meta-Color,content-type , x-amz-date",
			want: http.Header{
				"Access-Control-Allow-Origin":      {"https://app.example.com"},
				"Access-Control-Allow-Credentials": {"true"},
				"Access-Control-Allow-Methods":     {"GET, PUT"},
				"Access-Control-Allow-Headers":     {"x-amz-meta-color, content-type, x-amz-date"},
				"Access-Control-Expose-Headers":    {"ETag, x-amz-request-id"},
				"Access-Control-Max-Age":           {"3000"},
				"Vary":                             {Vary},
			}},
		{name: "a header no rule allows falls through to *", rules: testRules, origin: "https://app.example.com", method: "GET",
			headers: "authorization",
			want: http.Header{
				"Access-Control-Allow-Origin":  {"*"},
				"Access-Control-Allow-Methods": {"GET"},
				"Access-Control-Allow-Headers": {"authorization"},
				"Vary":                         {Vary},
			}},
		{name: "header not allowed anywhere", rules: testRules, origin: "https://app.example.com", method: "PUT",
			headers: "x-custom", wantErr: ErrNotAllowed},
		{name: "wildcard origin echoes the origin", rules: testRules, origin: "http://shop.example.com", method: "DELETE",
			want: http.Header{
				"Access-Control-Allow-Origin":      {"http://shop.example.com"},
				"Access-Control-Allow-Credentials": {"true"},
				"Access-Control-Allow-Methods":     {"DELETE"},
				"Vary":                             {Vary},
			}},
		{name: "rule without headers refuses requested headers", rules: testRules, origin: "http://shop.example.com", method: "DELETE",
			headers: "x-amz-date", wantErr: ErrNotAllowed},
		{name: "method no rule allows", rules: testRules, origin: "http://shop.example.com", method: "POST", wantErr: ErrNotAllowed},
		{name: "second origin of a rule", rules: testRules, origin: "start-x-end", method: "HEAD",
			want: http.Header{
				"Access-Control-Allow-Origin":      {"start-x-end"},
				"Access-Control-Allow-Credentials": {"true"},
				"Access-Control-Allow-Methods":     {"HEAD"},
				"Vary":                             {Vary},
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := c.rules.Preflight(c.origin, c.method, c.headers, !c.noMethod)
			if c.wantErr != nil {
				var me *MethodError
				if errors.As(c.wantErr, &me) {
					var got *MethodError
					if !errors.As(err, &got) || *got != *me {
						t.Fatalf("err = %v, want %v", err, c.wantErr)
					}
					return
				}
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("err = %v, want %v", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			got := http.Header{}
			m.SetHeaders(got, true)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("headers = %v\nwant %v", got, c.want)
			}
		})
	}
}

func TestActual(t *testing.T) {
	cases := []struct {
		origin, method string
		want           http.Header // nil: no match
	}{
		{"https://app.example.com", "PUT", http.Header{
			"Access-Control-Allow-Origin":      {"https://app.example.com"},
			"Access-Control-Allow-Credentials": {"true"},
			"Access-Control-Allow-Methods":     {"GET, PUT"},
			"Access-Control-Expose-Headers":    {"ETag, x-amz-request-id"},
			"Access-Control-Max-Age":           {"3000"},
			"Vary":                             {Vary},
		}},
		{"https://other.org", "GET", http.Header{
			"Access-Control-Allow-Origin":  {"*"},
			"Access-Control-Allow-Methods": {"GET"},
			"Vary":                         {Vary},
		}},
		{"https://other.org", "PUT", nil},
		{"https://app.example.com", "OPTIONS", nil},
		{"https://app.example.com", "PATCH", nil},
	}
	for _, c := range cases {
		m, ok := testRules.Actual(c.origin, c.method)
		if ok != (c.want != nil) {
			t.Errorf("Actual(%q, %q) matched = %v, want %v", c.origin, c.method, ok, c.want != nil)
			continue
		}
		if !ok {
			continue
		}
		got := http.Header{}
		m.SetHeaders(got, false)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Actual(%q, %q) headers = %v\nwant %v", c.origin, c.method, got, c.want)
		}
	}
	var none *Rules
	if _, ok := none.Actual("https://app.example.com", "GET"); ok {
		t.Error("nil Rules matched")
	}
}

func TestSplitHeaders(t *testing.T) {
	cases := map[string][]string{
		"":                  nil,
		"  ":                nil,
		"a":                 {"a"},
		"X-Amz-Date,,B , c": {"x-amz-date", "b", "c"},
	}
	for in, want := range cases {
		if got := SplitHeaders(in); !reflect.DeepEqual(got, want) {
			t.Errorf("SplitHeaders(%q) = %q, want %q", in, got, want)
		}
	}
}
