package lifecycle

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// doc wraps rules in a LifecycleConfiguration.
func doc(rules ...string) []byte {
	return []byte(`<LifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` +
		strings.Join(rules, "") + `</LifecycleConfiguration>`)
}

func TestParseXMLAccepts(t *testing.T) {
	body := doc(
		`<Rule><ID>logs</ID><Filter><Prefix>logs/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>30</Days></Expiration></Rule>`,
		`<Rule><ID>legacy</ID><Prefix>tmp/</Prefix><Status>Disabled</Status><Expiration><Date>2030-01-01T00:00:00.000Z</Date></Expiration></Rule>`,
		`<Rule><ID>all</ID><Filter></Filter><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>7</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>`,
		`<Rule><ID>and</ID><Filter><And><Prefix>a/</Prefix><Tag><Key>k</Key><Value>v</Value></Tag><ObjectSizeGreaterThan>10</ObjectSizeGreaterThan><ObjectSizeLessThan>100</ObjectSizeLessThan></And></Filter><Status>Enabled</Status>`+
			`<NoncurrentVersionExpiration><NoncurrentDays>3</NoncurrentDays><NewerNoncurrentVersions>5</NewerNoncurrentVersions></NoncurrentVersionExpiration></Rule>`,
		`<Rule><ID>markers</ID><Filter><Prefix></Prefix></Filter><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>`,
		`<Rule><Filter><ObjectSizeGreaterThan>0</ObjectSizeGreaterThan></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`,
	)
	c, err := ParseXML(body)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rules) != 6 {
		t.Fatalf("%d rules", len(c.Rules))
	}
	if r := c.Rules[0]; r.Filter == nil || *r.Filter.Prefix != "logs/" || *r.Expiration.Days != 30 || r.Status != Enabled {
		t.Errorf("rule 0: %+v", r)
	}
	if r := c.Rules[1]; r.Prefix == nil || *r.Prefix != "tmp/" || !r.Expiration.Date.Equal(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("rule 1: %+v", r)
	}
	if r := c.Rules[3]; len(r.Filter.And.Tags) != 1 || *r.NoncurrentVersionExpiration.NewerNoncurrentVersions != 5 {
		t.Errorf("rule 3: %+v", r)
	}
	if r := c.Rules[4]; r.Filter.Prefix == nil || *r.Filter.Prefix != "" {
		t.Errorf("rule 4: an empty Prefix element must be kept: %+v", r.Filter)
	}
	if id := c.Rules[5].ID; id == "" || len(id) > MaxIDLength {
		t.Errorf("a rule without an ID got %q, want a generated one", id)
	}

	// Stored as JSON and sent back as XML, unchanged.
	j, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back Config
	if err := json.Unmarshal(j, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Rules, c.Rules) {
		t.Errorf("JSON round trip changed the rules:\n%+v\n%+v", back.Rules, c.Rules)
	}
	x, err := xml.Marshal(back)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseXML(x)
	if err != nil {
		t.Fatalf("our own XML does not parse: %v\n%s", err, x)
	}
	if !reflect.DeepEqual(again.Rules, c.Rules) {
		t.Errorf("XML round trip changed the rules:\n%s", x)
	}
}

