package authz

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/iam/policy"
)

const acct = "111122223333"

func compile(t testing.TB, kind policy.Kind, doc string) *policy.Compiled {
	t.Helper()
	c, err := policy.ParseCompiled([]byte(doc), kind)
	if err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	return c
}

func user(t testing.TB, name string, docs ...string) Principal {
	p := &iam.Principal{ARN: "arn:aws:iam::" + acct + ":user/" + name, UserID: "AIDA" + strings.ToUpper(name), UserName: name, Account: acct}
	for _, d := range docs {
		p.Policies = append(p.Policies, compile(t, policy.Identity, d))
	}
	return Principal{Type: policy.User, User: p}
}

func stmt(effect, action, resource, cond string) string {
	s := `{"Effect":"` + effect + `","Action":"` + action + `","Resource":"` + resource + `"`
	if cond != "" {
		s += `,"Condition":` + cond
	}
	return `{"Version":"2012-10-17","Statement":[` + s + `}]}`
}

func bucketStmt(effect, principal, action, resource, cond string) string {
	s := `{"Effect":"` + effect + `","Principal":` + principal + `,"Action":"` + action + `","Resource":"` + resource + `"`
	if cond != "" {
		s += `,"Condition":` + cond
	}
	return `{"Version":"2012-10-17","Statement":[` + s + `}]}`
}

