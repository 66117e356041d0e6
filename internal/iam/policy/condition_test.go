package policy

import (
	"testing"
	"time"
)

// condCase evaluates one identity statement allowing s3:GetObject on
// everything under the given Condition, for a request with ctx.
type condCase struct {
	name string
	cond string              // the Condition element's JSON
	ctx  map[string][]string // request keys (any case)
	want bool
}

func runCondCases(t *testing.T, version string, cases []condCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := ""
			if version != "" {
				v = `"Version":"` + version + `",`
			}
			doc := `{` + v + `"Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*","Condition":` + c.cond + `}}`
			p, err := ParseCompiled([]byte(doc), Identity)
			if err != nil {
				t.Fatalf("%s: %v", doc, err)
			}
			r := &Request{Type: User, Account: "111122223333", ARN: "arn:aws:iam::111122223333:user/alice",
				Action: "s3:GetObject", Resource: "arn:aws:s3:::b/k", Context: Context{}}
			for k, vs := range c.ctx {
				r.Context.Set(k, vs...)
			}
			if got := p.Allows(r); got != c.want {
				t.Fatalf("condition %s with %v: got %v, want %v", c.cond, c.ctx, got, c.want)
			}
		})
	}
}

// "IAM JSON policy elements: Condition operators": string, numeric, date,
// Boolean, binary, IP address, ARN, …IfExists and Null, with the rule for
// keys the request lacks ("If the key … is not present in the request
// context, the values do not match and the condition is false. If the
// policy condition requires that the key is not matched, such as
// StringNotLike or ArnNotLike, … the condition is true").
func TestConditionOperators(t *testing.T) {
	tag := map[string][]string{"aws:PrincipalTag/job-category": {"iamuser-admin"}}
	runCondCases(t, Version2012, []condCase{
		// String condition operators.
		{"StringEquals matches", `{"StringEquals":{"aws:PrincipalTag/job-category":"iamuser-admin"}}`, tag, true},
		{"StringEquals is case-sensitive", `{"StringEquals":{"aws:PrincipalTag/job-category":"IAMUSER-ADMIN"}}`, tag, false},
		{"condition keys are case-insensitive", `{"StringEquals":{"AWS:PRINCIPALTAG/JOB-CATEGORY":"iamuser-admin"}}`, tag, true},
		{"StringEquals: missing key is false", `{"StringEquals":{"aws:PrincipalTag/job-category":"iamuser-admin"}}`, nil, false},
		{"StringNotEquals: missing key is true", `{"StringNotEquals":{"aws:PrincipalTag/job-category":"iamuser-admin"}}`, nil, true},
		{"StringNotEquals on the value", `{"StringNotEquals":{"aws:PrincipalTag/job-category":"iamuser-admin"}}`, tag, false},
		{"StringEquals: values are ORed", `{"StringEquals":{"aws:PrincipalTag/job-category":["a","iamuser-admin"]}}`, tag, true},
		{"StringEqualsIgnoreCase", `{"StringEqualsIgnoreCase":{"aws:PrincipalTag/job-category":"IAMUser-Admin"}}`, tag, true},
		{"StringNotEqualsIgnoreCase", `{"StringNotEqualsIgnoreCase":{"aws:PrincipalTag/job-category":"IAMUser-Admin"}}`, tag, false},
		{"StringEquals has no wildcards", `{"StringEquals":{"aws:PrincipalTag/job-category":"iamuser-*"}}`, tag, false},
		{"StringLike *", `{"StringLike":{"aws:PrincipalTag/job-category":"iamuser-*"}}`, tag, true},
		{"StringLike ?", `{"StringLike":{"aws:PrincipalTag/job-category":"iamuser-?dmin"}}`, tag, true},
		{"StringLike is case-sensitive", `{"StringLike":{"aws:PrincipalTag/job-category":"IAMUSER-*"}}`, tag, false},
		{"StringNotLike", `{"StringNotLike":{"aws:PrincipalTag/job-category":"iamuser-*"}}`, tag, false},
		{"StringNotLike: missing key is true", `{"StringNotLike":{"aws:PrincipalTag/job-category":"iamuser-*"}}`, nil, true},
		// Numeric condition operators (the s3:max-keys example).
		{"NumericLessThanEquals 10, asked 10", `{"NumericLessThanEquals":{"s3:max-keys":"10"}}`, map[string][]string{"s3:max-keys": {"10"}}, true},
		{"NumericLessThanEquals 10, asked 11", `{"NumericLessThanEquals":{"s3:max-keys":"10"}}`, map[string][]string{"s3:max-keys": {"11"}}, false},
		{"NumericLessThan", `{"NumericLessThan":{"s3:max-keys":10}}`, map[string][]string{"s3:max-keys": {"9.5"}}, true},
		{"NumericGreaterThan", `{"NumericGreaterThan":{"aws:MultiFactorAuthAge":"3600"}}`, map[string][]string{"aws:MultiFactorAuthAge": {"3601"}}, true},
		{"NumericGreaterThanEquals", `{"NumericGreaterThanEquals":{"aws:MultiFactorAuthAge":"3600"}}`, map[string][]string{"aws:MultiFactorAuthAge": {"3600"}}, true},
		{"NumericEquals", `{"NumericEquals":{"s3:max-keys":"10"}}`, map[string][]string{"s3:max-keys": {"10.0"}}, true},
		{"NumericNotEquals", `{"NumericNotEquals":{"s3:max-keys":"10"}}`, map[string][]string{"s3:max-keys": {"10"}}, false},
		{"NumericNotEquals: missing key is true", `{"NumericNotEquals":{"s3:max-keys":"10"}}`, nil, true},
		{"Numeric: request value not a number", `{"NumericLessThan":{"s3:max-keys":"10"}}`, map[string][]string{"s3:max-keys": {"many"}}, false},
		// Date condition operators.
		{"DateGreaterThan", `{"DateGreaterThan":{"aws:TokenIssueTime":"2020-01-01T00:00:01Z"}}`, map[string][]string{"aws:TokenIssueTime": {"2020-06-30T12:00:00Z"}}, true},
		{"DateLessThan", `{"DateLessThan":{"aws:TokenIssueTime":"2020-01-01T00:00:01Z"}}`, map[string][]string{"aws:TokenIssueTime": {"2020-06-30T12:00:00Z"}}, false},
		{"DateEquals across zones", `{"DateEquals":{"aws:TokenIssueTime":"2020-06-30T12:00:00Z"}}`, map[string][]string{"aws:TokenIssueTime": {"2020-06-30T14:00:00+02:00"}}, true},
		{"Date: epoch seconds", `{"DateLessThanEquals":{"aws:EpochTime":"1593518400"}}`, map[string][]string{"aws:EpochTime": {"1593518400"}}, true},
		{"Date: a date alone", `{"DateGreaterThanEquals":{"aws:TokenIssueTime":"2020-06-30"}}`, map[string][]string{"aws:TokenIssueTime": {"2020-06-30T00:00:00Z"}}, true},
		{"DateNotEquals", `{"DateNotEquals":{"aws:TokenIssueTime":"2020-06-30T12:00:00Z"}}`, map[string][]string{"aws:TokenIssueTime": {"2020-06-30T12:00:00Z"}}, false},
		// Boolean condition operators (aws:SecureTransport).
		{"Bool true", `{"Bool":{"aws:SecureTransport":"true"}}`, map[string][]string{"aws:SecureTransport": {"true"}}, true},
		{"Bool false against true", `{"Bool":{"aws:SecureTransport":"false"}}`, map[string][]string{"aws:SecureTransport": {"true"}}, false},
		{"Bool as a JSON boolean", `{"Bool":{"aws:SecureTransport":false}}`, map[string][]string{"aws:SecureTransport": {"false"}}, true},
		{"Bool: missing key is false", `{"Bool":{"aws:SecureTransport":"false"}}`, nil, false},
		// Binary condition operators.
		{"BinaryEquals", `{"BinaryEquals":{"key":"QmluYXJ5VmFsdWVJbkJhc2U2NA=="}}`, map[string][]string{"key": {"QmluYXJ5VmFsdWVJbkJhc2U2NA=="}}, true},
		{"BinaryEquals differs", `{"BinaryEquals":{"key":"QmluYXJ5VmFsdWVJbkJhc2U2NA=="}}`, map[string][]string{"key": {"QmluYXJ5"}}, false},
		// IP address condition operators.
		{"IpAddress in the block", `{"IpAddress":{"aws:SourceIp":"203.0.113.0/24"}}`, map[string][]string{"aws:SourceIp": {"203.0.113.7"}}, true},
		{"IpAddress outside", `{"IpAddress":{"aws:SourceIp":"203.0.113.0/24"}}`, map[string][]string{"aws:SourceIp": {"203.0.114.7"}}, false},
		{"IpAddress single address", `{"IpAddress":{"aws:SourceIp":"203.0.113.7"}}`, map[string][]string{"aws:SourceIp": {"203.0.113.7"}}, true},
		{"IpAddress IPv6", `{"IpAddress":{"aws:SourceIp":["203.0.113.0/24","2001:DB8:1234:5678::/64"]}}`, map[string][]string{"aws:SourceIp": {"2001:db8:1234:5678::1"}}, true},
		{"IpAddress IPv4-mapped request address", `{"IpAddress":{"aws:SourceIp":"203.0.113.0/24"}}`, map[string][]string{"aws:SourceIp": {"::ffff:203.0.113.9"}}, true},
		{"NotIpAddress", `{"NotIpAddress":{"aws:SourceIp":"203.0.113.0/24"}}`, map[string][]string{"aws:SourceIp": {"198.51.100.1"}}, true},
		{"NotIpAddress inside", `{"NotIpAddress":{"aws:SourceIp":"203.0.113.0/24"}}`, map[string][]string{"aws:SourceIp": {"203.0.113.1"}}, false},
		// ARN condition operators: component by component, wildcards in each.
		{"ArnEquals", `{"ArnEquals":{"aws:SourceArn":"arn:aws:sns:us-west-2:123456789012:my-topic"}}`, map[string][]string{"aws:SourceArn": {"arn:aws:sns:us-west-2:123456789012:my-topic"}}, true},
		{"ArnLike with wildcards", `{"ArnLike":{"aws:SourceArn":"arn:aws:sns:*:123456789012:*"}}`, map[string][]string{"aws:SourceArn": {"arn:aws:sns:us-west-2:123456789012:my-topic"}}, true},
		{"ArnLike: * stays in its component", `{"ArnLike":{"aws:SourceArn":"arn:aws:sns:*:123456789012"}}`, map[string][]string{"aws:SourceArn": {"arn:aws:sns:us-west-2:x:123456789012"}}, false},
		{"ArnLike: resource part keeps its colons", `{"ArnLike":{"aws:SourceArn":"arn:aws:lambda:*:123456789012:function:*"}}`, map[string][]string{"aws:SourceArn": {"arn:aws:lambda:us-east-1:123456789012:function:f"}}, true},
		{"ArnNotLike", `{"ArnNotLike":{"aws:PrincipalArn":"arn:aws:iam::*:role/admin"}}`, map[string][]string{"aws:PrincipalArn": {"arn:aws:iam::123456789012:role/admin"}}, false},
		{"ArnNotEquals: missing key is true", `{"ArnNotEquals":{"aws:PrincipalArn":"arn:aws:iam::123456789012:role/admin"}}`, nil, true},
		// …IfExists: true when the key is absent, the operator otherwise.
		{"StringLikeIfExists absent", `{"StringLikeIfExists":{"ec2:InstanceType":["t1.*","t2.*","m3.*"]}}`, nil, true},
		{"StringLikeIfExists present, matching", `{"StringLikeIfExists":{"ec2:InstanceType":["t1.*","t2.*","m3.*"]}}`, map[string][]string{"ec2:InstanceType": {"t2.micro"}}, true},
		{"StringLikeIfExists present, not matching", `{"StringLikeIfExists":{"ec2:InstanceType":["t1.*","t2.*","m3.*"]}}`, map[string][]string{"ec2:InstanceType": {"c5.large"}}, false},
		{"NumericLessThanIfExists absent", `{"NumericLessThanIfExists":{"s3:max-keys":"10"}}`, nil, true},
		{"BoolIfExists absent", `{"BoolIfExists":{"aws:MultiFactorAuthPresent":"true"}}`, nil, true},
		// Condition operator to check existence of condition keys.
		{"Null true, absent", `{"Null":{"aws:TokenIssueTime":"true"}}`, nil, true},
		{"Null true, present", `{"Null":{"aws:TokenIssueTime":"true"}}`, map[string][]string{"aws:TokenIssueTime": {"2020-01-01T00:00:00Z"}}, false},
		{"Null false, present", `{"Null":{"aws:TokenIssueTime":"false"}}`, map[string][]string{"aws:TokenIssueTime": {"2020-01-01T00:00:00Z"}}, true},
		{"Null false, absent", `{"Null":{"aws:TokenIssueTime":false}}`, nil, false},
		// Several operators and keys are ANDed.
		{"two operators, both hold", `{"IpAddress":{"aws:SourceIp":"203.0.113.0/24"},"Bool":{"aws:SecureTransport":"true"}}`,
			map[string][]string{"aws:SourceIp": {"203.0.113.7"}, "aws:SecureTransport": {"true"}}, true},
		{"two operators, one fails", `{"IpAddress":{"aws:SourceIp":"203.0.113.0/24"},"Bool":{"aws:SecureTransport":"true"}}`,
			map[string][]string{"aws:SourceIp": {"203.0.113.7"}, "aws:SecureTransport": {"false"}}, false},
	})
}

