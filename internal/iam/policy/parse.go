package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Kind is where a policy is attached, which decides its required and
// prohibited elements.
type Kind int

const (
	// Identity policies: a user's, group's or role's inline or managed
	// policy, a permissions boundary, a session policy. No Principal.
	Identity Kind = iota
	// Resource policies: a bucket policy. Principal required.
	Resource
	// Trust policies: a role's AssumeRolePolicyDocument. Principal
	// required, Resource prohibited.
	Trust
)

func (k Kind) String() string {
	switch k {
	case Identity:
		return "identity"
	case Resource:
		return "resource"
	case Trust:
		return "trust"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// The policy language versions. A policy without Version is 2008-10-17,
// in which policy variables are plain text.
const (
	Version2012 = "2012-10-17"
	Version2008 = "2008-10-17"
)

// Effects.
const (
	Allow = "Allow"
	Deny  = "Deny"
)

// Policy is a parsed, validated policy document.
type Policy struct {
	Version    string // "" (meaning 2008-10-17), Version2008 or Version2012
	ID         string
	Statements []Statement
	Kind       Kind
}

// Statement is one element of Statement. Of each pair (Action/NotAction,
// Resource/NotResource, Principal/NotPrincipal) at most one is set; a nil
// list or principal is an absent element.
type Statement struct {
	Sid          string
	Effect       string
	Principal    *Principal
	NotPrincipal *Principal
	Action       []string
	NotAction    []string
	Resource     []string
	NotResource  []string
	Conditions   []Condition // sorted by operator, then key
}

// Principal is a Principal or NotPrincipal element: "*" (Wildcard) or a map
// of principal types to lists of identifiers.
type Principal struct {
	Wildcard      bool
	AWS           []string
	CanonicalUser []string
	Service       []string
	Federated     []string
}

// Condition is one key of one operator of a Condition element:
// {"Operator": {"Key": Values}}. Values keep their JSON text (numbers and
// booleans as written).
type Condition struct {
	Operator string
	Key      string
	Values   []string
}

// Error is a policy that IAM or S3 would refuse as malformed
// (MalformedPolicyDocument, MalformedPolicy); Reason is the message.
type Error struct{ Reason string }

func (e *Error) Error() string { return e.Reason }

// ErrMalformed matches every *Error with errors.Is.
var ErrMalformed = errors.New("malformed policy")

// Is reports whether target is ErrMalformed.
func (e *Error) Is(target error) bool { return target == ErrMalformed }

func malformed(format string, args ...any) error {
	return &Error{Reason: fmt.Sprintf(format, args...)}
}

var errSyntax = &Error{Reason: "Syntax errors in policy."}

// Parse parses and validates a policy document of the given kind, refusing
// it with an *Error (or a *SizeError when it is larger than any policy of
// its kind may be) as IAM or S3 would.
func Parse(doc []byte, kind Kind) (*Policy, error) {
	if err := checkDocument(doc, kind); err != nil {
		return nil, err
	}
	top, err := object(doc)
	if err != nil {
		return nil, err
	}
	p := &Policy{Kind: kind}
	for name := range top {
		switch name {
		case "Version", "Id", "Statement":
		default:
			return nil, malformed("Unknown field %s", name)
		}
	}
	if raw, ok := top["Version"]; ok {
		if err := json.Unmarshal(raw, &p.Version); err != nil || (p.Version != Version2012 && p.Version != Version2008) {
			return nil, malformed("The policy must contain a valid version string")
		}
	}
	if raw, ok := top["Id"]; ok {
		if err := json.Unmarshal(raw, &p.ID); err != nil {
			return nil, errSyntax
		}
	}
	raw, ok := top["Statement"]
	if !ok {
		return nil, malformed("Missing required field Statement")
	}
	var raws []json.RawMessage
	if t := firstByte(raw); t == '{' {
		raws = []json.RawMessage{raw}
	} else if t == '[' {
		if err := json.Unmarshal(raw, &raws); err != nil {
			return nil, errSyntax
		}
	} else {
		return nil, errSyntax
	}
	if len(raws) == 0 {
		return nil, malformed("Missing required field Statement")
	}
	sids := map[string]bool{}
	for _, r := range raws {
		st, err := parseStatement(r, kind)
		if err != nil {
			return nil, err
		}
		if st.Sid != "" {
			if sids[st.Sid] {
				return nil, malformed("Statement IDs (SID) in a single policy must be unique.")
			}
			sids[st.Sid] = true
		}
		p.Statements = append(p.Statements, st)
	}
	// Compiling checks every condition value and pattern once, so a
	// stored policy always compiles.
	if _, err := Compile(p); err != nil {
		return nil, err
	}
	return p, nil
}

// object decodes a JSON object into its members, keeping numbers as text.
func object(raw []byte) (map[string]json.RawMessage, error) {
	if firstByte(raw) != '{' {
		return nil, errSyntax
	}
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&m); err != nil {
		return nil, errSyntax
	}
	if len(bytes.TrimSpace(raw[dec.InputOffset():])) > 0 {
		return nil, errSyntax // data after the object
	}
	return m, nil
}

func firstByte(raw []byte) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

var statementFields = map[string]bool{
	"Sid": true, "Effect": true, "Principal": true, "NotPrincipal": true,
	"Action": true, "NotAction": true, "Resource": true, "NotResource": true,
	"Condition": true,
}

func parseStatement(raw json.RawMessage, kind Kind) (Statement, error) {
	var st Statement
	m, err := object(raw)
	if err != nil {
		return st, err
	}
	for name := range m {
		if !statementFields[name] {
			return st, malformed("Unknown field %s", name)
		}
	}
	if r, ok := m["Sid"]; ok {
		if err := json.Unmarshal(r, &st.Sid); err != nil {
			return st, errSyntax
		}
	}
	if r, ok := m["Effect"]; ok {
		if err := json.Unmarshal(r, &st.Effect); err != nil {
			return st, errSyntax
		}
	}
	if st.Principal, err = principalField(m, "Principal"); err != nil {
		return st, err
	}
	if st.NotPrincipal, err = principalField(m, "NotPrincipal"); err != nil {
		return st, err
	}
	for _, f := range []struct {
		name string
		dst  *[]string
	}{
		{"Action", &st.Action}, {"NotAction", &st.NotAction},
		{"Resource", &st.Resource}, {"NotResource", &st.NotResource},
	} {
		if r, ok := m[f.name]; ok {
			if *f.dst, err = stringList(r); err != nil {
				return st, err
			}
			if len(*f.dst) == 0 {
				return st, malformed("Missing required field %s", f.name)
			}
		}
	}
	if r, ok := m["Condition"]; ok {
		if st.Conditions, err = parseConditions(r); err != nil {
			return st, err
		}
	}
	return st, validateStatement(&st, kind)
}

// stringList decodes a string or an array of strings.
func stringList(raw json.RawMessage) ([]string, error) {
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil || list == nil {
		return nil, errSyntax
	}
	return list, nil
}

func principalField(m map[string]json.RawMessage, name string) (*Principal, error) {
	raw, ok := m[name]
	if !ok {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s != "*" {
			return nil, malformed("Invalid principal in policy")
		}
		return &Principal{Wildcard: true}, nil
	}
	members, err := object(raw)
	if err != nil {
		return nil, malformed("Invalid principal in policy")
	}
	if len(members) == 0 {
		return nil, malformed("Invalid principal in policy")
	}
	p := &Principal{}
	for typ, r := range members {
		list, err := stringList(r)
		if err != nil || len(list) == 0 {
			return nil, malformed("Invalid principal in policy")
		}
		switch typ {
		case "AWS":
			p.AWS = list
		case "CanonicalUser":
			p.CanonicalUser = list
		case "Service":
			p.Service = list
		case "Federated":
			p.Federated = list
		default:
			return nil, malformed("Invalid principal in policy")
		}
	}
	return p, nil
}

func parseConditions(raw json.RawMessage) ([]Condition, error) {
	ops, err := object(raw)
	if err != nil {
		return nil, errSyntax
	}
	var out []Condition
	for op, r := range ops {
		keys, err := object(r)
		if err != nil {
			return nil, errSyntax
		}
		for key, v := range keys {
			vals, err := conditionValues(v)
			if err != nil {
				return nil, err
			}
			out = append(out, Condition{Operator: op, Key: key, Values: vals})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Operator != out[j].Operator {
			return out[i].Operator < out[j].Operator
		}
		return out[i].Key < out[j].Key
	})
	return out, nil
}

// conditionValues decodes a condition's value: a string, number or boolean,
// or an array of them.
func conditionValues(raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, errSyntax
	}
	scalar := func(v any) (string, bool) {
		switch x := v.(type) {
		case string:
			return x, true
		case json.Number:
			return x.String(), true
		case bool:
			if x {
				return "true", true
			}
			return "false", true
		}
		return "", false
	}
	if s, ok := scalar(v); ok {
		return []string{s}, nil
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, errSyntax
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, ok := scalar(e)
		if !ok {
			return nil, errSyntax
		}
		out = append(out, s)
	}
	return out, nil
}

