package lifecycle

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jogstore/jog/internal/s3doc"
)

// Limits S3 sets on a configuration.
const (
	MaxRules    = 1000
	MaxIDLength = 255
	MaxDocument = 1 << 20 // bytes of XML
	// MaxNewerNoncurrent bounds NewerNoncurrentVersions.
	MaxNewerNoncurrent = 100
	maxTagKey          = 128 // Unicode characters
	maxTagValue        = 256
)

// Statuses of a rule.
const (
	Enabled  = "Enabled"
	Disabled = "Disabled"
)

// Config is a bucket's lifecycle configuration: what
// PutBucketLifecycleConfiguration stores and GetBucketLifecycleConfiguration
// returns. It is stored as JSON and sent as XML; field order is the XML
// order S3 documents.
type Config struct {
	XMLName xml.Name `xml:"LifecycleConfiguration" json:"-"`
	Xmlns   string   `xml:"xmlns,attr,omitempty" json:"-"`
	Rules   []Rule   `xml:"Rule" json:"rules"`
}

// Rule is one lifecycle rule.
type Rule struct {
	Expiration *Expiration `xml:"Expiration,omitempty" json:"expiration,omitempty"`
	ID         string      `xml:"ID" json:"id"`
	// Prefix is the legacy top-level filter (nil when the rule has a
	// Filter instead).
	Prefix                         *string                         `xml:"Prefix,omitempty" json:"prefix,omitempty"`
	Filter                         *Filter                         `xml:"Filter,omitempty" json:"filter,omitempty"`
	Status                         string                          `xml:"Status" json:"status"`
	NoncurrentVersionExpiration    *NoncurrentVersionExpiration    `xml:"NoncurrentVersionExpiration,omitempty" json:"noncurrentVersionExpiration,omitempty"`
	AbortIncompleteMultipartUpload *AbortIncompleteMultipartUpload `xml:"AbortIncompleteMultipartUpload,omitempty" json:"abortIncompleteMultipartUpload,omitempty"`
}

// Filter selects the objects a rule applies to: at most one of its fields
// is set; none means every object.
type Filter struct {
	Prefix                *string `xml:"Prefix,omitempty" json:"prefix,omitempty"`
	Tag                   *Tag    `xml:"Tag,omitempty" json:"tag,omitempty"`
	ObjectSizeGreaterThan *int64  `xml:"ObjectSizeGreaterThan,omitempty" json:"sizeGT,omitempty"`
	ObjectSizeLessThan    *int64  `xml:"ObjectSizeLessThan,omitempty" json:"sizeLT,omitempty"`
	And                   *And    `xml:"And,omitempty" json:"and,omitempty"`
}

// And combines predicates; an object must satisfy all of them.
type And struct {
	Prefix                *string `xml:"Prefix,omitempty" json:"prefix,omitempty"`
	Tags                  []Tag   `xml:"Tag" json:"tags,omitempty"`
	ObjectSizeGreaterThan *int64  `xml:"ObjectSizeGreaterThan,omitempty" json:"sizeGT,omitempty"`
	ObjectSizeLessThan    *int64  `xml:"ObjectSizeLessThan,omitempty" json:"sizeLT,omitempty"`
}

// Tag is an object tag a filter requires.
type Tag struct {
	Key   string `xml:"Key" json:"k"`
	Value string `xml:"Value" json:"v"`
}

// Expiration expires current objects: exactly one field is set.
type Expiration struct {
	// Date is midnight UTC of the day objects expire.
	Date                      *time.Time `xml:"Date,omitempty" json:"date,omitempty"`
	Days                      *int       `xml:"Days,omitempty" json:"days,omitempty"`
	ExpiredObjectDeleteMarker *bool      `xml:"ExpiredObjectDeleteMarker,omitempty" json:"eodm,omitempty"`
}

