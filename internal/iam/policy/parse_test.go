package policy

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// Valid documents in every shape the grammar allows ("IAM JSON policy
// language grammar"; "IAM JSON policy elements reference": Version,
// Statement, Principal, Action, Resource, Condition).
func TestParseValid(t *testing.T) {
	cases := []struct {
		name string
		kind Kind
		doc  string
		want Policy
	}{
		{"statement as an object, strings for lists", Identity,
			`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}}`,
			Policy{Version: Version2012, Kind: Identity, Statements: []Statement{{
				Effect: Allow, Action: []string{"s3:GetObject"}, Resource: []string{"arn:aws:s3:::b/*"}}}}},
		{"no version is 2008; Id; arrays; NotAction and NotResource", Identity,
			`{"Id":"p1","Statement":[{"Sid":"S1","Effect":"Deny","NotAction":["s3:Get*","s3:List*"],"NotResource":["arn:aws:s3:::b","arn:aws:s3:::b/*"]}]}`,
			Policy{ID: "p1", Kind: Identity, Statements: []Statement{{Sid: "S1", Effect: Deny,
				NotAction: []string{"s3:Get*", "s3:List*"}, NotResource: []string{"arn:aws:s3:::b", "arn:aws:s3:::b/*"}}}}},
		{"principal *", Resource,
			`{"Version":"2012-10-17","Statement":[{"Sid":"Public read","Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}]}`,
			Policy{Version: Version2012, Kind: Resource, Statements: []Statement{{Sid: "Public read", Effect: Allow,
				Principal: &Principal{Wildcard: true}, Action: []string{"s3:GetObject"}, Resource: []string{"arn:aws:s3:::b/*"}}}}},
		{"principal map of every type; condition values of every JSON type", Resource,
			`{"Version":"2012-10-17","Statement":[{"Effect":"Allow",
			  "Principal":{"AWS":["arn:aws:iam::111122223333:user/alice","444455556666"],"CanonicalUser":"79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be","Service":"logging.s3.amazonaws.com"},
			  "Action":"s3:*","Resource":"*",
			  "Condition":{"NumericLessThanEquals":{"s3:max-keys":10},"Bool":{"aws:SecureTransport":true},"StringLike":{"s3:prefix":["","home/"]}}}]}`,
			Policy{Version: Version2012, Kind: Resource, Statements: []Statement{{Effect: Allow,
				Principal: &Principal{AWS: []string{"arn:aws:iam::111122223333:user/alice", "444455556666"},
					CanonicalUser: []string{"79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be"},
					Service:       []string{"logging.s3.amazonaws.com"}},
				Action: []string{"s3:*"}, Resource: []string{"*"},
				Conditions: []Condition{
					{Operator: "Bool", Key: "aws:SecureTransport", Values: []string{"true"}},
					{Operator: "NumericLessThanEquals", Key: "s3:max-keys", Values: []string{"10"}},
					{Operator: "StringLike", Key: "s3:prefix", Values: []string{"", "home/"}},
				}}}}},
		{"trust policy: principal, no resource", Trust,
			`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"sts:AssumeRole"}]}`,
			Policy{Version: Version2012, Kind: Trust, Statements: []Statement{{Effect: Allow,
				Principal: &Principal{AWS: []string{"arn:aws:iam::111122223333:root"}}, Action: []string{"sts:AssumeRole"}}}}},
		{"NotPrincipal", Resource,
			`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","NotPrincipal":{"AWS":"arn:aws:iam::111122223333:user/admin"},"Action":"s3:*","Resource":"arn:aws:s3:::b/*"}]}`,
			Policy{Version: Version2012, Kind: Resource, Statements: []Statement{{Effect: Deny,
				NotPrincipal: &Principal{AWS: []string{"arn:aws:iam::111122223333:user/admin"}},
				Action:       []string{"s3:*"}, Resource: []string{"arn:aws:s3:::b/*"}}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse([]byte(c.doc), c.kind)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(*p, c.want) {
				t.Fatalf("got %#v\nwant %#v", *p, c.want)
			}
			// The canonical form parses back to the same policy.
			again, err := Parse([]byte(p.String()), c.kind)
			if err != nil {
				t.Fatalf("re-parse of %s: %v", p, err)
			}
			if !reflect.DeepEqual(again, p) {
				t.Fatalf("round trip changed the policy:\n%#v\n%#v", again, p)
			}
		})
	}
}

// Malformed documents and the reason IAM or S3 gives (MalformedPolicyDocument,
// MalformedPolicy). Messages confirmed from IAM/S3 answers where noted in
// ADR 0014; the others follow their style.
func TestParseMalformed(t *testing.T) {
	const s3Obj = `"Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"`
	cases := []struct {
		name string
		kind Kind
		doc  string
		want string
	}{
		{"not JSON", Identity, `{"Version":`, "Syntax errors in policy."},
		{"not an object", Identity, `["x"]`, "Syntax errors in policy."},
		{"trailing data", Identity, `{"Statement":{"Effect":"Allow",` + s3Obj + `}} x`, "Syntax errors in policy."},
		{"bad version", Identity, `{"Version":"2012-10-18","Statement":{"Effect":"Allow",` + s3Obj + `}}`, "The policy must contain a valid version string"},
		{"unknown top-level field", Identity, `{"Version":"2012-10-17","Statment":[]}`, "Unknown field Statment"},
		{"unknown statement field", Identity, `{"Statement":{"Effect":"Allow","Actions":"s3:*","Resource":"*"}}`, "Unknown field Actions"},
		{"no statement", Identity, `{"Version":"2012-10-17"}`, "Missing required field Statement"},
		{"empty statement list", Identity, `{"Version":"2012-10-17","Statement":[]}`, "Missing required field Statement"},
		{"statement not an object", Identity, `{"Statement":"Allow"}`, "Syntax errors in policy."},
		{"missing effect", Identity, `{"Statement":{` + s3Obj + `}}`, "Missing required field Effect"},
		{"bad effect", Identity, `{"Statement":{"Effect":"allow",` + s3Obj + `}}`, "Invalid effect: allow"},
		{"missing action", Identity, `{"Statement":{"Effect":"Allow","Resource":"*"}}`, "Missing required field Action"},
		{"empty action list", Identity, `{"Statement":{"Effect":"Allow","Action":[],"Resource":"*"}}`, "Missing required field Action"},
		{"Action and NotAction", Identity, `{"Statement":{"Effect":"Allow","Action":"s3:*","NotAction":"s3:Get*","Resource":"*"}}`, "Statement can't contain both Action and NotAction"},
		{"action without vendor", Identity, `{"Statement":{"Effect":"Allow","Action":"GetObject","Resource":"*"}}`, "Actions/Conditions must be prefaced by a vendor, e.g., iam, sdb, ec2, etc."},
		{"action with two colons", Identity, `{"Statement":{"Effect":"Allow","Action":"s3:Get:Object","Resource":"*"}}`, "Actions/Condition can contain only one colon."},
		{"action list of numbers", Identity, `{"Statement":{"Effect":"Allow","Action":[1],"Resource":"*"}}`, "Syntax errors in policy."},
		{"missing resource", Identity, `{"Statement":{"Effect":"Allow","Action":"s3:*"}}`, "Missing required field Resource"},
		{"Resource and NotResource", Identity, `{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*","NotResource":"arn:aws:s3:::b"}}`, "Statement can't contain both Resource and NotResource"},
		{"identity: resource not an ARN", Identity, `{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"bucket/*"}}`, `Resource bucket/* must be in ARN format or "*".`},
		{"bucket: resource not an ARN", Resource, `{"Statement":{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"bucket/*"}}`, "Policy has invalid resource"},
		{"resource vendor with a wildcard", Identity, `{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"arn:aws:s*:::b"}}`, "Resource vendor must be fully qualified and cannot contain regexes."},
		{"identity with principal", Identity, `{"Statement":{"Effect":"Allow","Principal":"*",` + s3Obj + `}}`, "Policy document should not specify a principal."},
		{"bucket without principal", Resource, `{"Statement":{"Effect":"Allow",` + s3Obj + `}}`, "Missing required field Principal"},
		{"principal string not *", Resource, `{"Statement":{"Effect":"Allow","Principal":"alice",` + s3Obj + `}}`, "Invalid principal in policy"},
		{"principal of unknown type", Resource, `{"Statement":{"Effect":"Allow","Principal":{"User":"alice"},` + s3Obj + `}}`, "Invalid principal in policy"},
		{"AWS principal not an ARN", Resource, `{"Statement":{"Effect":"Allow","Principal":{"AWS":"alice"},` + s3Obj + `}}`, "Invalid principal in policy"},
		{"wildcard inside a principal ARN", Resource, `{"Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:user/*"},` + s3Obj + `}}`, "Invalid principal in policy"},
		{"Principal and NotPrincipal", Resource, `{"Statement":{"Effect":"Deny","Principal":"*","NotPrincipal":{"AWS":"111122223333"},` + s3Obj + `}}`, "Statement can't contain both Principal and NotPrincipal"},
		{"trust policy with resource", Trust, `{"Statement":{"Effect":"Allow","Principal":{"AWS":"111122223333"},"Action":"sts:AssumeRole","Resource":"*"}}`, "Has prohibited field Resource"},
		{"unknown operator", Identity, `{"Statement":{"Effect":"Allow",` + s3Obj + `,"Condition":{"StringEqualz":{"s3:prefix":"a"}}}}`, "Invalid Condition type : StringEqualz"},
		{"Null with IfExists", Identity, `{"Statement":{"Effect":"Allow",` + s3Obj + `,"Condition":{"NullIfExists":{"s3:prefix":"true"}}}}`, "Invalid Condition type : NullIfExists"},
		{"numeric value not a number", Identity, `{"Statement":{"Effect":"Allow",` + s3Obj + `,"Condition":{"NumericLessThan":{"s3:max-keys":"ten"}}}}`, `Invalid Condition value "ten" for operator NumericLessThan`},
		{"date value not a date", Identity, `{"Statement":{"Effect":"Allow",` + s3Obj + `,"Condition":{"DateLessThan":{"aws:CurrentTime":"tomorrow"}}}}`, `Invalid Condition value "tomorrow" for operator DateLessThan`},
		{"IP value not an address", Identity, `{"Statement":{"Effect":"Allow",` + s3Obj + `,"Condition":{"IpAddress":{"aws:SourceIp":"192.0.2.0/33"}}}}`, `Invalid Condition value "192.0.2.0/33" for operator IpAddress`},
		{"Bool value not a boolean", Identity, `{"Statement":{"Effect":"Allow",` + s3Obj + `,"Condition":{"Bool":{"aws:SecureTransport":"yes"}}}}`, `Invalid Condition value "yes" for operator Bool`},
		{"binary value not base64", Identity, `{"Statement":{"Effect":"Allow",` + s3Obj + `,"Condition":{"BinaryEquals":{"aws:x":"%%%"}}}}`, `Invalid Condition value "%%%" for operator BinaryEquals`},
		{"condition value an object", Identity, `{"Statement":{"Effect":"Allow",` + s3Obj + `,"Condition":{"StringEquals":{"s3:prefix":{"a":"b"}}}}}`, "Syntax errors in policy."},
		{"IAM Sid not alphanumeric", Identity, `{"Statement":{"Sid":"my sid","Effect":"Allow",` + s3Obj + `}}`, "Statement IDs (SID) must be alpha-numeric. Check that your input satisfies the regular expression [0-9A-Za-z]*"},
		{"duplicate Sid", Resource, `{"Statement":[{"Sid":"a","Effect":"Allow","Principal":"*",` + s3Obj + `},{"Sid":"a","Effect":"Allow","Principal":"*",` + s3Obj + `}]}`, "Statement IDs (SID) in a single policy must be unique."},
		{"IAM character set", Identity, `{"Statement":{"Sid":"","Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/` + "\u0101" + `"}}`, "Policy document contains a character outside the allowed set (tab, line feed, carriage return, U+0020 to U+00FF)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.doc), c.kind)
			var pe *Error
			if !errors.As(err, &pe) || !errors.Is(err, ErrMalformed) {
				t.Fatalf("got %v, want *Error %q", err, c.want)
			}
			if pe.Reason != c.want {
				t.Fatalf("reason %q, want %q", pe.Reason, c.want)
			}
		})
	}
}

