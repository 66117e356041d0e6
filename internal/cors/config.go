package cors

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jogstore/jog/internal/s3doc"
)

// Limits S3 sets on a configuration.
const (
	MaxRules    = 100
	MaxIDLength = 255
	MaxDocument = 64 << 10 // bytes of XML
)

// Methods are the only AllowedMethod values S3 accepts (case-sensitive).
var Methods = []string{"GET", "PUT", "HEAD", "POST", "DELETE"}

// Config is a bucket's CORS configuration: what PutBucketCors stores and
// GetBucketCors returns. It is stored as JSON (MarshalJSON is the default
// encoding of these fields) and sent as XML.
type Config struct {
	XMLName xml.Name `xml:"CORSConfiguration" json:"-"`
	Xmlns   string   `xml:"xmlns,attr,omitempty" json:"-"`
	Rules   []Rule   `xml:"CORSRule" json:"rules"`
}

// Rule is one CORSRule. Field order is the XML order S3 documents.
type Rule struct {
	AllowedHeaders []string `xml:"AllowedHeader" json:"allowedHeaders,omitempty"`
	AllowedMethods []string `xml:"AllowedMethod" json:"allowedMethods"`
	AllowedOrigins []string `xml:"AllowedOrigin" json:"allowedOrigins"`
	ExposeHeaders  []string `xml:"ExposeHeader" json:"exposeHeaders,omitempty"`
	ID             string   `xml:"ID,omitempty" json:"id,omitempty"`
	// MaxAgeSeconds is nil when the rule sets none.
	MaxAgeSeconds *int `xml:"MaxAgeSeconds,omitempty" json:"maxAgeSeconds,omitempty"`
}

// ErrMalformed reports a document that is not a CORSConfiguration S3's
// schema accepts: not XML, no rules or more than MaxRules, a rule without
// an origin or a method, a MaxAgeSeconds that is not one non-negative
// integer.
var ErrMalformed = errors.New("malformed CORS configuration")

// RuleError is a well-formed document with a rule S3 refuses (400
// InvalidRequest); Msg is S3's message.
type RuleError = s3doc.RuleError

var ruleErr = s3doc.InvalidRequest

// wireRule is a CORSRule as sent: the single-valued elements as lists, so
// that a repeated one is refused rather than silently taking the last.
type wireRule struct {
	AllowedHeaders []string `xml:"AllowedHeader"`
	AllowedMethods []string `xml:"AllowedMethod"`
	AllowedOrigins []string `xml:"AllowedOrigin"`
	ExposeHeaders  []string `xml:"ExposeHeader"`
	IDs            []string `xml:"ID"`
	MaxAges        []string `xml:"MaxAgeSeconds"`
}

// ParseXML decodes and validates a PutBucketCors body.
func ParseXML(body []byte) (Config, error) {
	var doc struct {
		XMLName xml.Name   `xml:"CORSConfiguration"`
		Rules   []wireRule `xml:"CORSRule"`
	}
	dec := xml.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&doc); err != nil {
		return Config{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	c := Config{Rules: make([]Rule, 0, len(doc.Rules))}
	for _, w := range doc.Rules {
		r := Rule{AllowedHeaders: w.AllowedHeaders, AllowedMethods: w.AllowedMethods,
			AllowedOrigins: w.AllowedOrigins, ExposeHeaders: w.ExposeHeaders}
		if len(w.IDs) > 1 || len(w.MaxAges) > 1 {
			return Config{}, fmt.Errorf("%w: a rule repeats ID or MaxAgeSeconds", ErrMalformed)
		}
		if len(w.IDs) == 1 {
			r.ID = w.IDs[0]
		}
		if len(w.MaxAges) == 1 {
			n, err := strconv.Atoi(strings.TrimSpace(w.MaxAges[0]))
			if err != nil || n < 0 {
				return Config{}, fmt.Errorf("%w: MaxAgeSeconds %q", ErrMalformed, w.MaxAges[0])
			}
			r.MaxAgeSeconds = &n
		}
		c.Rules = append(c.Rules, r)
	}
	return c, c.Validate()
}

// Validate checks c as S3 checks a PutBucketCors document.
func (c Config) Validate() error {
	if len(c.Rules) == 0 || len(c.Rules) > MaxRules {
		return fmt.Errorf("%w: %d rules (1 to %d)", ErrMalformed, len(c.Rules), MaxRules)
	}
	for _, r := range c.Rules {
		if len(r.AllowedOrigins) == 0 || len(r.AllowedMethods) == 0 {
			return fmt.Errorf("%w: a rule needs an AllowedOrigin and an AllowedMethod", ErrMalformed)
		}
		if r.MaxAgeSeconds != nil && *r.MaxAgeSeconds < 0 {
			return fmt.Errorf("%w: negative MaxAgeSeconds", ErrMalformed)
		}
		for _, m := range r.AllowedMethods {
			if methodBit(m) == 0 {
				return ruleErr("Found unsupported HTTP method in CORS config. Unsupported method is %s", m)
			}
		}
		for _, o := range r.AllowedOrigins {
			if strings.Count(o, "*") > 1 {
				return ruleErr(`AllowedOrigin "%s" can not have more than one wildcard.`, o)
			}
		}
		for _, h := range r.AllowedHeaders {
			if strings.Count(h, "*") > 1 {
				return ruleErr(`AllowedHeader "%s" can not have more than one wildcard.`, h)
			}
		}
		if len(r.ID) > MaxIDLength {
			return ruleErr("The ID of a CORS rule can not be longer than %d characters.", MaxIDLength)
		}
	}
	return nil
}

// methodBit is m's bit in a rule's method set; 0 for a method S3 does not
// allow in a rule.
func methodBit(m string) uint8 {
	for i, x := range Methods {
		if m == x {
			return 1 << i
		}
	}
	return 0
}