// NoncurrentVersionExpiration removes versions that stopped being current
// NoncurrentDays ago, keeping the NewerNoncurrentVersions newest.
type NoncurrentVersionExpiration struct {
	NoncurrentDays          int  `xml:"NoncurrentDays" json:"days"`
	NewerNoncurrentVersions *int `xml:"NewerNoncurrentVersions,omitempty" json:"newer,omitempty"`
}

// AbortIncompleteMultipartUpload aborts uploads DaysAfterInitiation after
// they were created.
type AbortIncompleteMultipartUpload struct {
	DaysAfterInitiation int `xml:"DaysAfterInitiation" json:"days"`
}

// ErrMalformed reports a document that is not a LifecycleConfiguration S3's
// schema accepts (S3's MalformedXML): not XML, no rules or more than
// MaxRules, a rule without a Status, filter or action element it requires,
// two filters at once, an element that is not a number where one is due.
var ErrMalformed = errors.New("malformed lifecycle configuration")

// ErrNoConfig reports a bucket without a lifecycle configuration.
var ErrNoConfig = errors.New("no lifecycle configuration")

// ErrTransition reports a Transition or NoncurrentVersionTransition: they
// move objects to storage classes JOG does not have.
var ErrTransition = errors.New("lifecycle transitions to other storage classes are not implemented: JOG has one storage tier")

// RuleError is a well-formed document with a rule S3 refuses: Code is S3's
// error code (InvalidArgument or InvalidRequest), Msg its message.
type RuleError = s3doc.RuleError

var (
	invalidArgument = s3doc.InvalidArgument
	invalidRequest  = s3doc.InvalidRequest
)

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// s3StorageClasses are the classes a Transition may name in S3: naming one
// is refused as not implemented, naming anything else is malformed.
var s3StorageClasses = map[string]bool{
	"GLACIER": true, "STANDARD_IA": true, "ONEZONE_IA": true, "INTELLIGENT_TIERING": true,
	"DEEP_ARCHIVE": true, "GLACIER_IR": true,
}

// wireRule is a Rule as sent: every element as a list, so that a repeated
// one is refused rather than silently taking the last, and the elements
// JOG refuses (transitions) are seen.
type wireRule struct {
	IDs            []string     `xml:"ID"`
	Prefixes       []string     `xml:"Prefix"`
	Statuses       []string     `xml:"Status"`
	Filters        []Filter     `xml:"Filter"`
	Expirations    []Expiration `xml:"Expiration"`
	Transitions    []transition `xml:"Transition"`
	NoncurrentTr   []transition `xml:"NoncurrentVersionTransition"`
	NoncurrentExps []struct {
		NoncurrentDays          *int `xml:"NoncurrentDays"`
		NewerNoncurrentVersions *int `xml:"NewerNoncurrentVersions"`
	} `xml:"NoncurrentVersionExpiration"`
	Aborts []struct {
		DaysAfterInitiation *int `xml:"DaysAfterInitiation"`
	} `xml:"AbortIncompleteMultipartUpload"`
}

type transition struct {
	StorageClass string `xml:"StorageClass"`
}