// "IAM and AWS STS quotas": IAM counts characters other than white space;
// S3 limits a bucket policy to 20 KB.
func TestParseSizeLimits(t *testing.T) {
	stmt := func(pad int) string {
		return `{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/` + strings.Repeat("k", pad) + `"}`
	}
	identity := `{"Version":"2012-10-17","Statement":` + stmt(0) + `}`
	base := Size([]byte(identity))
	// At the role-inline quota exactly: accepted, and white space is free.
	atLimit := `{"Version":"2012-10-17",  ` + "\n\t" + `"Statement":` + stmt(MaxRoleInline-base) + `}`
	if Size([]byte(atLimit)) != MaxRoleInline {
		t.Fatalf("size %d", Size([]byte(atLimit)))
	}
	if _, err := Parse([]byte(atLimit), Identity); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	over := `{"Version":"2012-10-17","Statement":` + stmt(MaxRoleInline-base+1) + `}`
	var se *SizeError
	if _, err := Parse([]byte(over), Identity); !errors.As(err, &se) || se.Limit != MaxRoleInline {
		t.Fatalf("over the limit: %v", err)
	}
	// A managed policy's own quota is the caller's check.
	if err := CheckSize([]byte(atLimit), "PolicySize", MaxManagedPolicy); err == nil || err.Error() != "Cannot exceed quota for PolicySize: 6144" {
		t.Fatalf("CheckSize: %v", err)
	}
	// Bucket policies: bytes, white space included.
	bucket := func(n int) string {
		return `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}}` + strings.Repeat(" ", n)
	}
	doc := bucket(0)
	if _, err := Parse([]byte(bucket(MaxBucketPolicyBytes-len(doc))), Resource); err != nil {
		t.Fatalf("bucket policy at 20 KB: %v", err)
	}
	if _, err := Parse([]byte(bucket(MaxBucketPolicyBytes-len(doc)+1)), Resource); !errors.As(err, &se) {
		t.Fatalf("bucket policy over 20 KB: %v", err)
	}
}
