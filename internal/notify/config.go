package notify

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Config is a bucket's NotificationConfiguration, as S3's API model names
// its elements (PutBucketNotificationConfiguration); the service stores it
// as JSON with the tags below. JOG carries out the
// queue configurations, whose Queue is the ARN of a target the server is
// configured with; the other destinations (SNS topics, Lambda functions,
// EventBridge) are parsed to be refused (Parse).
type Config struct {
	XMLName xml.Name      `xml:"NotificationConfiguration" json:"-"`
	Xmlns   string        `xml:"xmlns,attr,omitempty" json:"-"`
	Queues  []QueueConfig `xml:"QueueConfiguration" json:"queues"`
	// Only in a request: refused (Parse), never stored.
	Topics      []struct{} `xml:"TopicConfiguration" json:"-"`
	Functions   []struct{} `xml:"CloudFunctionConfiguration" json:"-"`
	EventBridge *struct{}  `xml:"EventBridgeConfiguration" json:"-"`
}

// QueueConfig is one QueueConfiguration: the events of the keys Filter
// admits go to the target named Queue. Elements in the order S3 answers
// them.
type QueueConfig struct {
	ID     string   `xml:"Id" json:"id"`
	Queue  string   `xml:"Queue" json:"queue"`
	Events []string `xml:"Event" json:"events"`
	Filter *Filter  `xml:"Filter,omitempty" json:"filter,omitempty"`
}

// Filter selects keys by prefix and suffix (S3Key's FilterRules).
type Filter struct {
	Key KeyFilter `xml:"S3Key" json:"key"`
}

// KeyFilter holds at most one prefix and one suffix rule.
type KeyFilter struct {
	Rules []FilterRule `xml:"FilterRule" json:"rules"`
}

// FilterRule is a prefix or suffix rule. Name is stored as S3 answers it
// ("Prefix", "Suffix") whatever case the request used.
type FilterRule struct {
	Name  string `xml:"Name" json:"name"`
	Value string `xml:"Value" json:"value"`
}

// ErrMalformed reports a document that is not a NotificationConfiguration
// of S3's schema (S3's MalformedXML).
var ErrMalformed = errors.New("malformed notification configuration")

// ConfigError is a configuration S3 refuses with Code: InvalidArgument
// (400) for what S3 refuses, NotImplemented (501) for what S3 does and JOG
// does not. Name and Value are S3's ArgumentName and ArgumentValue, when
// it names the part refused.
type ConfigError struct {
	Code, Msg   string
	Name, Value string
}

func (e *ConfigError) Error() string { return e.Code + ": " + e.Msg }

// S3Error is what a client is told (s3api.ClientError).
func (e *ConfigError) S3Error() (code string, status int, message string) {
	if e.Code == CodeNotImplemented {
		return e.Code, http.StatusNotImplemented, e.Msg
	}
	return e.Code, http.StatusBadRequest, e.Msg
}

// The error codes of ConfigError.
const (
	CodeInvalidArgument = "InvalidArgument"
	CodeNotImplemented  = "NotImplemented"
)

// MsgUnvalidated is S3's answer to a destination it could not validate:
// for JOG, an ARN that names no target the server is configured with, or a
// destination kind JOG has none of (SNS, Lambda).
const MsgUnvalidated = "Unable to validate the following destination configurations"

// MsgOverlap is S3's answer to two configurations that could both match
// one event (same event type, overlapping prefixes and suffixes).
const MsgOverlap = "Configurations overlap. Configurations on the same bucket cannot share a common event type."

func invalid(msg, name, value string) *ConfigError {
	return &ConfigError{Code: CodeInvalidArgument, Msg: msg, Name: name, Value: value}
}

// maxFilterValue bounds a FilterRule's Value (S3: 1,024 bytes).
const maxFilterValue = 1024

// MaxDocument bounds a PutBucketNotificationConfiguration body.
const MaxDocument = 1 << 20

