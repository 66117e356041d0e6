package bucketrepl

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7/pkg/replication"

	"github.com/jogstore/jog/internal/tagging"
)

// doc wraps rules in a ReplicationConfiguration.
func doc(rules ...string) []byte {
	return []byte(`<ReplicationConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Role>arn:aws:iam::1:role/r</Role>` +
		strings.Join(rules, "") + `</ReplicationConfiguration>`)
}

// v2 is a V2 rule with id, priority and filter, extra inside the Rule.
func v2(id string, priority int, filter, extra string) string {
	return fmt.Sprintf(`<Rule><ID>%s</ID><Priority>%d</Priority><Filter>%s</Filter><Status>Enabled</Status>`+
		`<DeleteMarkerReplication><Status>Disabled</Status></DeleteMarkerReplication>%s`+
		`<Destination><Bucket>arn:aws:s3:::dst</Bucket></Destination></Rule>`, id, priority, filter, extra)
}

// v1 is a V1 rule with id and prefix.
func v1(id, prefix string) string {
	return fmt.Sprintf(`<Rule><ID>%s</ID><Prefix>%s</Prefix><Status>Enabled</Status>`+
		`<Destination><Bucket>arn:aws:s3:::dst</Bucket></Destination></Rule>`, id, prefix)
}

