package bench

import (
	"encoding/xml"
	"slices"
	"testing"
)

// TestParseListPage parses responses as encoding/xml writes them, compact
// and indented, with names that need escaping.
func TestParseListPage(t *testing.T) {
	type entry struct {
		Key  string `xml:"Key"`
		Size int64  `xml:"Size"`
	}
	type cp struct {
		Prefix string `xml:"Prefix"`
	}
	type result struct {
		XMLName     xml.Name `xml:"ListBucketResult"`
		Prefix      string   `xml:"Prefix"`
		Next        string   `xml:"NextContinuationToken,omitempty"`
		IsTruncated bool     `xml:"IsTruncated"`
		Contents    []entry  `xml:"Contents"`
		Prefixes    []cp     `xml:"CommonPrefixes"`
	}
	keys := []string{"a", "a&b<c>", `q"'`, "tab\there", "é日本\U0010FFFF", "Key", "</Key>"}
	prefixes := []string{"d/", "&amp;/"}
	res := result{Prefix: "top-level prefix", Next: "tok&1", IsTruncated: true}
	for _, k := range keys {
		res.Contents = append(res.Contents, entry{Key: k, Size: 1})
	}
	for _, p := range prefixes {
		res.Prefixes = append(res.Prefixes, cp{p})
	}
	compact, _ := xml.Marshal(res)
	indented, _ := xml.MarshalIndent(res, "", "  ")
	for _, doc := range [][]byte{compact, indented} {
		p, err := parseListPage(doc)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(p.Keys, keys) || !slices.Equal(p.Prefixes, prefixes) || p.NextToken != "tok&1" {
			t.Errorf("parsed %+q %+q %q from\n%s", p.Keys, p.Prefixes, p.NextToken, doc)
		}
	}
	res.IsTruncated, res.Next = false, ""
	last, _ := xml.Marshal(res)
	if p, err := parseListPage(last); err != nil || p.NextToken != "" || len(p.Keys) != len(keys) {
		t.Errorf("last page: %+v, %v", p, err)
	}
	res.IsTruncated = true
	if _, err := parseListPage(mustMarshal(res)); err == nil {
		t.Error("a truncated page without a token was accepted")
	}
	if _, err := parseListPage([]byte("<Error><Key>x</Key></Error>")); err == nil {
		t.Error("an error document was parsed as a page")
	}
}

func mustMarshal(v any) []byte {
	b, err := xml.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
