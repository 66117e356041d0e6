package policy

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// benchBucketPolicy is a 20-statement bucket policy of the kinds the S3
// examples show: per-user folders, public prefixes, IP and TLS denies,
// tag and ACL conditions.
func benchBucketPolicy() string {
	const b = "arn:aws:s3:::media"
	var st []string
	st = append(st,
		`{"Sid":"TLS","Effect":"Deny","Principal":"*","Action":"s3:*","Resource":["`+b+`","`+b+`/*"],"Condition":{"Bool":{"aws:SecureTransport":"false"}}}`,
		`{"Sid":"Net","Effect":"Deny","Principal":"*","Action":"s3:*","Resource":["`+b+`","`+b+`/*"],"Condition":{"NotIpAddress":{"aws:SourceIp":["10.0.0.0/8","192.0.2.0/24","2001:db8::/32"]}}}`,
		`{"Sid":"Public","Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"`+b+`/public/*"}`,
		`{"Sid":"Lock","Effect":"Deny","Principal":"*","Action":"s3:PutObjectRetention","Resource":"`+b+`/*","Condition":{"NumericGreaterThan":{"s3:object-lock-remaining-retention-days":"30"}}}`,
		`{"Sid":"Acl","Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"`+b+`/*","Condition":{"StringEquals":{"s3:x-amz-acl":["public-read","public-read-write"]}}}`,
	)
	for i := 0; len(st) < 20; i++ {
		u := fmt.Sprintf("arn:aws:iam::%s:user/u%02d", acct, i)
		switch i % 3 {
		case 0:
			st = append(st, `{"Sid":"Home`+fmt.Sprint(i)+`","Effect":"Allow","Principal":{"AWS":"`+u+`"},"Action":["s3:GetObject","s3:PutObject","s3:DeleteObject"],"Resource":"`+b+`/home/${aws:username}/*"}`)
		case 1:
			st = append(st, `{"Sid":"List`+fmt.Sprint(i)+`","Effect":"Allow","Principal":{"AWS":["`+u+`","arn:aws:iam::`+acct+`:role/r`+fmt.Sprint(i)+`"]},"Action":"s3:ListBucket","Resource":"`+b+`","Condition":{"StringLike":{"s3:prefix":["home/${aws:username}/*","public/*"]}}}`)
		default:
			st = append(st, `{"Sid":"Tag`+fmt.Sprint(i)+`","Effect":"Allow","Principal":{"AWS":"`+u+`"},"Action":"s3:Get*","Resource":"`+b+`/shared/*","Condition":{"StringEquals":{"s3:ExistingObjectTag/team":"t`+fmt.Sprint(i)+`"}}}`)
		}
	}
	return `{"Version":"2012-10-17","Statement":[` + strings.Join(st, ",") + `]}`
}

// benchIdentityPolicies are three attached user policies.
func benchIdentityPolicies() []string {
	return []string{
		`{"Version":"2012-10-17","Statement":[
			{"Effect":"Allow","Action":["s3:ListAllMyBuckets","s3:GetBucketLocation"],"Resource":"*"},
			{"Effect":"Allow","Action":["s3:List*","s3:Get*"],"Resource":["arn:aws:s3:::reports","arn:aws:s3:::reports/*"]},
			{"Effect":"Deny","Action":"s3:DeleteBucket","Resource":"*"}]}`,
		`{"Version":"2012-10-17","Statement":[
			{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::media/team/*","Condition":{"StringEquals":{"aws:PrincipalTag/dept":"media"}}},
			{"Effect":"Deny","NotAction":["s3:Get*","s3:List*","s3:Put*"],"Resource":"arn:aws:s3:::archive/*"}]}`,
		`{"Version":"2012-10-17","Statement":[
			{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::media/*","Condition":{"DateLessThan":{"aws:CurrentTime":"2099-01-01T00:00:00Z"},"IpAddressIfExists":{"aws:SourceIp":"10.0.0.0/8"}}},
			{"Effect":"Deny","Action":"s3:*","Resource":"*","Condition":{"Bool":{"aws:MultiFactorAuthPresent":"false"},"StringLike":{"aws:UserAgent":"*bot*"}}}]}`,
	}
}

func benchSet(tb testing.TB) *Set {
	set := &Set{Resource: compileT(tb, Resource, benchBucketPolicy())}
	for _, doc := range benchIdentityPolicies() {
		set.Identity = append(set.Identity, compileT(tb, Identity, doc))
	}
	return set
}

// benchRequests: a GET of a user's own object (allowed by the bucket
// policy), a GET allowed by an identity policy, and a PUT denied
// implicitly (every statement examined).
func benchRequests() []*Request {
	kv := []string{"aws:SecureTransport", "true", "aws:SourceIp", "10.1.2.3", "aws:UserAgent", "aws-sdk-go-v2/1.0",
		"aws:MultiFactorAuthPresent", "false", "aws:CurrentTime", "2026-11-24T12:00:00Z", "aws:PrincipalTag/dept", "media"}
	reqs := []*Request{
		user("u00", "s3:GetObject", "arn:aws:s3:::media/home/u00/photo.jpg", kv...),
		user("u05", "s3:GetObject", "arn:aws:s3:::media/team/clip.mp4", kv...),
		user("u07", "s3:PutObject", "arn:aws:s3:::media/other/x", kv...),
	}
	for _, r := range reqs {
		r.Time = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	}
	return reqs
}

func TestBenchPolicies(t *testing.T) {
	set := benchSet(t)
	if n := len(set.Resource.stmts); n != 20 {
		t.Fatalf("bucket policy has %d statements", n)
	}
	want := []Decision{Allowed, Allowed, ImplicitDeny}
	for i, r := range benchRequests() {
		if got := Evaluate(r, set); got != want[i] {
			t.Errorf("request %d: %v, want %v", i, got, want[i])
		}
	}
}

// Evaluation allocates nothing once policies are compiled, variables and
// wildcards included.
func TestEvaluateDoesNotAllocate(t *testing.T) {
	set := benchSet(t)
	for i, r := range benchRequests() {
		if n := testing.AllocsPerRun(100, func() { Evaluate(r, set) }); n != 0 {
			t.Errorf("request %d: %v allocations per evaluation", i, n)
		}
	}
}

func BenchmarkEvaluate(b *testing.B) {
	set := benchSet(b)
	for i, r := range benchRequests() {
		b.Run(fmt.Sprintf("%s-%d", strings.TrimPrefix(r.Action, "s3:"), i), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Evaluate(r, set)
			}
		})
	}
}

func BenchmarkParseCompile(b *testing.B) {
	doc := []byte(benchBucketPolicy())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseCompiled(doc, Resource); err != nil {
			b.Fatal(err)
		}
	}
}