// "Single-valued vs. multivalued context keys" and "Set operators for
// multivalued context keys": ForAllValues is true when every request value
// matches some policy value, and also when the key is absent; ForAnyValue
// is true when at least one does, and false when the key is absent.
func TestConditionSetOperators(t *testing.T) {
	tags := func(v ...string) map[string][]string { return map[string][]string{"aws:TagKeys": v} }
	runCondCases(t, Version2012, []condCase{
		{"ForAllValues: subset", `{"ForAllValues:StringEquals":{"aws:TagKeys":["environment","cost-center"]}}`, tags("environment"), true},
		{"ForAllValues: both", `{"ForAllValues:StringEquals":{"aws:TagKeys":["environment","cost-center"]}}`, tags("environment", "cost-center"), true},
		{"ForAllValues: one outside", `{"ForAllValues:StringEquals":{"aws:TagKeys":["environment","cost-center"]}}`, tags("environment", "owner"), false},
		{"ForAllValues: absent key is true", `{"ForAllValues:StringEquals":{"aws:TagKeys":["environment","cost-center"]}}`, nil, true},
		{"ForAllValues: empty set is true", `{"ForAllValues:StringEquals":{"aws:TagKeys":["environment"]}}`, tags(), true},
		{"ForAllValues:StringLike", `{"ForAllValues:StringLike":{"aws:TagKeys":"Created*"}}`, tags("CreatedBy", "CreatedAt"), true},
		{"ForAnyValue: one matches", `{"ForAnyValue:StringEquals":{"aws:TagKeys":["environment","cost-center"]}}`, tags("owner", "environment"), true},
		{"ForAnyValue: none match", `{"ForAnyValue:StringEquals":{"aws:TagKeys":["environment","cost-center"]}}`, tags("owner"), false},
		{"ForAnyValue: absent key is false", `{"ForAnyValue:StringEquals":{"aws:TagKeys":["environment"]}}`, nil, false},
		{"ForAnyValue negated: absent key is false", `{"ForAnyValue:StringNotEquals":{"aws:TagKeys":["environment"]}}`, nil, false},
		{"ForAnyValue:StringNotEquals: one differs", `{"ForAnyValue:StringNotEquals":{"aws:TagKeys":["environment"]}}`, tags("environment", "owner"), true},
		{"ForAllValues:StringNotEquals: none in the list", `{"ForAllValues:StringNotEquals":{"aws:TagKeys":["environment"]}}`, tags("owner", "team"), true},
		{"ForAllValues:StringNotEquals: one in the list", `{"ForAllValues:StringNotEquals":{"aws:TagKeys":["environment"]}}`, tags("owner", "environment"), false},
		{"ForAnyValue IfExists absent", `{"ForAnyValue:StringEqualsIfExists":{"aws:TagKeys":["environment"]}}`, nil, true},
		{"plain operator on several values: any matches", `{"StringEquals":{"aws:TagKeys":"environment"}}`, tags("owner", "environment"), true},
		{"plain negated operator on several values: none may match", `{"StringNotEquals":{"aws:TagKeys":"environment"}}`, tags("owner", "environment"), false},
	})
}

// aws:CurrentTime and aws:EpochTime come from Request.Time when the
// context lacks them (the "Allows access within specific dates" example).
func TestConditionCurrentTime(t *testing.T) {
	p, err := ParseCompiled([]byte(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*",
		"Condition":{"DateGreaterThan":{"aws:CurrentTime":"2020-04-01T00:00:00Z"},"DateLessThan":{"aws:CurrentTime":"2020-06-30T23:59:59Z"}}}}`), Identity)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at   time.Time
		want bool
	}{
		{time.Date(2020, 5, 1, 0, 0, 0, 0, time.UTC), true},
		{time.Date(2020, 7, 1, 0, 0, 0, 0, time.UTC), false},
		{time.Date(2020, 3, 31, 23, 0, 0, 0, time.UTC), false},
	} {
		r := &Request{Type: User, Action: "s3:GetObject", Resource: "arn:aws:s3:::b/k", Time: c.at}
		if got := p.Allows(r); got != c.want {
			t.Errorf("at %v: got %v, want %v", c.at, got, c.want)
		}
	}
}