// TestDecide: each case is one request and the decision AWS's logic gives.
func TestDecide(t *testing.T) {
	fixed := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name     string
		who      Principal
		method   string
		target   string
		header   map[string]string
		remote   string
		tls      bool
		trust    bool
		sig      string // "", "header", "query", "v2"
		list     bool
		action   string
		resource string
		bucket   string // the bucket policy, "" for none
		want     policy.Decision
	}{
		{name: "root, no policy at all", who: Root, action: "s3:DeleteBucket", resource: BucketARN("b"),
			bucket: bucketStmt("Deny", `"*"`, "s3:*", "arn:aws:s3:::b", ""), want: policy.Allowed},
		{name: "user with an allow", who: user(t, "alice", stmt("Allow", "s3:GetObject", "arn:aws:s3:::b/*", "")),
			action: "s3:GetObject", resource: ObjectARN("b", "k"), want: policy.Allowed},
		{name: "user allowed elsewhere", who: user(t, "alice", stmt("Allow", "s3:GetObject", "arn:aws:s3:::other/*", "")),
			action: "s3:GetObject", resource: ObjectARN("b", "k"), want: policy.ImplicitDeny},
		{name: "user with no policy", who: user(t, "bob"), action: "s3:GetObject", resource: ObjectARN("b", "k"), want: policy.ImplicitDeny},
		{name: "explicit deny beats allow", who: user(t, "dave", stmt("Allow", "s3:*", "*", ""), stmt("Deny", "s3:PutObject", "arn:aws:s3:::b/*", "")),
			action: "s3:PutObject", resource: ObjectARN("b", "k"), want: policy.ExplicitDeny},
		{name: "bucket policy grants a user by ARN", who: user(t, "bob"), action: "s3:GetObject", resource: ObjectARN("b", "k"),
			bucket: bucketStmt("Allow", `{"AWS":"arn:aws:iam::`+acct+`:user/bob"}`, "s3:GetObject", "arn:aws:s3:::b/*", ""), want: policy.Allowed},
		{name: "bucket policy deny beats identity allow", who: user(t, "alice", stmt("Allow", "s3:*", "*", "")), action: "s3:GetObject", resource: ObjectARN("b", "k"),
			bucket: bucketStmt("Deny", `"*"`, "s3:GetObject", "arn:aws:s3:::b/*", ""), want: policy.ExplicitDeny},
		{name: "anonymous, public read", who: Anonymous, action: "s3:GetObject", resource: ObjectARN("b", "k"),
			bucket: bucketStmt("Allow", `"*"`, "s3:GetObject", "arn:aws:s3:::b/*", ""), want: policy.Allowed},
		{name: "anonymous, public read, a write", who: Anonymous, method: "PUT", action: "s3:PutObject", resource: ObjectARN("b", "k"),
			bucket: bucketStmt("Allow", `"*"`, "s3:GetObject", "arn:aws:s3:::b/*", ""), want: policy.ImplicitDeny},
		{name: "anonymous, no policy", who: Anonymous, action: "s3:ListAllMyBuckets", resource: ServiceARN, want: policy.ImplicitDeny},
		{name: "anonymous, PrincipalType", who: Anonymous, action: "s3:GetObject", resource: ObjectARN("b", "k"),
			bucket: bucketStmt("Allow", `"*"`, "s3:GetObject", "arn:aws:s3:::b/*", `{"StringEquals":{"aws:PrincipalType":"Anonymous"}}`), want: policy.Allowed},
		{name: "SourceIp inside", who: Anonymous, remote: "192.0.2.7:4000", action: "s3:GetObject", resource: ObjectARN("b", "k"),
			bucket: bucketStmt("Allow", `"*"`, "s3:GetObject", "arn:aws:s3:::b/*", `{"IpAddress":{"aws:SourceIp":"192.0.2.0/24"}}`), want: policy.Allowed},
		{name: "SourceIp outside", who: Anonymous, remote: "203.0.113.9:4000", action: "s3:GetObject", resource: ObjectARN("b", "k"),
			bucket: bucketStmt("Allow", `"*"`, "s3:GetObject", "arn:aws:s3:::b/*", `{"IpAddress":{"aws:SourceIp":"192.0.2.0/24"}}`), want: policy.ImplicitDeny},
		{name: "X-Forwarded-For untrusted", who: Anonymous, remote: "203.0.113.9:4000", header: map[string]string{"X-Forwarded-For": "192.0.2.7"},
			action: "s3:GetObject", resource: ObjectARN("b", "k"),
			bucket: bucketStmt("Allow", `"*"`, "s3:GetObject", "arn:aws:s3:::b/*", `{"IpAddress":{"aws:SourceIp":"192.0.2.0/24"}}`), want: policy.ImplicitDeny},
		{name: "X-Forwarded-For trusted, last hop", who: Anonymous, remote: "10.0.0.1:4000", trust: true, header: map[string]string{"X-Forwarded-For": "203.0.113.9, 192.0.2.7"},
			action: "s3:GetObject", resource: ObjectARN("b", "k"),
			bucket: bucketStmt("Allow", `"*"`, "s3:GetObject", "arn:aws:s3:::b/*", `{"IpAddress":{"aws:SourceIp":"192.0.2.0/24"}}`), want: policy.Allowed},
		{name: "SecureTransport false denied", who: user(t, "alice", stmt("Allow", "s3:*", "*", "")), action: "s3:GetObject", resource: ObjectARN("b", "k"),
			bucket: bucketStmt("Deny", `"*"`, "s3:*", "arn:aws:s3:::b/*", `{"Bool":{"aws:SecureTransport":"false"}}`), want: policy.ExplicitDeny},
		{name: "SecureTransport over TLS", who: user(t, "alice", stmt("Allow", "s3:*", "*", "")), tls: true, action: "s3:GetObject", resource: ObjectARN("b", "k"),
			bucket: bucketStmt("Deny", `"*"`, "s3:*", "arn:aws:s3:::b/*", `{"Bool":{"aws:SecureTransport":"false"}}`), want: policy.Allowed},
		{name: "s3:prefix matches", who: user(t, "bob", stmt("Allow", "s3:ListBucket", "arn:aws:s3:::b", `{"StringLike":{"s3:prefix":"home/${aws:username}/*"}}`)),
			target: "/b?list-type=2&prefix=home/bob/x", list: true, action: "s3:ListBucket", resource: BucketARN("b"), want: policy.Allowed},
		{name: "s3:prefix of another", who: user(t, "bob", stmt("Allow", "s3:ListBucket", "arn:aws:s3:::b", `{"StringLike":{"s3:prefix":"home/${aws:username}/*"}}`)),
			target: "/b?list-type=2&prefix=home/alice/", list: true, action: "s3:ListBucket", resource: BucketARN("b"), want: policy.ImplicitDeny},
		{name: "s3:prefix absent", who: user(t, "bob", stmt("Allow", "s3:ListBucket", "arn:aws:s3:::b", `{"StringLike":{"s3:prefix":"home/${aws:username}/*"}}`)),
			target: "/b?list-type=2", list: true, action: "s3:ListBucket", resource: BucketARN("b"), want: policy.ImplicitDeny},
		{name: "s3:max-keys", who: user(t, "bob", stmt("Allow", "s3:ListBucket", "arn:aws:s3:::b", `{"NumericLessThanEquals":{"s3:max-keys":"10"}}`)),
			target: "/b?max-keys=100", list: true, action: "s3:ListBucket", resource: BucketARN("b"), want: policy.ImplicitDeny},
		{name: "username variable in the resource", who: user(t, "bob", stmt("Allow", "s3:PutObject", "arn:aws:s3:::b/home/${aws:username}/*", "")),
			method: "PUT", action: "s3:PutObject", resource: ObjectARN("b", "home/bob/f"), want: policy.Allowed},
		{name: "username variable, another's home", who: user(t, "bob", stmt("Allow", "s3:PutObject", "arn:aws:s3:::b/home/${aws:username}/*", "")),
			method: "PUT", action: "s3:PutObject", resource: ObjectARN("b", "home/alice/f"), want: policy.ImplicitDeny},
		{name: "RequestObjectTag", who: user(t, "bob", stmt("Allow", "s3:PutObject", "*", `{"StringEquals":{"s3:RequestObjectTag/team":"blue"}}`)),
			method: "PUT", header: map[string]string{"X-Amz-Tagging": "team=blue&x=y"}, action: "s3:PutObject", resource: ObjectARN("b", "k"), want: policy.Allowed},
		{name: "RequestObjectTag other value", who: user(t, "bob", stmt("Allow", "s3:PutObject", "*", `{"StringEquals":{"s3:RequestObjectTag/team":"blue"}}`)),
			method: "PUT", header: map[string]string{"X-Amz-Tagging": "team=red"}, action: "s3:PutObject", resource: ObjectARN("b", "k"), want: policy.ImplicitDeny},
		{name: "x-amz-acl denied", who: user(t, "bob", stmt("Allow", "s3:PutObject", "*", "")), method: "PUT",
			header: map[string]string{"X-Amz-Acl": "public-read"}, action: "s3:PutObject", resource: ObjectARN("b", "k"),
			bucket: bucketStmt("Deny", `"*"`, "s3:PutObject", "arn:aws:s3:::b/*", `{"StringEquals":{"s3:x-amz-acl":"public-read"}}`), want: policy.ExplicitDeny},
		{name: "object lock mode", who: user(t, "bob", stmt("Allow", "s3:PutObject", "*", "")), method: "PUT",
			header: map[string]string{"X-Amz-Object-Lock-Mode": "COMPLIANCE"}, action: "s3:PutObject", resource: ObjectARN("b", "k"),
			bucket: bucketStmt("Deny", `"*"`, "s3:PutObject", "arn:aws:s3:::b/*", `{"StringEquals":{"s3:object-lock-mode":"COMPLIANCE"}}`), want: policy.ExplicitDeny},
		{name: "signature version required, V2 sent", who: user(t, "bob", stmt("Allow", "s3:GetObject", "*", `{"StringEquals":{"s3:signatureversion":"AWS4-HMAC-SHA256"}}`)),
			sig: "v2", action: "s3:GetObject", resource: ObjectARN("b", "k"), want: policy.ImplicitDeny},
		{name: "signature version required, V4 sent", who: user(t, "bob", stmt("Allow", "s3:GetObject", "*", `{"StringEquals":{"s3:signatureversion":"AWS4-HMAC-SHA256"}}`)),
			sig: "header", action: "s3:GetObject", resource: ObjectARN("b", "k"), want: policy.Allowed},
		{name: "no presigned URLs", who: user(t, "bob", stmt("Allow", "s3:GetObject", "*", ""), stmt("Deny", "s3:*", "*", `{"StringEquals":{"s3:authType":"REST-QUERY-STRING"}}`)),
			sig: "query", action: "s3:GetObject", resource: ObjectARN("b", "k"), want: policy.ExplicitDeny},
		{name: "content sha256 unsigned denied", who: user(t, "bob", stmt("Allow", "s3:PutObject", "*", ""), stmt("Deny", "s3:PutObject", "*", `{"StringEquals":{"s3:x-amz-content-sha256":"UNSIGNED-PAYLOAD"}}`)),
			method: "PUT", header: map[string]string{"X-Amz-Content-Sha256": "UNSIGNED-PAYLOAD"}, action: "s3:PutObject", resource: ObjectARN("b", "k"), want: policy.ExplicitDeny},
		{name: "VersionId", who: user(t, "bob", stmt("Allow", "s3:GetObjectVersion", "*", `{"StringEquals":{"s3:VersionId":"v1"}}`)),
			target: "/b/k?versionId=v1", action: "s3:GetObjectVersion", resource: ObjectARN("b", "k"), want: policy.Allowed},
		{name: "CurrentTime", who: user(t, "bob", stmt("Allow", "s3:GetObject", "*", `{"DateGreaterThan":{"aws:CurrentTime":"2027-01-01T00:00:00Z"}}`)),
			action: "s3:GetObject", resource: ObjectARN("b", "k"), want: policy.ImplicitDeny},
		{name: "EpochTime", who: user(t, "bob", stmt("Allow", "s3:GetObject", "*", fmt.Sprintf(`{"NumericGreaterThan":{"aws:EpochTime":"%d"}}`, fixed.Unix()-1))),
			action: "s3:GetObject", resource: ObjectARN("b", "k"), want: policy.Allowed},
		{name: "Referer", who: Anonymous, header: map[string]string{"Referer": "https://www.example.com/page"}, action: "s3:GetObject", resource: ObjectARN("b", "k"),
			bucket: bucketStmt("Allow", `"*"`, "s3:GetObject", "arn:aws:s3:::b/*", `{"StringLike":{"aws:Referer":"https://www.example.com/*"}}`), want: policy.Allowed},
		{name: "UserAgent", who: user(t, "bob", stmt("Allow", "s3:*", "*", ""), stmt("Deny", "s3:*", "*", `{"StringLike":{"aws:UserAgent":"*bot*"}}`)),
			header: map[string]string{"User-Agent": "evilbot/1.0"}, action: "s3:GetObject", resource: ObjectARN("b", "k"), want: policy.ExplicitDeny},
		{name: "userid and PrincipalArn", who: user(t, "bob"), action: "s3:GetObject", resource: ObjectARN("b", "k"),
			bucket: bucketStmt("Allow", `"*"`, "s3:GetObject", "arn:aws:s3:::b/*", `{"StringEquals":{"aws:userid":"AIDABOB"},"ArnEquals":{"aws:PrincipalArn":"arn:aws:iam::`+acct+`:user/bob"}}`), want: policy.Allowed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			method, target := c.method, c.target
			if method == "" {
				method = http.MethodGet
			}
			if target == "" {
				target = "/b/k"
			}
			r := httptest.NewRequest(method, target, nil)
			r.RemoteAddr = "127.0.0.1:1234"
			if c.remote != "" {
				r.RemoteAddr = c.remote
			}
			if c.tls {
				r.TLS = &tls.ConnectionState{}
			}
			for k, v := range c.header {
				r.Header.Set(k, v)
			}
			in := &Request{Principal: c.who, HTTP: r, List: c.list}
			switch c.sig {
			case "header":
				in.SignatureVersion, in.AuthType = SigV4, AuthHeader
			case "query":
				in.SignatureVersion, in.AuthType = SigV4, AuthQuery
			case "v2":
				in.SignatureVersion, in.AuthType = SigV2, AuthHeader
			}
			var bp *policy.Compiled
			if c.bucket != "" {
				bp = compile(t, policy.Resource, c.bucket)
			}
			a := New(acct, Options{TrustForwardedFor: c.trust, Now: func() time.Time { return fixed }})
			if got := a.Prepare(in).Decide(c.action, c.resource, bp); got != c.want {
				t.Errorf("%s on %s: %v, want %v", c.action, c.resource, got, c.want)
			}
		})
	}
}

