package cors

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func doc(rules ...string) string {
	return `<CORSConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` + strings.Join(rules, "") + `</CORSConfiguration>`
}

func TestParseXMLValid(t *testing.T) {
	body := doc(`<CORSRule><ID>web</ID><AllowedOrigin>https://app.example.com</AllowedOrigin>
		<AllowedOrigin>http://*.example.com</AllowedOrigin><AllowedMethod>GET</AllowedMethod><AllowedMethod>PUT</AllowedMethod>
		<AllowedHeader>x-amz-*</AllowedHeader><AllowedHeader>Content-Type</AllowedHeader>
		<ExposeHeader>ETag</ExposeHeader><MaxAgeSeconds>3000</MaxAgeSeconds></CORSRule>`,
		`<CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>HEAD</AllowedMethod></CORSRule>`,
		`<CORSRule><AllowedOrigin></AllowedOrigin><AllowedMethod>DELETE</AllowedMethod><AllowedMethod>POST</AllowedMethod><MaxAgeSeconds>0</MaxAgeSeconds></CORSRule>`)
	c, err := ParseXML([]byte(body))
	if err != nil {
		t.Fatalf("ParseXML: %v", err)
	}
	zero, age := 0, 3000
	want := []Rule{
		{ID: "web", AllowedOrigins: []string{"https://app.example.com", "http://*.example.com"}, AllowedMethods: []string{"GET", "PUT"},
			AllowedHeaders: []string{"x-amz-*", "Content-Type"}, ExposeHeaders: []string{"ETag"}, MaxAgeSeconds: &age},
		{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"HEAD"}},
		{AllowedOrigins: []string{""}, AllowedMethods: []string{"DELETE", "POST"}, MaxAgeSeconds: &zero},
	}
	if !reflect.DeepEqual(c.Rules, want) {
		t.Fatalf("rules = %+v\nwant %+v", c.Rules, want)
	}

	// The stored form (JSON) and the answered form (XML) give it back.
	js, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back Config
	if err := json.Unmarshal(js, &back); err != nil || !reflect.DeepEqual(back.Rules, want) {
		t.Fatalf("JSON round trip = %+v, %v", back.Rules, err)
	}
	out, err := xml.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseXML(out)
	if err != nil || !reflect.DeepEqual(again.Rules, want) {
		t.Fatalf("XML round trip of %s = %+v, %v", out, again.Rules, err)
	}
	if s := string(out); strings.Contains(s, "<MaxAgeSeconds></MaxAgeSeconds>") || strings.Count(s, "<ID>") != 1 {
		t.Errorf("unset members are written: %s", s)
	}
}

func TestParseXMLInvalid(t *testing.T) {
	rule := func(inner string) string { return "<CORSRule>" + inner + "</CORSRule>" }
	ok := `<AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod>`
	many := make([]string, MaxRules+1)
	for i := range many {
		many[i] = rule(ok)
	}
	malformed := []struct{ name, body string }{
		{"not XML", "<CORSConfiguration><CORSRule>"},
		{"other root", `<LifecycleConfiguration>` + rule(ok) + `</LifecycleConfiguration>`},
		{"no rules", doc()},
		{"empty rule", doc("<CORSRule/>")},
		{"no origin", doc(rule(`<AllowedMethod>GET</AllowedMethod>`))},
		{"no method", doc(rule(`<AllowedOrigin>*</AllowedOrigin>`))},
		{"101 rules", doc(many...)},
		{"two IDs", doc(rule(ok + `<ID>a</ID><ID>b</ID>`))},
		{"two max ages", doc(rule(ok + `<MaxAgeSeconds>1</MaxAgeSeconds><MaxAgeSeconds>2</MaxAgeSeconds>`))},
		{"max age not a number", doc(rule(ok + `<MaxAgeSeconds>soon</MaxAgeSeconds>`))},
		{"negative max age", doc(rule(ok + `<MaxAgeSeconds>-1</MaxAgeSeconds>`))},
	}
	for _, c := range malformed {
		if _, err := ParseXML([]byte(c.body)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", c.name, err)
		}
	}
	if _, err := ParseXML([]byte(doc(many[:MaxRules]...))); err != nil {
		t.Errorf("%d rules: %v", MaxRules, err)
	}

	refused := []struct{ name, body, msg string }{
		{"lowercase method", doc(rule(`<AllowedOrigin>*</AllowedOrigin><AllowedMethod>get</AllowedMethod>`)),
			"Found unsupported HTTP method in CORS config. Unsupported method is get"},
		{"OPTIONS", doc(rule(`<AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod><AllowedMethod>OPTIONS</AllowedMethod>`)),
			"Found unsupported HTTP method in CORS config. Unsupported method is OPTIONS"},
		{"empty method", doc(rule(`<AllowedOrigin>*</AllowedOrigin><AllowedMethod></AllowedMethod>`)),
			"Found unsupported HTTP method in CORS config. Unsupported method is "},
		{"two wildcards in an origin", doc(rule(`<AllowedOrigin>*example*.com</AllowedOrigin><AllowedMethod>GET</AllowedMethod>`)),
			`AllowedOrigin "*example*.com" can not have more than one wildcard.`},
		{"two wildcards in a header", doc(rule(ok + `<AllowedHeader>x-*-*</AllowedHeader>`)),
			`AllowedHeader "x-*-*" can not have more than one wildcard.`},
		{"long ID", doc(rule(ok + "<ID>" + strings.Repeat("i", MaxIDLength+1) + "</ID>")),
			fmt.Sprintf("The ID of a CORS rule can not be longer than %d characters.", MaxIDLength)},
	}
	for _, c := range refused {
		_, err := ParseXML([]byte(c.body))
		var re *RuleError
		if !errors.As(err, &re) || re.Msg != c.msg {
			t.Errorf("%s: err = %v, want RuleError %q", c.name, err, c.msg)
		}
	}
	if _, err := ParseXML([]byte(doc(rule(ok + "<ID>" + strings.Repeat("i", MaxIDLength) + "</ID>")))); err != nil {
		t.Errorf("ID of %d characters: %v", MaxIDLength, err)
	}
}