func TestParseXMLAccepts(t *testing.T) {
	for name, body := range map[string][]byte{
		"v1":              doc(v1("a", "logs/"), v1("b", "img/")),
		"v2 prefix":       doc(v2("a", 1, "<Prefix>logs/</Prefix>", ""), v2("b", 2, "", "")),
		"v2 tag":          doc(v2("a", 1, "<Tag><Key>k</Key><Value>v</Value></Tag>", "")),
		"v2 and":          doc(v2("a", 1, "<And><Prefix>p/</Prefix><Tag><Key>k</Key><Value>v</Value></Tag></And>", "")),
		"standard":        []byte(strings.Replace(string(doc(v2("a", 1, "", ""))), "</Bucket>", "</Bucket><StorageClass>STANDARD</StorageClass>", 1)),
		"existing":        doc(v2("a", 1, "", "<ExistingObjectReplication><Status>Enabled</Status></ExistingObjectReplication>")),
		"ssc disabled":    doc(v2("a", 1, "", "<SourceSelectionCriteria><ReplicaModifications><Status>Disabled</Status></ReplicaModifications></SourceSelectionCriteria>")),
		"rtc disabled":    []byte(strings.Replace(string(doc(v2("a", 1, "", ""))), "</Bucket>", "</Bucket><ReplicationTime><Status>Disabled</Status></ReplicationTime><Metrics><Status>Disabled</Status></Metrics>", 1)),
		"jog destination": []byte(strings.Replace(string(doc(v2("a", 1, "", ""))), "arn:aws:s3:::dst", "arn:jog:replication::dr-1:dst", 1)),
		"1000 rules":      doc(manyRules(MaxRules)...),
	} {
		if _, err := ParseXML(body); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func manyRules(n int) []string {
	rules := make([]string, n)
	for i := range rules {
		rules[i] = v2(fmt.Sprint("r", i), i, "", "")
	}
	return rules
}

func TestParseXMLKeepsDocument(t *testing.T) {
	c, err := ParseXML(doc(v2("", 7, "<And><Prefix>p/</Prefix><Tag><Key>k</Key><Value>v</Value></Tag></And>", "")))
	if err != nil {
		t.Fatal(err)
	}
	r := c.Rules[0]
	if c.Role != "arn:aws:iam::1:role/r" || len(r.ID) == 0 || *r.Priority != 7 || *r.Filter.And.Prefix != "p/" ||
		r.Filter.And.Tags[0] != (Tag{Key: "k", Value: "v"}) || r.Destination.Bucket != "arn:aws:s3:::dst" || r.DeleteMarkerReplication.On() {
		t.Errorf("parsed %+v", c)
	}
}

// TestParseXMLRefuses holds one case per rule of Validate and of the
// wire's checks: the S3 code each gets.
func TestParseXMLRefuses(t *testing.T) {
	dst := func(extra string) []byte {
		return []byte(strings.Replace(string(doc(v2("a", 1, "", ""))), "</Bucket>", "</Bucket>"+extra, 1))
	}
	withBucket := func(arn string) []byte {
		return []byte(strings.Replace(string(doc(v2("a", 1, "", ""))), "arn:aws:s3:::dst", arn, 1))
	}
	noDMR := strings.Replace(v2("a", 1, "", ""), "<DeleteMarkerReplication><Status>Disabled</Status></DeleteMarkerReplication>", "", 1)
	noPriority := strings.Replace(v2("a", 1, "", ""), "<Priority>1</Priority>", "", 1)
	for _, c := range []struct {
		name, code string
		body       []byte
	}{
		{"not xml", "MalformedXML", []byte("<Replication")},
		{"no rules", "MalformedXML", doc()},
		{"too many rules", "MalformedXML", doc(manyRules(MaxRules + 1)...)},
		{"id too long", "InvalidArgument", doc(v2(strings.Repeat("i", MaxIDLength+1), 1, "", ""))},
		{"duplicate id", "InvalidArgument", doc(v2("a", 1, "", ""), v2("a", 2, "", ""))},
		{"duplicate priority", "InvalidRequest", doc(v2("a", 1, "", ""), v2("b", 1, "", ""))},
		{"negative priority", "InvalidArgument", doc(v2("a", -1, "", ""))},
		{"priority not a number", "MalformedXML", []byte(strings.Replace(string(doc(v2("a", 1, "", ""))), "<Priority>1", "<Priority>x", 1))},
		{"v2 without priority", "InvalidRequest", doc(noPriority)},
		{"v2 without delete marker replication", "InvalidRequest", doc(noDMR)},
		{"delete markers with tags", "InvalidRequest", doc(strings.Replace(v2("a", 1, "<Tag><Key>k</Key><Value>v</Value></Tag>", ""), "<Status>Disabled</Status></Delete", "<Status>Enabled</Status></Delete", 1))},
		{"v1 with delete marker replication", "InvalidRequest", doc(strings.Replace(v1("a", "p"), "<Destination>", "<DeleteMarkerReplication><Status>Disabled</Status></DeleteMarkerReplication><Destination>", 1))},
		{"v1 overlapping prefixes", "InvalidRequest", doc(v1("a", "logs/"), v1("b", "logs/2024/"))},
		{"v1 and v2 mixed", "InvalidRequest", doc(v1("a", "logs/"), v2("b", 1, "", ""))},
		{"bad status", "MalformedXML", doc(strings.Replace(v1("a", "p"), "Enabled", "On", 1))},
		{"no status", "MalformedXML", doc(strings.Replace(v1("a", "p"), "<Status>Enabled</Status>", "", 1))},
		{"bad delete marker status", "MalformedXML", doc(strings.Replace(v2("a", 1, "", ""), "<Status>Disabled</Status></Delete", "<Status>yes</Status></Delete", 1))},
		{"bad existing status", "MalformedXML", doc(v2("a", 1, "", "<ExistingObjectReplication><Status>x</Status></ExistingObjectReplication>"))},
		{"prefix and filter", "MalformedXML", doc(strings.Replace(v2("a", 1, "", ""), "<Filter>", "<Prefix>p</Prefix><Filter>", 1))},
		{"neither prefix nor filter", "MalformedXML", doc(strings.Replace(v1("a", "p"), "<Prefix>p</Prefix>", "", 1))},
		{"two predicates", "MalformedXML", doc(v2("a", 1, "<Prefix>p</Prefix><Tag><Key>k</Key><Value>v</Value></Tag>", ""))},
		{"empty and", "MalformedXML", doc(v2("a", 1, "<And></And>", ""))},
		{"duplicate tag keys", "InvalidTag", doc(v2("a", 1, "<And><Tag><Key>k</Key><Value>1</Value></Tag><Tag><Key>k</Key><Value>2</Value></Tag></And>", ""))},
		{"empty tag key", "InvalidTag", doc(v2("a", 1, "<Tag><Key></Key><Value>v</Value></Tag>", ""))},
		{"long tag value", "InvalidTag", doc(v2("a", 1, "<Tag><Key>k</Key><Value>"+strings.Repeat("v", 257)+"</Value></Tag>", ""))},
		{"tag key aws:", "InvalidTag", doc(v2("a", 1, "<Tag><Key>aws:k</Key><Value>v</Value></Tag>", ""))},
		{"eleven tags", "BadRequest", doc(v2("a", 1, "<And>"+strings.Repeat("<Tag><Key>k</Key><Value>v</Value></Tag>", 11)+"</And>", ""))},
		{"repeated status", "MalformedXML", doc(strings.Replace(v1("a", "p"), "<Status>Enabled</Status>", "<Status>Enabled</Status><Status>Disabled</Status>", 1))},
		{"no destination", "MalformedXML", doc(strings.Replace(v1("a", "p"), "<Destination><Bucket>arn:aws:s3:::dst</Bucket></Destination>", "", 1))},
		{"no destination bucket", "MalformedXML", withBucket("</Bucket><Bucket>arn:aws:s3:::b")},
		{"bucket not an arn", "InvalidArgument", withBucket("dst")},
		{"bucket arn of an object", "InvalidArgument", withBucket("arn:aws:s3:::dst/key")},
		{"jog arn without target", "InvalidArgument", withBucket("arn:jog:replication:::dst")},
		{"glacier", "NotImplemented", dst("<StorageClass>GLACIER</StorageClass>")},
		{"unknown storage class", "InvalidStorageClass", dst("<StorageClass>COLD</StorageClass>")},
		{"account", "NotImplemented", dst("<Account>123456789012</Account>")},
		{"access control translation", "NotImplemented", dst("<AccessControlTranslation><Owner>Destination</Owner></AccessControlTranslation>")},
		{"encryption configuration", "NotImplemented", dst("<EncryptionConfiguration><ReplicaKmsKeyID>k</ReplicaKmsKeyID></EncryptionConfiguration>")},
		{"replication time", "NotImplemented", dst("<ReplicationTime><Status>Enabled</Status><Time><Minutes>15</Minutes></Time></ReplicationTime>")},
		{"metrics", "NotImplemented", dst("<Metrics><Status>Enabled</Status></Metrics>")},
		{"sse-kms objects", "NotImplemented", doc(v2("a", 1, "", "<SourceSelectionCriteria><SseKmsEncryptedObjects><Status>Enabled</Status></SseKmsEncryptedObjects></SourceSelectionCriteria>"))},
		{"replica modifications", "NotImplemented", doc(v2("a", 1, "", "<SourceSelectionCriteria><ReplicaModifications><Status>Enabled</Status></ReplicaModifications></SourceSelectionCriteria>"))},
	} {
		_, err := ParseXML(c.body)
		if got := code(err); got != c.code {
			t.Errorf("%s: got %s (%v), want %s", c.name, got, err, c.code)
		}
	}
}

// code is the S3 code an error gets (as internal/s3api maps them).
func code(err error) string {
	var re *RuleError
	var te *tagging.Error
	switch {
	case err == nil:
		return "accepted"
	case errors.Is(err, ErrMalformed):
		return "MalformedXML"
	case errors.As(err, &re):
		if (re.Code == "NotImplemented") != (re.Status == http.StatusNotImplemented) {
			return "bad status"
		}
		return re.Code
	case errors.As(err, &te):
		return te.Code
	}
	return "unexpected"
}

func TestParseXMLGivesIDs(t *testing.T) {
	c, err := ParseXML(doc(v2("", 1, "", ""), v2("", 2, "", "")))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := c.Rules[0].ID, c.Rules[1].ID; a == "" || b == "" || a == b {
		t.Errorf("IDs %q %q", a, b)
	}
}

// TestParseXMLMinioGo: the documents minio-go's replication.Config
// marshals (mc replicate import, minio-go's SetBucketReplication), with
// their empty Prefix, And, Tag and Status elements, parse as the rules
// they mean.
func TestParseXMLMinioGo(t *testing.T) {
	rule := func(f replication.Filter, dm, existing string) replication.Rule {
		return replication.Rule{ID: "r", Status: "Enabled", Priority: 3, Filter: f,
			DeleteMarkerReplication:   replication.DeleteMarkerReplication{Status: replication.Status(dm)},
			ExistingObjectReplication: replication.ExistingObjectReplication{Status: replication.Status(existing)},
			Destination:               replication.Destination{Bucket: "arn:aws:s3:::dst"}}
	}
	tag := replication.Tag{Key: "dr", Value: "yes"}
	for name, tc := range map[string]struct {
		rule   replication.Rule
		filter string // the Filter parsed, as JSON
	}{
		"every object": {rule(replication.Filter{}, "Enabled", ""), `{"prefix":""}`},
		"prefix":       {rule(replication.Filter{Prefix: "logs/"}, "Disabled", "Enabled"), `{"prefix":"logs/"}`},
		"tag":          {rule(replication.Filter{Tag: tag}, "Disabled", ""), `{"tag":{"k":"dr","v":"yes"}}`},
		"and":          {rule(replication.Filter{And: replication.And{Prefix: "img/", Tags: []replication.Tag{tag}}}, "Disabled", ""), `{"and":{"prefix":"img/","tags":[{"k":"dr","v":"yes"}]}}`},
	} {
		t.Run(name, func(t *testing.T) {
			body, err := xml.Marshal(replication.Config{Role: "arn:aws:iam::1:role/r", Rules: []replication.Rule{tc.rule}})
			if err != nil {
				t.Fatal(err)
			}
			c, err := ParseXML(body)
			if err != nil {
				t.Fatalf("%s: %v", body, err)
			}
			r := c.Rules[0]
			f, _ := json.Marshal(r.Filter)
			if string(f) != tc.filter || r.ID != "r" || *r.Priority != 3 || r.Status != Enabled || r.Destination.Bucket != "arn:aws:s3:::dst" {
				t.Errorf("%s:\nparsed %+v filter %s, want filter %s", body, r, f, tc.filter)
			}
			if r.DeleteMarkerReplication.Status != string(tc.rule.DeleteMarkerReplication.Status) || r.SourceSelectionCriteria != nil ||
				r.ExistingObjectReplication.On() != (tc.rule.ExistingObjectReplication.Status == "Enabled") {
				t.Errorf("%s:\nparsed %+v", body, r)
			}
		})
	}
}