// TestSetVersion: a DeleteObjects entry's version is its s3:VersionId,
// and an entry without one has none.
func TestSetVersion(t *testing.T) {
	who := user(t, "bob", stmt("Allow", "s3:DeleteObjectVersion", "*", `{"StringEquals":{"s3:VersionId":"v1"}}`))
	c := New(acct, Options{}).Prepare(&Request{Principal: who, HTTP: httptest.NewRequest("POST", "/b?delete", nil)})
	for _, tc := range []struct {
		v    string
		want policy.Decision
	}{{"v1", policy.Allowed}, {"v2", policy.ImplicitDeny}, {"", policy.ImplicitDeny}} {
		c.SetVersion(tc.v)
		if got := c.Decide("s3:DeleteObjectVersion", ObjectARN("b", "k"), nil); got != tc.want {
			t.Errorf("version %q: %v, want %v", tc.v, got, tc.want)
		}
	}
}

func TestParseBucketPolicy(t *testing.T) {
	for _, tc := range []struct {
		doc    string
		reason string // "" when valid
	}{
		{bucketStmt("Allow", `"*"`, "s3:GetObject", "arn:aws:s3:::b/*", ""), ""},
		{bucketStmt("Allow", `"*"`, "s3:ListBucket", "arn:aws:s3:::b", ""), ""},
		{bucketStmt("Allow", `"*"`, "s3:GetObject", "arn:aws:s3:::bb/*", ""), "Policy has invalid resource"},
		{bucketStmt("Allow", `"*"`, "s3:GetObject", "arn:aws:s3:::*", ""), "Policy has invalid resource"},
		{bucketStmt("Allow", `"*"`, "s3:GetObject", "*", ""), "Policy has invalid resource"},
		{stmt("Allow", "s3:GetObject", "arn:aws:s3:::b/*", ""), "x"}, // no Principal: the parser's reason
		{`{"Statement":[`, "x"},
	} {
		_, err := ParseBucketPolicy([]byte(tc.doc), "b")
		switch {
		case tc.reason == "" && err != nil:
			t.Errorf("%s: %v", tc.doc, err)
		case tc.reason != "" && err == nil:
			t.Errorf("%s: accepted", tc.doc)
		case tc.reason != "" && tc.reason != "x" && err.Error() != tc.reason:
			t.Errorf("%s: %v, want %q", tc.doc, err, tc.reason)
		}
	}
}