// ParseXML decodes and validates a PutBucketLifecycleConfiguration body.
// Rules without an ID get a random one, as in S3.
func ParseXML(body []byte) (Config, error) {
	var doc struct {
		XMLName xml.Name   `xml:"LifecycleConfiguration"`
		Rules   []wireRule `xml:"Rule"`
	}
	if err := xml.NewDecoder(bytes.NewReader(body)).Decode(&doc); err != nil {
		return Config{}, malformed("%v", err)
	}
	c := Config{Rules: make([]Rule, 0, len(doc.Rules))}
	for _, w := range doc.Rules {
		r, err := w.rule()
		if err != nil {
			return Config{}, err
		}
		c.Rules = append(c.Rules, r)
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	for i := range c.Rules {
		if c.Rules[i].ID == "" {
			c.Rules[i].ID = s3doc.NewRuleID()
		}
	}
	return c, nil
}

// rule checks what only the wire form shows (repeated or refused elements)
// and returns the Rule.
func (w wireRule) rule() (Rule, error) {
	if trs := append(w.Transitions, w.NoncurrentTr...); len(trs) > 0 {
		for _, t := range trs {
			if !s3StorageClasses[strings.TrimSpace(t.StorageClass)] {
				return Rule{}, malformed("Transition to storage class %q", t.StorageClass)
			}
		}
		return Rule{}, ErrTransition
	}
	if len(w.IDs) > 1 || len(w.Prefixes) > 1 || len(w.Statuses) > 1 || len(w.Filters) > 1 ||
		len(w.Expirations) > 1 || len(w.NoncurrentExps) > 1 || len(w.Aborts) > 1 {
		return Rule{}, malformed("a rule repeats an element")
	}
	r := Rule{
		ID:         s3doc.Value(w.IDs),
		Status:     s3doc.Value(w.Statuses),
		Prefix:     s3doc.Ptr(w.Prefixes),
		Filter:     s3doc.Ptr(w.Filters),
		Expiration: s3doc.Ptr(w.Expirations),
	}
	if len(w.NoncurrentExps) == 1 {
		n := w.NoncurrentExps[0]
		if n.NoncurrentDays == nil {
			return Rule{}, malformed("NoncurrentVersionExpiration without NoncurrentDays")
		}
		r.NoncurrentVersionExpiration = &NoncurrentVersionExpiration{NoncurrentDays: *n.NoncurrentDays, NewerNoncurrentVersions: n.NewerNoncurrentVersions}
	}
	if len(w.Aborts) == 1 {
		a := w.Aborts[0]
		if a.DaysAfterInitiation == nil {
			return Rule{}, malformed("AbortIncompleteMultipartUpload without DaysAfterInitiation")
		}
		r.AbortIncompleteMultipartUpload = &AbortIncompleteMultipartUpload{DaysAfterInitiation: *a.DaysAfterInitiation}
	}
	return r, nil
}

// Validate checks c as S3 checks a PutBucketLifecycleConfiguration
// document.
func (c Config) Validate() error {
	if len(c.Rules) == 0 || len(c.Rules) > MaxRules {
		return malformed("%d rules (1 to %d)", len(c.Rules), MaxRules)
	}
	ids := make(map[string]bool, len(c.Rules))
	for _, r := range c.Rules {
		if err := r.validate(); err != nil {
			return err
		}
		if r.ID == "" {
			continue
		}
		if ids[r.ID] {
			return invalidArgument("Rule ID must be unique. Found same ID for more than one rule")
		}
		ids[r.ID] = true
	}
	return nil
}

func (r Rule) validate() error {
	if len(r.ID) > MaxIDLength {
		return invalidArgument("ID length should not exceed allowed limit of %d", MaxIDLength)
	}
	if r.Status != Enabled && r.Status != Disabled {
		return malformed("Status %q", r.Status)
	}
	switch {
	case r.Prefix != nil && r.Filter != nil:
		return malformed("a rule has both Prefix and Filter")
	case r.Prefix == nil && r.Filter == nil:
		return malformed("a rule has neither Prefix nor Filter")
	}
	if r.Filter != nil {
		if err := r.Filter.validate(); err != nil {
			return err
		}
	}
	if r.Expiration == nil && r.NoncurrentVersionExpiration == nil && r.AbortIncompleteMultipartUpload == nil {
		return invalidRequest("At least one action needs to be specified in a rule")
	}
	if e := r.Expiration; e != nil {
		if err := e.validate(); err != nil {
			return err
		}
		if e.ExpiredObjectDeleteMarker != nil && r.Filter.hasTagsOrSizes(false) {
			return invalidRequest("ExpiredObjectDeleteMarker cannot be specified with tags.")
		}
	}
	if n := r.NoncurrentVersionExpiration; n != nil {
		if n.NoncurrentDays <= 0 {
			return invalidArgument("'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer")
		}
		if v := n.NewerNoncurrentVersions; v != nil && (*v <= 0 || *v > MaxNewerNoncurrent) {
			return invalidArgument("'NewerNoncurrentVersions' for NoncurrentVersionExpiration action must be a positive integer up to %d", MaxNewerNoncurrent)
		}
	}
	if a := r.AbortIncompleteMultipartUpload; a != nil {
		if a.DaysAfterInitiation <= 0 {
			return invalidArgument("'DaysAfterInitiation' for AbortIncompleteMultipartUpload action must be a positive integer")
		}
		if r.Filter.hasTagsOrSizes(true) {
			return invalidRequest("AbortIncompleteMultipartUpload cannot be specified with Tags.")
		}
	}
	return nil
}

func (e Expiration) validate() error {
	n := 0
	if e.Date != nil {
		n++
		if d := e.Date.UTC(); !d.Equal(d.Truncate(24 * time.Hour)) {
			return invalidArgument("'Date' must be at midnight GMT")
		}
	}
	if e.Days != nil {
		n++
		if *e.Days <= 0 {
			return invalidArgument("'Days' for Expiration action must be a positive integer")
		}
	}
	if e.ExpiredObjectDeleteMarker != nil {
		n++
		if n > 1 {
			return invalidRequest("ExpiredObjectDeleteMarker cannot be specified with Days or Date in a Lifecycle Expiration Policy.")
		}
	}
	switch n {
	case 0:
		return malformed("an empty Expiration")
	case 1:
		return nil
	}
	return malformed("Expiration has both Days and Date")
}

func (f Filter) validate() error {
	n := 0
	for _, set := range []bool{f.Prefix != nil, f.Tag != nil, f.ObjectSizeGreaterThan != nil, f.ObjectSizeLessThan != nil, f.And != nil} {
		if set {
			n++
		}
	}
	if n > 1 {
		return malformed("a Filter holds more than one predicate outside And")
	}
	if f.Tag != nil {
		if err := f.Tag.validate(); err != nil {
			return err
		}
	}
	if err := validateSizes(f.ObjectSizeGreaterThan, f.ObjectSizeLessThan); err != nil {
		return err
	}
	if a := f.And; a != nil {
		if a.Prefix == nil && len(a.Tags) == 0 && a.ObjectSizeGreaterThan == nil && a.ObjectSizeLessThan == nil {
			return malformed("an empty And")
		}
		seen := make(map[string]bool, len(a.Tags))
		for _, t := range a.Tags {
			if err := t.validate(); err != nil {
				return err
			}
			if seen[t.Key] {
				return invalidRequest("Duplicate Tag Keys are not allowed.")
			}
			seen[t.Key] = true
		}
		if err := validateSizes(a.ObjectSizeGreaterThan, a.ObjectSizeLessThan); err != nil {
			return err
		}
	}
	return nil
}

func validateSizes(gt, lt *int64) error {
	if (gt != nil && *gt < 0) || (lt != nil && *lt <= 0) {
		return invalidArgument("'ObjectSizeGreaterThan' must be a non-negative integer and 'ObjectSizeLessThan' a positive one")
	}
	if gt != nil && lt != nil && *gt >= *lt {
		return invalidArgument("'ObjectSizeGreaterThan' must be less than 'ObjectSizeLessThan'")
	}
	return nil
}

func (t Tag) validate() error {
	if n := utf8.RuneCountInString(t.Key); n == 0 || n > maxTagKey {
		return invalidArgument("The TagKey you have provided is invalid")
	}
	if utf8.RuneCountInString(t.Value) > maxTagValue {
		return invalidArgument("The TagValue you have provided is invalid")
	}
	return nil
}

// hasTagsOrSizes reports whether f filters on tags (or, with sizes, on
// object sizes too). f may be nil.
func (f *Filter) hasTagsOrSizes(sizes bool) bool {
	if f == nil {
		return false
	}
	if f.Tag != nil || (f.And != nil && len(f.And.Tags) > 0) {
		return true
	}
	if !sizes {
		return false
	}
	return f.ObjectSizeGreaterThan != nil || f.ObjectSizeLessThan != nil ||
		(f.And != nil && (f.And.ObjectSizeGreaterThan != nil || f.And.ObjectSizeLessThan != nil))
}
