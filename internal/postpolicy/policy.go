package postpolicy

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"time"
)

// Condition operators.
const (
	OpEq          = "eq"
	OpStartsWith  = "starts-with"
	OpLengthRange = "content-length-range"
)

// Condition is one entry of a policy's conditions.
type Condition struct {
	Op    string // OpEq, OpStartsWith or OpLengthRange
	Field string // lower case, without the "$"; "" for OpLengthRange
	Value string
	// Min and Max bound the file's size, for OpLengthRange.
	Min, Max int64
}

// String is the condition as S3 quotes it in "Policy Condition failed".
func (c Condition) String() string {
	if c.Op == OpLengthRange {
		return `["content-length-range", ` + strconv.FormatInt(c.Min, 10) + ", " + strconv.FormatInt(c.Max, 10) + "]"
	}
	return `["` + c.Op + `", "$` + c.Field + `", ` + strconv.Quote(c.Value) + "]"
}

// Policy is a decoded POST policy document.
type Policy struct {
	Expiration time.Time
	Conditions []Condition
}

var errInvalidJSON = errorf(BadPolicy, "Invalid Policy: Invalid JSON.")

// ParsePolicy decodes the form's policy field: base64 of a JSON document
// with an ISO 8601 "expiration" and a "conditions" array whose entries are
// {"field": "value"} (an exact match), ["eq", "$field", "value"],
// ["starts-with", "$field", "prefix"] or ["content-length-range", min, max].
func ParsePolicy(b64 string) (*Policy, error) {
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, errorf(BadPolicy, "Invalid Policy: Invalid Base64 encoding.")
	}
	var doc struct {
		Expiration *string           `json:"expiration"`
		Conditions []json.RawMessage `json:"conditions"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, errInvalidJSON
	}
	if doc.Expiration == nil {
		return nil, errorf(BadPolicy, "Invalid Policy: Policy missing expiration.")
	}
	exp, err := time.Parse(time.RFC3339Nano, *doc.Expiration)
	if err != nil {
		return nil, errorf(BadPolicy, "Invalid Policy: Invalid 'expiration' value: '%s'", *doc.Expiration)
	}
	if doc.Conditions == nil {
		return nil, errorf(BadPolicy, "Invalid Policy: Policy missing conditions.")
	}
	p := &Policy{Expiration: exp}
	for _, rc := range doc.Conditions {
		cs, err := parseCondition(rc)
		if err != nil {
			return nil, err
		}
		p.Conditions = append(p.Conditions, cs...)
	}
	return p, nil
}

func decode(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errInvalidJSON
	}
	return v, nil
}

func parseCondition(raw json.RawMessage) ([]Condition, error) {
	v, err := decode(raw)
	if err != nil {
		return nil, errInvalidJSON
	}
	bad := errorf(BadPolicy, "Invalid Policy: Invalid Condition: %s", raw)
	switch v := v.(type) {
	case map[string]any: // {"field": "value"}, each pair an exact match
		var out []Condition
		for k, val := range v {
			s, ok := scalar(val)
			if !ok {
				return nil, bad
			}
			out = append(out, Condition{Op: OpEq, Field: strings.ToLower(strings.TrimPrefix(k, "$")), Value: s})
		}
		return out, nil
	case []any:
		if len(v) != 3 {
			return nil, bad
		}
		op, _ := v[0].(string)
		switch op = strings.ToLower(op); op {
		case OpLengthRange:
			lo, ok1 := size(v[1])
			hi, ok2 := size(v[2])
			if !ok1 || !ok2 {
				return nil, bad
			}
			return []Condition{{Op: op, Min: lo, Max: hi}}, nil
		case OpEq, OpStartsWith:
			field, ok1 := v[1].(string)
			value, ok2 := scalar(v[2])
			if !ok1 || !ok2 || !strings.HasPrefix(field, "$") {
				return nil, bad
			}
			return []Condition{{Op: op, Field: strings.ToLower(field[1:]), Value: value}}, nil
		}
	}
	return nil, bad
}

// scalar is a condition's value: a string, or a number as written.
func scalar(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	}
	return "", false
}

// size is a content-length-range bound: a non-negative integer, as a JSON
// number or a string of digits.
func size(v any) (int64, bool) {
	s, ok := scalar(v)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n >= 0
}

// Range is the file size a policy allows: [Min, Max].
type Range struct{ Min, Max int64 }

// exempt are the fields no condition need cover: the signature, the file
// and the policy themselves, SigV2's access key, and x-ignore-* (AWS,
// "Creating a POST policy", Conditions).
func exempt(name string) bool {
	switch name {
	case "x-amz-signature", "file", "policy", "signature", "awsaccesskeyid":
		return true
	}
	return strings.HasPrefix(name, "x-ignore-")
}

// Check checks the form against the policy at now, for an upload to
// bucket: the policy has not expired, every condition holds (the bucket
// condition against the bucket posted to, the key one against the key
// after ${filename}), and every field but the exempt ones is named by some
// condition. It returns the file sizes allowed: the intersection of the
// content-length-range conditions and [0, limit].
func (p *Policy) Check(now time.Time, f *Form, bucket string, limit int64) (Range, error) {
	if !now.Before(p.Expiration) {
		return Range{}, denied("Policy expired.")
	}
	rng := Range{0, limit}
	covered := map[string]bool{}
	for _, c := range p.Conditions {
		if c.Op == OpLengthRange {
			rng.Min, rng.Max = max(rng.Min, c.Min), min(rng.Max, c.Max)
			continue
		}
		covered[c.Field] = true
		var v string
		switch c.Field {
		case "bucket":
			v = bucket
		case "key":
			v = f.Key()
		default:
			v = f.Get(c.Field)
		}
		if !c.holds(v) {
			return Range{}, denied("Policy Condition failed: %s", c)
		}
	}
	var extra []string
	for _, name := range f.Names() {
		if !covered[name] && !exempt(name) {
			extra = append(extra, name)
		}
	}
	if extra != nil {
		return Range{}, denied("Extra input fields: %s", strings.Join(extra, ", "))
	}
	return rng, nil
}

// holds reports whether the field's value v satisfies c. A starts-with on
// Content-Type applies to each of a comma-separated list of types (AWS,
// Conditions: "Content-Type" with starts-with). An empty prefix matches
// anything.
func (c Condition) holds(v string) bool {
	if c.Op == OpEq {
		return v == c.Value
	}
	if c.Field == "content-type" {
		for t := range strings.SplitSeq(v, ",") {
			if !strings.HasPrefix(strings.TrimSpace(t), c.Value) {
				return false
			}
		}
		return true
	}
	return strings.HasPrefix(v, c.Value)
}

// Reader returns body limited to the range: reading past Max fails with
// TooLarge, and ending before Min with TooSmall, so a writer streaming it
// discards what it wrote and nothing is stored.
func (r Range) Reader(body io.Reader) io.Reader { return &rangeReader{r: body, rng: r} }

type rangeReader struct {
	r   io.Reader
	rng Range
	n   int64
}

func (rr *rangeReader) Read(p []byte) (int, error) {
	n, err := rr.r.Read(p)
	rr.n += int64(n)
	if rr.n > rr.rng.Max {
		return n, errorf(TooLarge, "Your proposed upload exceeds the maximum allowed size")
	}
	if err == io.EOF && rr.n < rr.rng.Min {
		return n, errorf(TooSmall, "Your proposed upload is smaller than the minimum allowed size")
	}
	return n, err
}