func TestParseXMLRefuses(t *testing.T) {
	exp := `<Expiration><Days>1</Days></Expiration>`
	rule := func(inner string) string { return `<Rule>` + inner + `</Rule>` }
	tooMany := make([]string, MaxRules+1)
	for i := range tooMany {
		tooMany[i] = rule(fmt.Sprintf(`<ID>r%d</ID><Filter/><Status>Enabled</Status>`, i) + exp)
	}
	cases := []struct {
		name string
		body []byte
		code string // "MalformedXML", "NotImplemented", or a RuleError's code
	}{
		{"not XML", []byte("<LifecycleConfiguration><Rule>"), "MalformedXML"},
		{"wrong root", []byte(`<CORSConfiguration/>`), "MalformedXML"},
		{"no rules", doc(), "MalformedXML"},
		{"too many rules", doc(tooMany...), "MalformedXML"},
		{"no status", doc(rule(`<ID>a</ID><Filter/>` + exp)), "MalformedXML"},
		{"bad status", doc(rule(`<ID>a</ID><Filter/><Status>enabled</Status>` + exp)), "MalformedXML"},
		{"no filter nor prefix", doc(rule(`<ID>a</ID><Status>Enabled</Status>` + exp)), "MalformedXML"},
		{"filter and prefix", doc(rule(`<ID>a</ID><Prefix>x</Prefix><Filter/><Status>Enabled</Status>` + exp)), "MalformedXML"},
		{"two predicates without And", doc(rule(`<ID>a</ID><Filter><Prefix>x</Prefix><ObjectSizeLessThan>5</ObjectSizeLessThan></Filter><Status>Enabled</Status>` + exp)), "MalformedXML"},
		{"empty And", doc(rule(`<ID>a</ID><Filter><And></And></Filter><Status>Enabled</Status>` + exp)), "MalformedXML"},
		{"repeated Filter", doc(rule(`<ID>a</ID><Filter/><Filter/><Status>Enabled</Status>` + exp)), "MalformedXML"},
		{"repeated ID", doc(rule(`<ID>a</ID><ID>b</ID><Filter/><Status>Enabled</Status>` + exp)), "MalformedXML"},
		{"no action", doc(rule(`<ID>a</ID><Filter/><Status>Enabled</Status>`)), "InvalidRequest"},
		{"empty Expiration", doc(rule(`<ID>a</ID><Filter/><Status>Enabled</Status><Expiration></Expiration>`)), "MalformedXML"},
		{"Days and Date", doc(rule(`<ID>a</ID><Filter/><Status>Enabled</Status><Expiration><Days>1</Days><Date>2030-01-01T00:00:00Z</Date></Expiration>`)), "MalformedXML"},
		{"Days not a number", doc(rule(`<ID>a</ID><Filter/><Status>Enabled</Status><Expiration><Days>x</Days></Expiration>`)), "MalformedXML"},
		{"Date not a date", doc(rule(`<ID>a</ID><Filter/><Status>Enabled</Status><Expiration><Date>tomorrow</Date></Expiration>`)), "MalformedXML"},
		{"zero Days", doc(rule(`<ID>a</ID><Filter/><Status>Enabled</Status><Expiration><Days>0</Days></Expiration>`)), "InvalidArgument"},
		{"negative Days", doc(rule(`<ID>a</ID><Filter/><Status>Enabled</Status><Expiration><Days>-1</Days></Expiration>`)), "InvalidArgument"},
		{"Date not midnight", doc(rule(`<ID>a</ID><Filter/><Status>Enabled</Status><Expiration><Date>2030-01-01T10:00:00Z</Date></Expiration>`)), "InvalidArgument"},
		{"Date midnight elsewhere", doc(rule(`<ID>a</ID><Filter/><Status>Enabled</Status><Expiration><Date>2030-01-01T00:00:00+02:00</Date></Expiration>`)), "InvalidArgument"},
		{"marker with Days", doc(rule(`<ID>a</ID><Filter/><Status>Enabled</Status><Expiration><Days>1</Days><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>`)), "InvalidRequest"},
		{"marker with tag", doc(rule(`<ID>a</ID><Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>`)), "InvalidRequest"},
		{"long ID", doc(rule(`<ID>` + strings.Repeat("i", MaxIDLength+1) + `</ID><Filter/><Status>Enabled</Status>` + exp)), "InvalidArgument"},
		{"duplicate IDs", doc(rule(`<ID>a</ID><Filter/><Status>Enabled</Status>`+exp), rule(`<ID>a</ID><Filter/><Status>Enabled</Status>`+exp)), "InvalidArgument"},
		{"noncurrent zero days", doc(rule(`<ID>a</ID><Filter/><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>0</NoncurrentDays></NoncurrentVersionExpiration>`)), "InvalidArgument"},
		{"noncurrent no days", doc(rule(`<ID>a</ID><Filter/><Status>Enabled</Status><NoncurrentVersionExpiration><NewerNoncurrentVersions>2</NewerNoncurrentVersions></NoncurrentVersionExpiration>`)), "MalformedXML"},
		{"newer versions too many", doc(rule(`<ID>a</ID><Filter/><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>101</NewerNoncurrentVersions></NoncurrentVersionExpiration>`)), "InvalidArgument"},
		{"abort zero days", doc(rule(`<ID>a</ID><Filter/><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>0</DaysAfterInitiation></AbortIncompleteMultipartUpload>`)), "InvalidArgument"},
		{"abort with tag", doc(rule(`<ID>a</ID><Filter><And><Prefix>p</Prefix><Tag><Key>k</Key><Value>v</Value></Tag></And></Filter><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload>`)), "InvalidRequest"},
		{"abort with size", doc(rule(`<ID>a</ID><Filter><ObjectSizeLessThan>9</ObjectSizeLessThan></Filter><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload>`)), "InvalidRequest"},
		{"sizes crossed", doc(rule(`<ID>a</ID><Filter><And><ObjectSizeGreaterThan>9</ObjectSizeGreaterThan><ObjectSizeLessThan>9</ObjectSizeLessThan></And></Filter><Status>Enabled</Status>` + exp)), "InvalidArgument"},
		{"negative size", doc(rule(`<ID>a</ID><Filter><ObjectSizeGreaterThan>-1</ObjectSizeGreaterThan></Filter><Status>Enabled</Status>` + exp)), "InvalidArgument"},
		{"duplicate tag keys", doc(rule(`<ID>a</ID><Filter><And><Tag><Key>k</Key><Value>1</Value></Tag><Tag><Key>k</Key><Value>2</Value></Tag></And></Filter><Status>Enabled</Status>` + exp)), "InvalidRequest"},
		{"empty tag key", doc(rule(`<ID>a</ID><Filter><Tag><Key></Key><Value>v</Value></Tag></Filter><Status>Enabled</Status>` + exp)), "InvalidArgument"},
		{"transition", doc(rule(`<ID>a</ID><Filter/><Status>Enabled</Status><Transition><Days>30</Days><StorageClass>GLACIER</StorageClass></Transition>`)), "NotImplemented"},
		{"noncurrent transition", doc(rule(`<ID>a</ID><Filter/><Status>Enabled</Status><NoncurrentVersionTransition><NoncurrentDays>30</NoncurrentDays><StorageClass>STANDARD_IA</StorageClass></NoncurrentVersionTransition>`)), "NotImplemented"},
		{"transition to no class", doc(rule(`<ID>a</ID><Filter/><Status>Enabled</Status><Transition><Days>30</Days><StorageClass>COLD</StorageClass></Transition>`)), "MalformedXML"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseXML(tc.body)
			var rule *RuleError
			got := "accepted"
			switch {
			case errors.Is(err, ErrMalformed):
				got = "MalformedXML"
			case errors.Is(err, ErrTransition):
				got = "NotImplemented"
			case errors.As(err, &rule):
				got = rule.Code
			case err != nil:
				got = "unexpected error " + err.Error()
			}
			if got != tc.code {
				t.Errorf("got %s (%v), want %s", got, err, tc.code)
			}
		})
	}
}