func TestIsPublic(t *testing.T) {
	for _, tc := range []struct {
		principal, cond string
		effect          string
		want            bool
	}{
		{`"*"`, "", "Allow", true},
		{`{"AWS":"*"}`, "", "Allow", true},
		{`"*"`, "", "Deny", false},
		{`{"AWS":"arn:aws:iam::` + acct + `:user/bob"}`, "", "Allow", false},
		{`"*"`, `{"IpAddress":{"aws:SourceIp":"192.0.2.0/24"}}`, "Allow", false},
		{`"*"`, `{"IpAddress":{"aws:SourceIp":"0.0.0.0/0"}}`, "Allow", true},
		{`"*"`, `{"NotIpAddress":{"aws:SourceIp":"192.0.2.0/24"}}`, "Allow", true},
		{`"*"`, `{"StringEquals":{"aws:SourceAccount":"` + acct + `"}}`, "Allow", false},
		{`"*"`, `{"StringLike":{"aws:PrincipalArn":"arn:aws:iam::*:user/bob"}}`, "Allow", true},
		{`"*"`, `{"StringEquals":{"aws:Referer":"https://example.com/"}}`, "Allow", true},
		{`"*"`, `{"StringEqualsIfExists":{"aws:SourceAccount":"` + acct + `"}}`, "Allow", true},
	} {
		p, err := policy.Parse([]byte(bucketStmt(tc.effect, tc.principal, "s3:GetObject", "arn:aws:s3:::b/*", tc.cond)), policy.Resource)
		if err != nil {
			t.Fatal(err)
		}
		if got := IsPublic(p); got != tc.want {
			t.Errorf("%s %s %s: public %v, want %v", tc.effect, tc.principal, tc.cond, got, tc.want)
		}
	}
}

