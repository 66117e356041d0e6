package authz

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/iam/policy"
)

// benchBucketPolicy is a 20-statement bucket policy: TLS and network
// denies, a public prefix, per-user homes and listings.
func benchBucketPolicy() string {
	const b = "arn:aws:s3:::media"
	st := []string{
		`{"Effect":"Deny","Principal":"*","Action":"s3:*","Resource":["` + b + `","` + b + `/*"],"Condition":{"Bool":{"aws:SecureTransport":"false"},"IpAddress":{"aws:SourceIp":"198.51.100.0/24"}}}`,
		`{"Effect":"Deny","Principal":"*","Action":"s3:*","Resource":["` + b + `","` + b + `/*"],"Condition":{"NotIpAddress":{"aws:SourceIp":["10.0.0.0/8","127.0.0.0/8","2001:db8::/32"]}}}`,
		`{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"` + b + `/public/*"}`,
		`{"Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"` + b + `/*","Condition":{"StringEquals":{"s3:x-amz-acl":["public-read","public-read-write"]}}}`,
	}
	for i := 0; len(st) < 20; i++ {
		u := fmt.Sprintf("arn:aws:iam::%s:user/u%02d", acct, i)
		if i%2 == 0 {
			st = append(st, `{"Effect":"Allow","Principal":{"AWS":"`+u+`"},"Action":["s3:GetObject","s3:PutObject"],"Resource":"`+b+`/home/${aws:username}/*"}`)
		} else {
			st = append(st, `{"Effect":"Allow","Principal":{"AWS":"`+u+`"},"Action":"s3:ListBucket","Resource":"`+b+`","Condition":{"StringLike":{"s3:prefix":"home/${aws:username}/*"}}}`)
		}
	}
	return `{"Version":"2012-10-17","Statement":[` + strings.Join(st, ",") + `]}`
}

var benchIdentity = []string{
	`{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":["s3:ListAllMyBuckets","s3:GetBucketLocation"],"Resource":"*"},
		{"Effect":"Allow","Action":["s3:List*","s3:Get*"],"Resource":["arn:aws:s3:::reports","arn:aws:s3:::reports/*"]},
		{"Effect":"Deny","Action":"s3:DeleteBucket","Resource":"*"}]}`,
	`{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::media/team/*"},
		{"Effect":"Deny","NotAction":["s3:Get*","s3:List*","s3:Put*"],"Resource":"arn:aws:s3:::archive/*"}]}`,
	`{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::media/*","Condition":{"DateLessThan":{"aws:CurrentTime":"2099-01-01T00:00:00Z"},"IpAddressIfExists":{"aws:SourceIp":"127.0.0.0/8"}}},
		{"Effect":"Deny","Action":"s3:*","Resource":"*","Condition":{"StringLike":{"aws:UserAgent":"*bot*"}}}]}`,
}

// BenchmarkAuthorizeGet is the whole authorization of a signed GET by an
// IAM user: the condition keys built from the request, then the decision
// over a 20-statement bucket policy and three identity policies.
func BenchmarkAuthorizeGet(b *testing.B) {
	bp := compile(b, policy.Resource, benchBucketPolicy())
	who := user(b, "u00", benchIdentity...)
	r := httptest.NewRequest("GET", "/media/home/u00/photo.jpg", nil)
	r.RemoteAddr = "127.0.0.1:50000"
	r.Header.Set("User-Agent", "aws-sdk-go-v2/1.30")
	r.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
	a := New(acct, Options{})
	in := &Request{Principal: who, HTTP: r, SignatureVersion: SigV4, AuthType: AuthHeader}
	res := ObjectARN("media", "home/u00/photo.jpg")
	if d := a.Prepare(in).Decide("s3:GetObject", res, bp); d != policy.Allowed {
		b.Fatalf("decision %v", d)
	}
	b.ReportAllocs()
	for b.Loop() {
		c := a.Prepare(in)
		d := c.Decide("s3:GetObject", res, bp)
		c.Release()
		if d != policy.Allowed {
			b.Fatal("denied")
		}
	}
}
