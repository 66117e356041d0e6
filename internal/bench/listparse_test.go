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

// TestParseVersionsPage parses a ListObjectVersions response as
// encoding/xml writes it: versions and delete markers in order, the
// top-level KeyMarker and Prefix not taken for entries.
func TestParseVersionsPage(t *testing.T) {
	type entry struct {
		Key       string `xml:"Key"`
		VersionID string `xml:"VersionId"`
		IsLatest  bool   `xml:"IsLatest"`
	}
	type item struct {
		Version      *entry `xml:"Version,omitempty"`
		DeleteMarker *entry `xml:"DeleteMarker,omitempty"`
	}
	type result struct {
		XMLName       xml.Name `xml:"ListVersionsResult"`
		KeyMarker     string   `xml:"KeyMarker"`
		VersionMarker string   `xml:"VersionIdMarker"`
		NextKey       string   `xml:"NextKeyMarker,omitempty"`
		NextVersion   string   `xml:"NextVersionIdMarker,omitempty"`
		Prefix        string   `xml:"Prefix"`
		IsTruncated   bool     `xml:"IsTruncated"`
		Items         []item   `xml:",any"`
	}
	want := []ObjectVersion{{"a&b", "v3", false}, {"a&b", "v2", true}, {"a&b", "v1", false}, {"c", "null", false}}
	res := result{KeyMarker: "k0", VersionMarker: "v0", NextKey: "c", NextVersion: "null", Prefix: "p", IsTruncated: true}
	for _, v := range want {
		e := &entry{Key: v.Key, VersionID: v.VersionID}
		if v.DeleteMarker {
			res.Items = append(res.Items, item{DeleteMarker: e})
		} else {
			res.Items = append(res.Items, item{Version: e})
		}
	}
	doc := mustMarshal(res)
	p, err := parseVersionsPage(doc)
	if err != nil || !slices.Equal(p.Versions, want) || p.NextKeyMarker != "c" || p.NextVersionIDMarker != "null" {
		t.Errorf("parsed %+v, %v from\n%s", p, err, doc)
	}
	res.IsTruncated = false
	if p, err := parseVersionsPage(mustMarshal(res)); err != nil || p.NextKeyMarker != "" || p.NextVersionIDMarker != "" || len(p.Versions) != 4 {
		t.Errorf("last page: %+v, %v", p, err)
	}
	res.IsTruncated, res.NextKey = true, ""
	if _, err := parseVersionsPage(mustMarshal(res)); err == nil {
		t.Error("a truncated page without a next key marker was accepted")
	}
	if _, err := parseVersionsPage([]byte("<ListBucketResult><Key>x</Key></ListBucketResult>")); err == nil {
		t.Error("a ListObjectsV2 page was parsed as versions")
	}
}