// TestExistingObjectTag: the object's tags are read only for a policy
// that names s3:ExistingObjectTag, once, and a failed read denies with
// the error.
func TestExistingObjectTag(t *testing.T) {
	tagged := user(t, "bob", stmt("Allow", "s3:GetObject", "*", `{"StringEquals":{"s3:ExistingObjectTag/public":"yes"}}`))
	plain := user(t, "bob", stmt("Allow", "s3:GetObject", "*", ""))
	for _, tc := range []struct {
		name      string
		who       Principal
		tags      map[string]string
		err       error
		want      policy.Decision
		wantReads int
	}{
		{"tag matches", tagged, map[string]string{"public": "yes"}, nil, policy.Allowed, 1},
		{"tag differs", tagged, map[string]string{"public": "no"}, nil, policy.ImplicitDeny, 1},
		{"no tags", tagged, nil, nil, policy.ImplicitDeny, 1},
		{"read fails", tagged, nil, fmt.Errorf("disk on fire"), policy.ImplicitDeny, 1},
		{"policy without the key reads nothing", plain, nil, fmt.Errorf("must not be read"), policy.Allowed, 0},
	} {
		reads := 0
		in := &Request{Principal: tc.who, HTTP: httptest.NewRequest("GET", "/b/k", nil),
			ExistingTags: TagsFunc(func() (map[string]string, error) { reads++; return tc.tags, tc.err })}
		c := New(acct, Options{}).Prepare(in)
		for range 2 {
			if got := c.Decide("s3:GetObject", ObjectARN("b", "k"), nil); got != tc.want {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
			}
		}
		if reads != tc.wantReads {
			t.Errorf("%s: tags read %d times, want %d", tc.name, reads, tc.wantReads)
		}
		if (c.Err() != nil) != (tc.wantReads > 0 && tc.err != nil) {
			t.Errorf("%s: Err() = %v", tc.name, c.Err())
		}
	}
}

// TestDecideWith: a decision on another object (a copy's source) sees
// that object's tags, not the request's own, and leaves the request's
// for the decisions after it.
func TestDecideWith(t *testing.T) {
	who := user(t, "bob", stmt("Allow", "s3:GetObject", "*", `{"StringEquals":{"s3:ExistingObjectTag/class":"public"}}`))
	ownReads := 0
	in := &Request{Principal: who, HTTP: httptest.NewRequest("GET", "/b/k", nil),
		ExistingTags: TagsFunc(func() (map[string]string, error) { ownReads++; return map[string]string{"class": "public"}, nil })}
	c := New(acct, Options{}).Prepare(in)
	src := func(tags map[string]string) Tags {
		return TagsFunc(func() (map[string]string, error) { return tags, nil })
	}
	if got := c.DecideWith(src(nil), "s3:GetObject", ObjectARN("src", "a"), nil); got != policy.ImplicitDeny {
		t.Errorf("untagged source: %v", got)
	}
	if ownReads != 0 {
		t.Errorf("the source's decision read the request's own tags")
	}
	if got := c.Decide("s3:GetObject", ObjectARN("b", "k"), nil); got != policy.Allowed {
		t.Errorf("the request's own object after the source's: %v", got)
	}
	if got := c.DecideWith(src(map[string]string{"class": "secret"}), "s3:GetObject", ObjectARN("src", "a"), nil); got != policy.ImplicitDeny {
		t.Errorf("a source tagged otherwise, after the own tags were loaded: %v", got)
	}
	if got := c.DecideWith(src(map[string]string{"class": "public"}), "s3:GetObject", ObjectARN("src", "b"), nil); got != policy.Allowed {
		t.Errorf("a public source: %v", got)
	}
	if got := c.Decide("s3:GetObject", ObjectARN("b", "k"), nil); got != policy.Allowed || ownReads != 1 {
		t.Errorf("the own tags after the sources: %v, read %d times", got, ownReads)
	}
	if got := New(acct, Options{}).Prepare(&Request{Principal: Root, HTTP: in.HTTP}).DecideWith(nil, "s3:GetObject", "x", nil); got != policy.Allowed {
		t.Errorf("root: %v", got)
	}
}

