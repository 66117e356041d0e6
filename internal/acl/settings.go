package acl

import (
	"bytes"
	"encoding/xml"
	"slices"
	"strings"
)

// Object Ownership settings.
const (
	BucketOwnerEnforced  = "BucketOwnerEnforced"
	BucketOwnerPreferred = "BucketOwnerPreferred"
	ObjectWriter         = "ObjectWriter"
)

// Ownerships are the Object Ownership settings, S3's default first.
var Ownerships = []string{BucketOwnerEnforced, BucketOwnerPreferred, ObjectWriter}

// ValidOwnership reports whether s names an Object Ownership setting.
func ValidOwnership(s string) bool { return slices.Contains(Ownerships, s) }

// ParseOwnershipXML reads a PutBucketOwnershipControls body: exactly one
// rule naming a setting; ok false for anything else (S3's MalformedXML).
func ParseOwnershipXML(doc []byte) (setting string, ok bool) {
	var c struct {
		XMLName xml.Name `xml:"OwnershipControls"`
		Rules   []struct {
			ObjectOwnership string `xml:"ObjectOwnership"`
		} `xml:"Rule"`
	}
	if err := xml.NewDecoder(bytes.NewReader(doc)).Decode(&c); err != nil || len(c.Rules) != 1 {
		return "", false
	}
	s := c.Rules[0].ObjectOwnership
	return s, ValidOwnership(s)
}

// OwnershipXML is GetBucketOwnershipControls' answer.
func OwnershipXML(setting string) []byte {
	return []byte(xml.Header + `<OwnershipControls xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Rule><ObjectOwnership>` +
		setting + `</ObjectOwnership></Rule></OwnershipControls>`)
}

// PublicAccessBlock is a bucket's PublicAccessBlockConfiguration.
type PublicAccessBlock struct {
	BlockPublicAcls       bool `xml:"BlockPublicAcls" json:"blockPublicAcls,omitempty"`
	IgnorePublicAcls      bool `xml:"IgnorePublicAcls" json:"ignorePublicAcls,omitempty"`
	BlockPublicPolicy     bool `xml:"BlockPublicPolicy" json:"blockPublicPolicy,omitempty"`
	RestrictPublicBuckets bool `xml:"RestrictPublicBuckets" json:"restrictPublicBuckets,omitempty"`
}

// ParsePublicAccessBlockXML reads a PutPublicAccessBlock body; ok false
// when it is not a PublicAccessBlockConfiguration (MalformedXML). Absent
// elements are false, as in S3.
func ParsePublicAccessBlockXML(doc []byte) (PublicAccessBlock, bool) {
	var c struct {
		XMLName xml.Name `xml:"PublicAccessBlockConfiguration"`
		Fields  []struct {
			XMLName xml.Name
			Value   string `xml:",chardata"`
		} `xml:",any"`
	}
	var p PublicAccessBlock
	if err := xml.NewDecoder(bytes.NewReader(doc)).Decode(&c); err != nil {
		return p, false
	}
	for _, f := range c.Fields {
		var v bool
		switch strings.TrimSpace(f.Value) {
		case "true", "TRUE", "True":
			v = true
		case "false", "FALSE", "False":
		default:
			return p, false
		}
		switch f.XMLName.Local {
		case "BlockPublicAcls":
			p.BlockPublicAcls = v
		case "IgnorePublicAcls":
			p.IgnorePublicAcls = v
		case "BlockPublicPolicy":
			p.BlockPublicPolicy = v
		case "RestrictPublicBuckets":
			p.RestrictPublicBuckets = v
		default:
			return p, false
		}
	}
	return p, true
}

// XML is GetPublicAccessBlock's answer.
func (p PublicAccessBlock) XML() []byte {
	type doc struct {
		XMLName xml.Name `xml:"PublicAccessBlockConfiguration"`
		Xmlns   string   `xml:"xmlns,attr"`
		PublicAccessBlock
	}
	b, _ := xml.Marshal(doc{Xmlns: "http://s3.amazonaws.com/doc/2006-03-01/", PublicAccessBlock: p})
	return append([]byte(xml.Header), b...)
}