// Parse reads and validates a NotificationConfiguration. target reports
// whether an ARN names a configured target (Queue.Target); with
// skipTargets (x-amz-skip-destination-validation: true) any well-formed
// queue ARN is accepted and events bound for one that names no target are
// not delivered. Configurations without an Id get one, as S3 does. An
// empty configuration (no QueueConfiguration) removes the bucket's.
func Parse(body []byte, target func(arn string) bool, skipTargets bool) (Config, error) {
	var c Config
	if err := xml.NewDecoder(bytes.NewReader(body)).Decode(&c); err != nil {
		return Config{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	c.Xmlns = ""
	if c.EventBridge != nil {
		return Config{}, &ConfigError{Code: CodeNotImplemented,
			Msg: "EventBridgeConfiguration is not implemented: JOG delivers events to the webhook and NATS targets it is configured with (QueueConfiguration)."}
	}
	if len(c.Topics) > 0 || len(c.Functions) > 0 {
		return Config{}, invalid(MsgUnvalidated, "", "")
	}
	c.Topics, c.Functions = nil, nil
	ids := map[string]bool{}
	for i := range c.Queues {
		q := &c.Queues[i]
		if err := q.validate(target, skipTargets); err != nil {
			return Config{}, err
		}
		if q.ID == "" {
			q.ID = newID()
		}
		if ids[q.ID] {
			return Config{}, invalid("Configuration IDs must be unique.", "Id", q.ID)
		}
		ids[q.ID] = true
	}
	for i := range c.Queues {
		for j := i + 1; j < len(c.Queues); j++ {
			if overlap(c.Queues[i], c.Queues[j]) {
				return Config{}, invalid(MsgOverlap, "", "")
			}
		}
	}
	return c, nil
}

func (q *QueueConfig) validate(target func(string) bool, skipTargets bool) error {
	if q.Queue == "" || len(q.Events) == 0 {
		return ErrMalformed
	}
	if len(q.ID) > 255 {
		return invalid("The ID of a configuration can be at most 255 characters long.", "Id", q.ID)
	}
	for _, e := range q.Events {
		if err := checkEvent(e); err != nil {
			return err
		}
	}
	if !validARN(q.Queue) || (!skipTargets && !target(q.Queue)) {
		return invalid(MsgUnvalidated, q.Queue, "The destination queue is not one of the server's notification targets.")
	}
	if q.Filter == nil {
		return nil
	}
	var prefix, suffix bool
	for i := range q.Filter.Key.Rules {
		r := &q.Filter.Key.Rules[i]
		switch {
		case strings.EqualFold(r.Name, "prefix"):
			if prefix {
				return invalid("Cannot specify more than one prefix rule in a filter.", "FilterRule", r.Name)
			}
			prefix, r.Name = true, "Prefix"
		case strings.EqualFold(r.Name, "suffix"):
			if suffix {
				return invalid("Cannot specify more than one suffix rule in a filter.", "FilterRule", r.Name)
			}
			suffix, r.Name = true, "Suffix"
		default:
			return invalid("filter rule name must be either prefix or suffix", "FilterRule", r.Name)
		}
		if len(r.Value) > maxFilterValue {
			return invalid("The length of filter rule value cannot exceed 1024 bytes in UTF-8 representation", "FilterRule", r.Name)
		}
	}
	return nil
}

// validARN: arn:PARTITION:sqs:REGION:ACCOUNT:NAME, each part but the
// region non-empty (JOG's targets: arn:jog:sqs:<region>:<id>:webhook).
func validARN(arn string) bool {
	p := strings.SplitN(arn, ":", 6)
	return len(p) == 6 && p[0] == "arn" && p[1] != "" && p[2] == "sqs" && p[4] != "" && p[5] != ""
}

// newID is the Id S3 gives a configuration sent without one: a random
// UUID, base64-encoded.
func newID() string {
	var u [16]byte
	_, _ = rand.Read(u[:])
	u[6], u[8] = u[6]&0x0f|0x40, u[8]&0x3f|0x80
	h := hex.EncodeToString(u[:])
	s := h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	return base64.StdEncoding.EncodeToString([]byte(s))
}

// prefixSuffix returns q's filter values ("" for a rule absent).
func (q QueueConfig) prefixSuffix() (prefix, suffix string) {
	if q.Filter == nil {
		return "", ""
	}
	for _, r := range q.Filter.Key.Rules {
		if strings.EqualFold(r.Name, "prefix") {
			prefix = r.Value
		} else {
			suffix = r.Value
		}
	}
	return prefix, suffix
}

// overlap is S3's rule (User Guide, "Configuring event notifications
// using object key name filtering"): two configurations overlap when they
// share an event type and a key could match both filters — one prefix
// begins the other and one suffix ends the other (an absent rule matches
// everything). Overlapping prefixes are fine with suffixes that do not.
func overlap(a, b QueueConfig) bool {
	if !shareEvent(a.Events, b.Events) {
		return false
	}
	pa, sa := a.prefixSuffix()
	pb, sb := b.prefixSuffix()
	prefixes := strings.HasPrefix(pa, pb) || strings.HasPrefix(pb, pa)
	suffixes := strings.HasSuffix(sa, sb) || strings.HasSuffix(sb, sa)
	return prefixes && suffixes
}

// shareEvent reports whether an event name matches a pattern of both
// lists (s3:ObjectCreated:* shares every s3:ObjectCreated: event).
func shareEvent(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if patternsMeet(x, y) {
				return true
			}
		}
	}
	return false
}

func patternsMeet(x, y string) bool {
	if x == y {
		return true
	}
	if strings.HasSuffix(x, ":*") && strings.HasPrefix(y, strings.TrimSuffix(x, "*")) {
		return true
	}
	return strings.HasSuffix(y, ":*") && strings.HasPrefix(x, strings.TrimSuffix(y, "*"))
}