// TestTagKeysOfOneName: tag keys that differ only in case are one
// condition key holding every value, so a Deny on one value always
// applies, whatever order the tags come in (a review finding: it used to
// depend on map order).
func TestTagKeysOfOneName(t *testing.T) {
	who := user(t, "bob",
		stmt("Allow", "s3:PutObject", "*", ""),
		stmt("Deny", "s3:PutObject", "*", `{"StringEquals":{"s3:RequestObjectTag/Class":"secret"}}`))
	a := New(acct, Options{})
	for i := range 50 {
		r := httptest.NewRequest("PUT", "/b/k", nil)
		r.Header.Set("X-Amz-Tagging", "Class=secret&class=public&CLASS=other")
		if d := a.Prepare(&Request{Principal: who, HTTP: r}).Decide("s3:PutObject", ObjectARN("b", "k"), nil); d != policy.ExplicitDeny {
			t.Fatalf("try %d: %v, want ExplicitDeny", i, d)
		}
	}
}

// TestSessions: a role session's condition keys and policies, a user
// session's, and trust decisions for the root.
func TestSessions(t *testing.T) {
	issued := time.Date(2026, 11, 24, 11, 0, 0, 0, time.UTC)
	a := New(acct, Options{Now: func() time.Time { return issued.Add(time.Hour) }})
	roleARN := "arn:aws:iam::" + acct + ":role/reader"
	conds := stmt("Allow", "s3:GetObject", "arn:aws:s3:::b/*", `{
		"StringEquals":{"aws:PrincipalType":"AssumedRole","aws:userid":"AROAREADER:app","aws:PrincipalArn":"`+roleARN+`",
			"aws:MultiFactorAuthPresent":"false"},
		"DateEquals":{"aws:TokenIssueTime":"2026-11-24T11:00:00Z"},
		"Null":{"aws:username":"true"}}`)
	role := &iam.Principal{ARN: roleARN, UserID: "AROAREADER", UserName: "reader", Account: acct,
		Policies: []*policy.Compiled{compile(t, policy.Identity, conds), compile(t, policy.Identity, stmt("Allow", "s3:PutObject", "*", ""))}}
	who := Principal{Type: policy.AssumedRole, User: role, Session: &Session{
		ARN: "arn:aws:sts::" + acct + ":assumed-role/reader/app", UserID: "AROAREADER:app", Issued: issued,
		Policy: compile(t, policy.Identity, stmt("Allow", "s3:GetObject", "*", "")),
	}}
	c := a.Prepare(&Request{Principal: who, HTTP: httptest.NewRequest(http.MethodGet, "/b/k", nil)})
	if d := c.Decide("s3:GetObject", "arn:aws:s3:::b/k", nil); d != policy.Allowed {
		t.Errorf("GetObject by the role session: %v", d)
	}
	if d := c.Decide("s3:PutObject", "arn:aws:s3:::b/k", nil); d != policy.ImplicitDeny {
		t.Errorf("PutObject, allowed by the role, not by the session policy: %v", d)
	}
	namesRole := compile(t, policy.Resource, bucketStmt("Allow", `{"AWS":"`+roleARN+`"}`, "s3:GetObject", "arn:aws:s3:::c/*", ""))
	if d := c.Decide("s3:GetObject", "arn:aws:s3:::c/k", namesRole); d != policy.Allowed {
		t.Errorf("a bucket policy naming the role: %v", d)
	}
	if n := who.Name(); n != who.Session.ARN {
		t.Errorf("Name %q", n)
	}

	// A user's session: the user's keys and aws:TokenIssueTime.
	u := user(t, "ann", stmt("Allow", "s3:GetObject", "*", `{"StringEquals":{"aws:username":"ann","aws:PrincipalType":"User"},
		"DateLessThan":{"aws:TokenIssueTime":"2026-11-24T11:00:01Z"}}`))
	u.Session = &Session{Issued: issued}
	c = a.Prepare(&Request{Principal: u, HTTP: httptest.NewRequest(http.MethodGet, "/b/k", nil)})
	if d := c.Decide("s3:GetObject", "arn:aws:s3:::b/k", nil); d != policy.Allowed {
		t.Errorf("GetObject by a user's session: %v", d)
	}
	u.Session = nil
	c = a.Prepare(&Request{Principal: u, HTTP: httptest.NewRequest(http.MethodGet, "/b/k", nil)})
	if d := c.Decide("s3:GetObject", "arn:aws:s3:::b/k", nil); d != policy.ImplicitDeny {
		t.Errorf("the same policy for long-term keys (no aws:TokenIssueTime): %v", d)
	}

	// The root assumes only roles whose trust policy trusts the account.
	c = a.Prepare(&Request{Principal: Root, HTTP: httptest.NewRequest(http.MethodPost, "/", nil)})
	trustsAccount := compile(t, policy.Trust, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::`+acct+`:root"},"Action":"sts:AssumeRole"}]}`)
	trustsAnn := compile(t, policy.Trust, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::`+acct+`:user/ann"},"Action":"sts:AssumeRole"}]}`)
	if d := c.DecideAssumeRole(roleARN, trustsAccount); d != policy.Allowed {
		t.Errorf("root, a role trusting the account: %v", d)
	}
	if d := c.DecideAssumeRole(roleARN, trustsAnn); d != policy.ImplicitDeny {
		t.Errorf("root, a role trusting ann only: %v", d)
	}
	c = a.Prepare(&Request{Principal: u, HTTP: httptest.NewRequest(http.MethodPost, "/", nil)})
	if d := c.DecideAssumeRole(roleARN, trustsAnn); d != policy.Allowed {
		t.Errorf("ann, named by the trust policy, with no identity policy for it: %v", d)
	}
	if d := c.DecideAssumeRole(roleARN, trustsAccount); d != policy.ImplicitDeny {
		t.Errorf("ann, the trust policy naming the account, no identity policy for it: %v", d)
	}
}

// TestDecideACLs: an ACL's allow counts after the bucket policy and the
// identity policies denied nothing; an explicit Deny in either wins.
func TestDecideACLs(t *testing.T) {
	a := New(acct, Options{})
	const obj = "arn:aws:s3:::b/k"
	aclAllow := compile(t, policy.Resource, bucketStmt("Allow", `"*"`, "s3:GetObject", obj, ""))
	denyBucket := compile(t, policy.Resource, bucketStmt("Deny", `"*"`, "s3:GetObject", obj, ""))
	cases := []struct {
		name string
		who  Principal
		bp   *policy.Compiled
		acls []*policy.Compiled
		want policy.Decision
	}{
		{"anonymous, no ACL", Anonymous, nil, nil, policy.ImplicitDeny},
		{"anonymous, nil ACL", Anonymous, nil, []*policy.Compiled{nil}, policy.ImplicitDeny},
		{"anonymous, ACL allows", Anonymous, nil, []*policy.Compiled{nil, aclAllow}, policy.Allowed},
		{"bucket policy denies", Anonymous, denyBucket, []*policy.Compiled{aclAllow}, policy.ExplicitDeny},
		{"user without policies, ACL allows", user(t, "u"), nil, []*policy.Compiled{aclAllow}, policy.Allowed},
		{"identity policy denies", user(t, "d", stmt("Deny", "s3:GetObject", "*", "")), nil, []*policy.Compiled{aclAllow}, policy.ExplicitDeny},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "/b/k", nil)
		ck := a.Prepare(&Request{Principal: c.who, HTTP: r})
		if got := ck.Decide("s3:GetObject", obj, c.bp, c.acls...); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		if got := ck.Denied(); (got != "") != (c.want != policy.Allowed) {
			t.Errorf("%s: Denied() = %q", c.name, got)
		}
	}
}

// TestSourceIP: what denial logs name as the source: the peer, or the
// proxy's last X-Forwarded-For address when trusted.
func TestSourceIP(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/b/k", nil)
	r.RemoteAddr = "192.0.2.7:4711"
	r.Header.Set("X-Forwarded-For", "203.0.113.9, 198.51.100.4")
	if got := New(acct, Options{}).SourceIP(r); got != "192.0.2.7" {
		t.Errorf("untrusted proxy: %q", got)
	}
	if got := New(acct, Options{TrustForwardedFor: true}).SourceIP(r); got != "198.51.100.4" {
		t.Errorf("trusted proxy: %q", got)
	}
}

// TestCurrentTimeEachRequest: aws:CurrentTime is formatted once a second
// and Checks are pooled, yet each request decides on its own time, to
// the second, even when the clock goes back.
func TestCurrentTimeEachRequest(t *testing.T) {
	base := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	var now time.Time
	a := New(acct, Options{Now: func() time.Time { return now }})
	who := user(t, "bob", stmt("Allow", "s3:GetObject", "*", `{"DateLessThan":{"aws:CurrentTime":"2027-01-01T00:00:01Z"}}`))
	r := httptest.NewRequest("GET", "/b/k", nil)
	for i, tc := range []struct {
		at   time.Duration
		want policy.Decision
	}{
		{900 * time.Millisecond, policy.Allowed},
		{999 * time.Millisecond, policy.Allowed},
		{1000 * time.Millisecond, policy.ImplicitDeny},
		{1200 * time.Millisecond, policy.ImplicitDeny},
		{500 * time.Millisecond, policy.Allowed},
		{-time.Hour, policy.Allowed},
		{time.Hour, policy.ImplicitDeny},
	} {
		now = base.Add(tc.at).In(time.FixedZone("X", 3600))
		if got, want := a.currentTime(now), now.UTC().Format(time.RFC3339); got != want {
			t.Errorf("%d: currentTime %q, want %q", i, got, want)
		}
		c := a.Prepare(&Request{Principal: who, HTTP: r})
		if d := c.Decide("s3:GetObject", ObjectARN("b", "k"), nil); d != tc.want {
			t.Errorf("%d: at %v: %v, want %v", i, tc.at, d, tc.want)
		}
		c.Release()
	}
}

// TestKeysPerAction: a Check fills the keys of the statements about the
// action decided; a later decision on another action, of the same
// request, fills those its statements read; and a pooled Check reused
// for another request reads that request's values, not the last one's.
func TestKeysPerAction(t *testing.T) {
	who := user(t, "bob", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"},
		{"Effect":"Allow","Action":"s3:PutObjectTagging","Resource":"*","Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}},
		{"Effect":"Deny","Action":"s3:DeleteObject","Resource":"*","Condition":{"StringLike":{"aws:UserAgent":"*bot*"}}},
		{"Effect":"Allow","Action":"s3:DeleteObject","Resource":"*"}]}`)
	a := New(acct, Options{})
	for _, tc := range []struct {
		addr, agent string
		want        [3]policy.Decision // GetObject, PutObjectTagging, DeleteObject
	}{
		{"10.1.2.3:1", "sdk", [3]policy.Decision{policy.Allowed, policy.Allowed, policy.Allowed}},
		{"192.0.2.1:1", "a bot", [3]policy.Decision{policy.Allowed, policy.ImplicitDeny, policy.ExplicitDeny}},
		{"10.9.9.9:1", "", [3]policy.Decision{policy.Allowed, policy.Allowed, policy.Allowed}},
	} {
		r := httptest.NewRequest("PUT", "/b/k", nil)
		r.RemoteAddr = tc.addr
		if tc.agent != "" {
			r.Header.Set("User-Agent", tc.agent)
		}
		c := a.Prepare(&Request{Principal: who, HTTP: r})
		for i, action := range []string{"s3:GetObject", "s3:PutObjectTagging", "s3:DeleteObject"} {
			if d := c.Decide(action, ObjectARN("b", "k"), nil); d != tc.want[i] {
				t.Errorf("%s %q: %s: %v, want %v", tc.addr, tc.agent, action, d, tc.want[i])
			}
		}
		c.Release()
	}
}

// TestHeaderKeys: each header-valued condition key holds its header's
// value, and is absent without the header.
func TestHeaderKeys(t *testing.T) {
	if len(HeaderKeys()) != len(Headers()) {
		t.Fatalf("%d keys, %d headers", len(HeaderKeys()), len(Headers()))
	}
	for _, k := range HeaderKeys() {
		who := user(t, "bob", stmt("Allow", "s3:PutObject", "*", `{"StringEquals":{"`+k+`":"v1"}}`))
		for _, tc := range []struct {
			value string
			want  policy.Decision
		}{{"v1", policy.Allowed}, {"v2", policy.ImplicitDeny}, {"", policy.ImplicitDeny}} {
			r := httptest.NewRequest("PUT", "/b/k", nil)
			if tc.value != "" {
				r.Header.Set(headerKeys[k], tc.value)
			}
			if got := New(acct, Options{}).Prepare(&Request{Principal: who, HTTP: r}).Decide("s3:PutObject", ObjectARN("b", "k"), nil); got != tc.want {
				t.Errorf("%s, %s %q: %v, want %v", k, headerKeys[k], tc.value, got, tc.want)
			}
		}
	}
}

// TestDecideService: the logging service is allowed by a bucket policy
// naming it, with aws:SourceArn and aws:SourceAccount the source bucket's
// and the account; not by one naming the account or a user, nor without
// a policy.
func TestDecideService(t *testing.T) {
	a := New(acct, Options{})
	named := bucketStmt("Allow", `{"Service":"`+LoggingService+`"}`, "s3:PutObject", "arn:aws:s3:::logs/p/*",
		`{"ArnLike":{"aws:SourceArn":"arn:aws:s3:::src"},"StringEquals":{"aws:SourceAccount":"`+acct+`"}}`)
	for _, c := range []struct {
		name, doc, key, source string
		want                   policy.Decision
	}{
		{"named, its source", named, "p/2026-01-01", "src", policy.Allowed},
		{"named, another source", named, "p/2026-01-01", "other", policy.ImplicitDeny},
		{"named, another prefix", named, "q/2026-01-01", "src", policy.ImplicitDeny},
		{"the account", bucketStmt("Allow", `{"AWS":"`+acct+`"}`, "s3:PutObject", "arn:aws:s3:::logs/*", ""), "p/x", "src", policy.ImplicitDeny},
		{"a user", bucketStmt("Allow", `{"AWS":"arn:aws:iam::`+acct+`:user/bob"}`, "s3:PutObject", "arn:aws:s3:::logs/*", ""), "p/x", "src", policy.ImplicitDeny},
		{"denied", bucketStmt("Deny", `{"Service":"`+LoggingService+`"}`, "s3:PutObject", "arn:aws:s3:::logs/*", ""), "p/x", "src", policy.ExplicitDeny},
		{"no policy", "", "p/x", "src", policy.ImplicitDeny},
	} {
		var p *policy.Compiled
		if c.doc != "" {
			p = compile(t, policy.Resource, c.doc)
		}
		if got := a.DecideService(LoggingService, "s3:PutObject", ObjectARN("logs", c.key), BucketARN(c.source), p); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
