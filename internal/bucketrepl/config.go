package bucketrepl

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"

	"github.com/jogstore/jog/internal/s3doc"
	"github.com/jogstore/jog/internal/tagging"
)

// Limits S3 sets on a configuration.
const (
	MaxRules    = 1000
	MaxIDLength = 255
	MaxDocument = 1 << 20 // bytes of XML
)

// Statuses of a rule and of its optional parts.
const (
	Enabled  = "Enabled"
	Disabled = "Disabled"
)

// StorageStandard is the one storage class a Destination may name.
const StorageStandard = "STANDARD"

// Config is a bucket's replication configuration: what PutBucketReplication
// stores and GetBucketReplication returns. It is stored as JSON and sent
// as XML; field order is the XML order S3 documents.
type Config struct {
	XMLName xml.Name `xml:"ReplicationConfiguration" json:"-"`
	Xmlns   string   `xml:"xmlns,attr,omitempty" json:"-"`
	// Role is the IAM role S3 assumes to replicate. JOG replicates with
	// its targets' credentials: the role is kept and shown, never used.
	Role  string `xml:"Role,omitempty" json:"role,omitempty"`
	Rules []Rule `xml:"Rule" json:"rules"`
}

// Rule is one replication rule.
type Rule struct {
	ID string `xml:"ID" json:"id"`
	// Priority orders V2 rules: when several match an object, the
	// highest applies (Match). Nil in a V1 rule.
	Priority *int `xml:"Priority,omitempty" json:"priority,omitempty"`
	// Prefix is the V1 filter (nil when the rule has a Filter instead).
	Prefix                    *string                  `xml:"Prefix,omitempty" json:"prefix,omitempty"`
	Filter                    *Filter                  `xml:"Filter,omitempty" json:"filter,omitempty"`
	Status                    string                   `xml:"Status" json:"status"`
	SourceSelectionCriteria   *SourceSelectionCriteria `xml:"SourceSelectionCriteria,omitempty" json:"ssc,omitempty"`
	ExistingObjectReplication *Switch                  `xml:"ExistingObjectReplication,omitempty" json:"existing,omitempty"`
	Destination               Destination              `xml:"Destination" json:"destination"`
	DeleteMarkerReplication   *Switch                  `xml:"DeleteMarkerReplication,omitempty" json:"deleteMarkers,omitempty"`
}

// V2 reports whether the rule takes S3's second schema (a Filter).
func (r Rule) V2() bool { return r.Filter != nil }

// ReplicatesDeleteMarkers reports whether the rule replicates the delete
// markers of the objects it selects: a V1 rule always does, as in S3; a
// V2 rule when its DeleteMarkerReplication is Enabled.
func (r Rule) ReplicatesDeleteMarkers() bool { return !r.V2() || r.DeleteMarkerReplication.On() }

// Filter selects the objects a V2 rule applies to: at most one of its
// fields is set; none means every object.
type Filter struct {
	Prefix *string `xml:"Prefix,omitempty" json:"prefix,omitempty"`
	Tag    *Tag    `xml:"Tag,omitempty" json:"tag,omitempty"`
	And    *And    `xml:"And,omitempty" json:"and,omitempty"`
}

// And combines a prefix and tags; an object must satisfy all of them.
type And struct {
	Prefix *string     `xml:"Prefix,omitempty" json:"prefix,omitempty"`
	Tags   tagging.Set `xml:"Tag" json:"tags,omitempty"`
}

// Tag is an object tag a filter requires: one an object may carry
// (tagging.Set.Validate).
type Tag = tagging.Tag

// Switch is an element holding a Status alone (DeleteMarkerReplication,
// ExistingObjectReplication, SourceSelectionCriteria's parts).
type Switch struct {
	Status string `xml:"Status" json:"status"`
}

// On reports whether s is present and Enabled.
func (s *Switch) On() bool { return s != nil && s.Status == Enabled }

// SourceSelectionCriteria narrows the objects a rule replicates. JOG
// accepts each part Disabled only (ErrNotImplemented).
type SourceSelectionCriteria struct {
	SseKmsEncryptedObjects *Switch `xml:"SseKmsEncryptedObjects,omitempty" json:"sseKms,omitempty"`
	ReplicaModifications   *Switch `xml:"ReplicaModifications,omitempty" json:"replicaMods,omitempty"`
}

// Destination is where a rule's objects go.
type Destination struct {
	// Bucket is the ARN as sent (arn:aws:s3:::BUCKET or
	// arn:jog:replication::TARGET:BUCKET).
	Bucket       string `xml:"Bucket" json:"bucket"`
	StorageClass string `xml:"StorageClass,omitempty" json:"storageClass,omitempty"`
	// Target and TargetBucket are what Targets.Bind resolved Bucket to:
	// the name of the configured target and the bucket on it. They are
	// stored, never sent.
	Target       string `xml:"-" json:"target"`
	TargetBucket string `xml:"-" json:"targetBucket"`
}

// ErrMalformed reports a document that is not a ReplicationConfiguration
// S3's schema accepts (S3's MalformedXML): not XML, no rules or more than
// MaxRules, a repeated element, a rule without a Status or a Destination
// Bucket, a Filter with two predicates.
var ErrMalformed = errors.New("malformed replication configuration")

// ErrNoConfig reports a bucket without a replication configuration.
var ErrNoConfig = errors.New("no replication configuration")

// ErrNotVersioned refuses a configuration on a bucket whose versioning is
// not Enabled, as S3 does.
var ErrNotVersioned = errors.New("versioning must be Enabled on the bucket to apply a replication configuration")

// ErrVersioningLocked refuses to suspend versioning on a bucket with a
// replication configuration, as S3 does.
var ErrVersioningLocked = errors.New("a replication configuration is present on this bucket, so versioning cannot be suspended")

// RuleError is a well-formed document S3 (or JOG) refuses: Code is the S3
// error code, Status the HTTP status, Msg the message.
type RuleError = s3doc.RuleError

var (
	invalidArgument = s3doc.InvalidArgument
	invalidRequest  = s3doc.InvalidRequest
	notImplemented  = s3doc.NotImplemented // an element JOG cannot honour (package doc)
)

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// ParseXML decodes and validates a PutBucketReplication body. Rules without
// an ID get a random one, as in S3. The destinations are not resolved:
// Targets.Bind does that.
func ParseXML(body []byte) (Config, error) {
	var doc struct {
		XMLName xml.Name   `xml:"ReplicationConfiguration"`
		Roles   []string   `xml:"Role"`
		Rules   []wireRule `xml:"Rule"`
	}
	if err := xml.NewDecoder(bytes.NewReader(body)).Decode(&doc); err != nil {
		return Config{}, malformed("%v", err)
	}
	if len(doc.Roles) > 1 {
		return Config{}, malformed("Role repeated")
	}
	c := Config{Rules: make([]Rule, 0, len(doc.Rules))}
	if len(doc.Roles) == 1 {
		c.Role = doc.Roles[0]
	}
	for _, w := range doc.Rules {
		r, err := w.rule()
		if err != nil {
			return Config{}, err
		}
		c.Rules = append(c.Rules, r)
	}
	for i := range c.Rules {
		if c.Rules[i].ID == "" {
			c.Rules[i].ID = s3doc.NewRuleID()
		}
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}