// MarshalJSON writes the policy in its canonical form: every list as an
// array, Statement as an array, condition values as strings. Parsing the
// result gives back an equal Policy.
func (p *Policy) MarshalJSON() ([]byte, error) {
	type principal struct {
		AWS           []string `json:",omitempty"`
		CanonicalUser []string `json:",omitempty"`
		Federated     []string `json:",omitempty"`
		Service       []string `json:",omitempty"`
	}
	conv := func(pr *Principal) any {
		if pr == nil {
			return nil
		}
		if pr.Wildcard {
			return "*"
		}
		return principal{pr.AWS, pr.CanonicalUser, pr.Federated, pr.Service}
	}
	type statement struct {
		Sid          string                         `json:",omitempty"`
		Effect       string                         `json:",omitempty"`
		Principal    any                            `json:",omitempty"`
		NotPrincipal any                            `json:",omitempty"`
		Action       []string                       `json:",omitempty"`
		NotAction    []string                       `json:",omitempty"`
		Resource     []string                       `json:",omitempty"`
		NotResource  []string                       `json:",omitempty"`
		Condition    map[string]map[string][]string `json:",omitempty"`
	}
	type document struct {
		Version   string `json:",omitempty"`
		Id        string `json:",omitempty"`
		Statement []statement
	}
	d := document{Version: p.Version, Id: p.ID}
	for _, st := range p.Statements {
		s := statement{
			Sid: st.Sid, Effect: st.Effect,
			Principal: conv(st.Principal), NotPrincipal: conv(st.NotPrincipal),
			Action: st.Action, NotAction: st.NotAction,
			Resource: st.Resource, NotResource: st.NotResource,
		}
		for _, c := range st.Conditions {
			if s.Condition == nil {
				s.Condition = map[string]map[string][]string{}
			}
			if s.Condition[c.Operator] == nil {
				s.Condition[c.Operator] = map[string][]string{}
			}
			s.Condition[c.Operator][c.Key] = c.Values
		}
		d.Statement = append(d.Statement, s)
	}
	return json.Marshal(d)
}

// String is the policy's canonical JSON.
func (p *Policy) String() string {
	b, err := p.MarshalJSON()
	if err != nil {
		return strings.TrimSpace(err.Error())
	}
	return string(b)
}
