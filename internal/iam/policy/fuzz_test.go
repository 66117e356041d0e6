package policy

import (
	"reflect"
	"testing"
	"time"
)

var fuzzSeeds = []string{
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}}`,
	`{"Version":"2012-10-17","Statement":[{"Sid":"p","Effect":"Allow","Principal":"*","Action":["s3:Get*"],"Resource":["arn:aws:s3:::b/${aws:username, 'x''y'}/*"],
	  "Condition":{"ForAnyValue:StringLike":{"s3:prefix":["a*","${*}"]},"IpAddressIfExists":{"aws:SourceIp":["10.0.0.0/8","::1"]}}}]}`,
	`{"Statement":[{"Effect":"Deny","NotPrincipal":{"AWS":["111122223333","arn:aws:iam::111122223333:user/a"]},"NotAction":"s3:*","NotResource":"*",
	  "Condition":{"Null":{"aws:TokenIssueTime":true},"DateLessThan":{"aws:CurrentTime":"2030-01-01"},"NumericEquals":{"s3:max-keys":[1,2.5]}}}]}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"sts:AssumeRole",
	  "Condition":{"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::*:role/?x"},"Bool":{"aws:MultiFactorAuthPresent":"${aws:x}"},"BinaryEquals":{"k:b":"AA=="}}}}`,
	`{"Version":"2008-10-17","Id":"x","Statement":{"Effect":"Allow","Action":"*","Resource":"*"}}`,
}

// FuzzParse checks that the parser never panics, that an accepted policy
// marshals to a document that parses back to the same policy, and that
// an accepted policy evaluates without panicking.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	reqs := []*Request{
		anonymous("s3:GetObject", "arn:aws:s3:::b/k", "aws:SourceIp", "10.1.2.3", "s3:prefix", "a/"),
		user("a", "s3:PutObject", "arn:aws:s3:::b/a/k", "aws:TokenIssueTime", "2020-01-01T00:00:00Z", "s3:max-keys", "2.5"),
		{Type: AssumedRole, Account: "111122223333", ARN: "arn:aws:sts::111122223333:assumed-role/r/s",
			ParentARN: "arn:aws:iam::111122223333:role/r", Action: "sts:AssumeRole", Resource: "arn:aws:iam::111122223333:role/r",
			Time: time.Unix(1700000000, 0), Context: Context{"aws:principalarn": {"arn:aws:iam::1:role/ax"}, "k:b": {"AA=="}}},
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		for _, kind := range []Kind{Identity, Resource, Trust} {
			p, err := Parse(doc, kind)
			if err != nil {
				continue
			}
			out, err := p.MarshalJSON()
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			again, err := Parse(out, kind)
			if err != nil {
				// The canonical form may grow past a size quota that
				// the original met (strings become arrays).
				if _, big := err.(*SizeError); big {
					continue
				}
				t.Fatalf("re-parse of %s (from %q): %v", out, doc, err)
			}
			if !reflect.DeepEqual(p, again) {
				t.Fatalf("round trip changed %q:\n%#v\n%#v", doc, p, again)
			}
			c, err := Compile(p)
			if err != nil {
				t.Fatalf("compile of a parsed policy: %v", err)
			}
			for _, r := range reqs {
				Evaluate(r, &Set{Identity: []*Compiled{c}, Resource: c, Boundary: c, Session: c})
				c.Allows(r)
			}
		}
	})
}
