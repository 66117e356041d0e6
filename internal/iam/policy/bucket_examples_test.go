package policy

import "testing"

// "Examples of Amazon S3 bucket policies" (S3 User Guide) and the S3
// condition-key examples ("Bucket policy examples using condition keys"),
// each policy with requests it must allow and deny.
func TestS3BucketPolicyExamples(t *testing.T) {
	const b = "arn:aws:s3:::amzn-s3-demo-bucket"
	bob := func(action, resource string, kv ...string) *Request {
		return user("bob", action, resource, kv...)
	}
	everything := compileT(t, Identity, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*"}}`)
	examples := []struct {
		name     string
		policy   string
		identity bool // bob also has an identity policy allowing s3:*
		cases    []evalCase
	}{
		{"granting read-only permission to a public anonymous user", `{"Version":"2012-10-17","Statement":[{"Sid":"PublicRead","Effect":"Allow",
			"Principal":"*","Action":["s3:GetObject","s3:GetObjectVersion"],"Resource":["` + b + `/*"]}]}`, false, []evalCase{
			{"anonymous GET", anonymous("s3:GetObject", b+"/index.html"), Allowed},
			{"anonymous GET of a version", anonymous("s3:GetObjectVersion", b+"/index.html"), Allowed},
			{"anonymous PUT", anonymous("s3:PutObject", b+"/index.html"), ImplicitDeny},
			{"anonymous list", anonymous("s3:ListBucket", b), ImplicitDeny},
			{"a user without identity policy reads too", bob("s3:GetObject", b+"/index.html"), Allowed},
		}},
		{"restricting access to specific IP addresses (IPv4 and IPv6)", `{"Version":"2012-10-17","Id":"PolicyId2","Statement":[{"Sid":"AllowIPmix",
			"Effect":"Deny","Principal":"*","Action":"s3:*","Resource":["` + b + `","` + b + `/*"],
			"Condition":{"NotIpAddress":{"aws:SourceIp":["192.0.2.0/24","2001:DB8:1234:5678::/64"]}}}]}`, true, []evalCase{
			{"inside the IPv4 block", bob("s3:GetObject", b+"/k", "aws:SourceIp", "192.0.2.10"), Allowed},
			{"inside the IPv6 block", bob("s3:GetObject", b+"/k", "aws:SourceIp", "2001:db8:1234:5678::abcd"), Allowed},
			{"outside", bob("s3:GetObject", b+"/k", "aws:SourceIp", "198.51.100.1"), ExplicitDeny},
			{"outside, IPv6", bob("s3:GetObject", b+"/k", "aws:SourceIp", "2001:db8:1234:5679::1"), ExplicitDeny},
		}},
		{"enforcing HTTPS (aws:SecureTransport)", `{"Version":"2012-10-17","Statement":[{"Sid":"RestrictToTLSRequestsOnly","Effect":"Deny",
			"Principal":"*","Action":"s3:*","Resource":["` + b + `","` + b + `/*"],"Condition":{"Bool":{"aws:SecureTransport":"false"}}}]}`, true, []evalCase{
			{"over HTTPS", bob("s3:PutObject", b+"/k", "aws:SecureTransport", "true"), Allowed},
			{"over HTTP", bob("s3:PutObject", b+"/k", "aws:SecureTransport", "false"), ExplicitDeny},
		}},
		{"restricting access to a specific HTTP referer", `{"Version":"2012-10-17","Id":"HTTP referer policy example","Statement":[{"Sid":"Allow only GET requests originating from www.example.com and example.com.",
			"Effect":"Allow","Principal":"*","Action":["s3:GetObject","s3:GetObjectVersion"],"Resource":"` + b + `/*",
			"Condition":{"StringLike":{"aws:Referer":["https://www.example.com/*","https://example.com/*"]}}}]}`, false, []evalCase{
			{"from the site", anonymous("s3:GetObject", b+"/img.png", "aws:Referer", "https://www.example.com/page.html"), Allowed},
			{"from elsewhere", anonymous("s3:GetObject", b+"/img.png", "aws:Referer", "https://evil.example.net/"), ImplicitDeny},
			{"without a referer", anonymous("s3:GetObject", b+"/img.png"), ImplicitDeny},
		}},
		{"requiring the bucket-owner-full-control canned ACL", `{"Version":"2012-10-17","Statement":[{"Sid":"AddCannedAcl","Effect":"Allow",
			"Principal":{"AWS":["arn:aws:iam::` + acct + `:user/bob"]},"Action":"s3:PutObject","Resource":"` + b + `/*",
			"Condition":{"StringEquals":{"s3:x-amz-acl":["bucket-owner-full-control"]}}}]}`, false, []evalCase{
			{"with the ACL", bob("s3:PutObject", b+"/k", "s3:x-amz-acl", "bucket-owner-full-control"), Allowed},
			{"with another ACL", bob("s3:PutObject", b+"/k", "s3:x-amz-acl", "public-read"), ImplicitDeny},
			{"without an ACL", bob("s3:PutObject", b+"/k"), ImplicitDeny},
		}},
		{"restricting reads to objects with a tag (s3:ExistingObjectTag)", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow",
			"Principal":{"AWS":"arn:aws:iam::` + acct + `:user/bob"},"Action":"s3:GetObject","Resource":"` + b + `/*",
			"Condition":{"StringEquals":{"s3:ExistingObjectTag/environment":"production"}}}]}`, false, []evalCase{
			{"tagged production", bob("s3:GetObject", b+"/k", "s3:ExistingObjectTag/environment", "production"), Allowed},
			{"tagged otherwise", bob("s3:GetObject", b+"/k", "s3:ExistingObjectTag/environment", "test"), ImplicitDeny},
		}},
		{"requiring MFA (Null and NumericGreaterThan on aws:MultiFactorAuthAge)", `{"Version":"2012-10-17","Id":"123","Statement":[
			{"Sid":"","Effect":"Deny","Principal":"*","Action":"s3:*","Resource":"` + b + `/taxdocuments/*","Condition":{"Null":{"aws:MultiFactorAuthAge":true}}},
			{"Sid":"","Effect":"Deny","Principal":"*","Action":"s3:*","Resource":"` + b + `/taxdocuments/*","Condition":{"NumericGreaterThan":{"aws:MultiFactorAuthAge":3600}}},
			{"Sid":"","Effect":"Allow","Principal":"*","Action":["s3:GetObject"],"Resource":"` + b + `/*"}]}`, false, []evalCase{
			{"no MFA", bob("s3:GetObject", b+"/taxdocuments/2024.pdf"), ExplicitDeny},
			{"MFA an hour old", bob("s3:GetObject", b+"/taxdocuments/2024.pdf", "aws:MultiFactorAuthAge", "3600"), Allowed},
			{"MFA too old", bob("s3:GetObject", b+"/taxdocuments/2024.pdf", "aws:MultiFactorAuthAge", "3601"), ExplicitDeny},
			{"other folders need no MFA", bob("s3:GetObject", b+"/public/x"), Allowed},
		}},
		{"limiting keys per listing (s3:max-keys) and prefixes (s3:prefix, s3:delimiter)", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow",
			"Principal":{"AWS":"arn:aws:iam::` + acct + `:user/bob"},"Action":"s3:ListBucket","Resource":"` + b + `",
			"Condition":{"NumericLessThanEquals":{"s3:max-keys":"10"},"StringEquals":{"s3:prefix":"projects/","s3:delimiter":"/"}}}]}`, false, []evalCase{
			{"within the limits", bob("s3:ListBucket", b, "s3:max-keys", "10", "s3:prefix", "projects/", "s3:delimiter", "/"), Allowed},
			{"too many keys", bob("s3:ListBucket", b, "s3:max-keys", "1000", "s3:prefix", "projects/", "s3:delimiter", "/"), ImplicitDeny},
			{"another prefix", bob("s3:ListBucket", b, "s3:max-keys", "5", "s3:prefix", "home/", "s3:delimiter", "/"), ImplicitDeny},
		}},
		{"limiting object lock retention (s3:object-lock-remaining-retention-days)", `{"Version":"2012-10-17","Statement":[{"Effect":"Deny",
			"Principal":"*","Action":"s3:PutObjectRetention","Resource":"` + b + `/*",
			"Condition":{"NumericGreaterThan":{"s3:object-lock-remaining-retention-days":"10"}}}]}`, true, []evalCase{
			{"ten days", bob("s3:PutObjectRetention", b+"/k", "s3:object-lock-remaining-retention-days", "10"), Allowed},
			{"eleven days", bob("s3:PutObjectRetention", b+"/k", "s3:object-lock-remaining-retention-days", "11"), ExplicitDeny},
		}},
		{"requiring Signature Version 4 and signed payloads", `{"Version":"2012-10-17","Statement":[
			{"Effect":"Deny","Principal":"*","Action":"s3:*","Resource":"` + b + `/*","Condition":{"StringNotEquals":{"s3:signatureversion":"AWS4-HMAC-SHA256"}}},
			{"Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"` + b + `/*","Condition":{"StringEquals":{"s3:x-amz-content-sha256":"UNSIGNED-PAYLOAD"}}}]}`, true, []evalCase{
			{"SigV4, signed payload", bob("s3:PutObject", b+"/k", "s3:signatureversion", "AWS4-HMAC-SHA256", "s3:x-amz-content-sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"), Allowed},
			{"SigV2", bob("s3:PutObject", b+"/k", "s3:signatureversion", "AWS"), ExplicitDeny},
			{"unsigned payload", bob("s3:PutObject", b+"/k", "s3:signatureversion", "AWS4-HMAC-SHA256", "s3:x-amz-content-sha256", "UNSIGNED-PAYLOAD"), ExplicitDeny},
		}},
	}
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			set := &Set{Resource: compileT(t, Resource, ex.policy)}
			if ex.identity {
				set.Identity = []*Compiled{everything}
			}
			runEval(t, set, ex.cases)
		})
	}
}
