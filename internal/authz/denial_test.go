package authz

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/iam/policy"
)

// TestDenialReasons: each kind of policy that can refuse, explicitly or
// by allowing nothing, is the one a denial names; an allowed decision
// leaves no denial.
func TestDenialReasons(t *testing.T) {
	a := New(acct, Options{})
	const obj = "arn:aws:s3:::b/k"
	allowAll := stmt("Allow", "s3:*", "*", "")
	allowList := stmt("Allow", "s3:ListBucket", "*", "")
	denyGet := stmt("Deny", "s3:GetObject", "*", "")
	bucketDeny := compile(t, policy.Resource, bucketStmt("Deny", `"*"`, "s3:GetObject", "arn:aws:s3:::b/*", ""))
	bucketAllow := compile(t, policy.Resource, bucketStmt("Allow", `"*"`, "s3:GetObject", "arn:aws:s3:::b/*", ""))
	bucketOther := compile(t, policy.Resource, bucketStmt("Allow", `"*"`, "s3:PutObject", "arn:aws:s3:::b/*", ""))

	withBoundary := func(p Principal, doc string) Principal {
		u := *p.User
		u.Boundary = compile(t, policy.Identity, doc)
		p.User = &u
		return p
	}
	roleARN := "arn:aws:iam::" + acct + ":role/r"
	sessionARN := "arn:aws:sts::" + acct + ":assumed-role/r/s"
	session := func(doc string) Principal {
		role := &iam.Principal{ARN: roleARN, UserID: "AROAR", UserName: "r", Account: acct,
			Policies: []*policy.Compiled{compile(t, policy.Identity, allowAll)}}
		return Principal{Type: policy.AssumedRole, User: role, Session: &Session{ARN: sessionARN, UserID: "AROAR:s",
			Policy: compile(t, policy.Identity, doc)}}
	}
	userARN := "arn:aws:iam::" + acct + ":user/u"

	cases := []struct {
		name      string
		who       Principal
		bp        *policy.Compiled
		acls      []*policy.Compiled
		principal string
		want      policy.Outcome
	}{
		{"user without an allow", user(t, "u", allowList), nil, nil, userARN,
			policy.Outcome{Decision: policy.ImplicitDeny, Source: policy.IdentityPolicy}},
		{"user, a bucket policy allowing another action", user(t, "u"), bucketOther, nil, userARN,
			policy.Outcome{Decision: policy.ImplicitDeny, Source: policy.IdentityPolicy}},
		{"user, an ACL that allows nothing to them", user(t, "u"), nil, []*policy.Compiled{bucketOther}, userARN,
			policy.Outcome{Decision: policy.ImplicitDeny, Source: policy.IdentityPolicy}},
		{"Deny in the bucket policy", user(t, "u", allowAll), bucketDeny, nil, userARN,
			policy.Outcome{Decision: policy.ExplicitDeny, Source: policy.ResourcePolicy}},
		{"Deny in the bucket policy, an ACL allowing", user(t, "u"), bucketDeny, []*policy.Compiled{bucketAllow}, userARN,
			policy.Outcome{Decision: policy.ExplicitDeny, Source: policy.ResourcePolicy}},
		{"Deny in an identity policy", user(t, "u", allowAll, denyGet), nil, nil, userARN,
			policy.Outcome{Decision: policy.ExplicitDeny, Source: policy.IdentityPolicy}},
		{"Deny in an identity policy, a bucket policy allowing", user(t, "u", denyGet), bucketAllow, nil, userARN,
			policy.Outcome{Decision: policy.ExplicitDeny, Source: policy.IdentityPolicy}},
		{"boundary allows nothing of it", withBoundary(user(t, "u", allowAll), allowList), nil, nil, userARN,
			policy.Outcome{Decision: policy.ImplicitDeny, Source: policy.Boundary}},
		{"Deny in the boundary", withBoundary(user(t, "u", allowAll), denyGet), nil, nil, userARN,
			policy.Outcome{Decision: policy.ExplicitDeny, Source: policy.Boundary}},
		{"session policy allows nothing of it", session(allowList), nil, nil, sessionARN,
			policy.Outcome{Decision: policy.ImplicitDeny, Source: policy.SessionPolicy}},
		{"Deny in the session policy", session(denyGet), nil, nil, sessionARN,
			policy.Outcome{Decision: policy.ExplicitDeny, Source: policy.SessionPolicy}},
		{"anonymous, no policy", Anonymous, nil, nil, "",
			policy.Outcome{Decision: policy.ImplicitDeny, Source: policy.ResourcePolicy}},
		{"anonymous, Deny in the bucket policy", Anonymous, bucketDeny, []*policy.Compiled{bucketAllow}, "",
			policy.Outcome{Decision: policy.ExplicitDeny, Source: policy.ResourcePolicy}},
		{"user allowed", user(t, "u", allowAll), nil, nil, userARN, policy.Outcome{Decision: policy.Allowed}},
		{"session allowed", session(allowAll), nil, nil, sessionARN, policy.Outcome{Decision: policy.Allowed}},
	}
	for _, c := range cases {
		ck := a.Prepare(&Request{Principal: c.who, HTTP: httptest.NewRequest(http.MethodGet, "/b/k", nil)})
		got := ck.Decide("s3:GetObject", obj, c.bp, c.acls...)
		d := ck.Denial()
		if got != c.want.Decision {
			t.Errorf("%s: decision %v, want %v", c.name, got, c.want.Decision)
		}
		allowed := c.want.Decision == policy.Allowed
		want := c.want
		if allowed {
			want = policy.Outcome{} // no denial
		}
		if d.Outcome != want || d.Principal != c.principal {
			t.Errorf("%s: denial %+v, want %v by %v for %q", c.name, d, c.want.Decision, c.want.Source, c.principal)
		}
		if want := !allowed; (d.Action == "s3:GetObject" && d.Resource == obj) != want {
			t.Errorf("%s: denial names %q on %q", c.name, d.Action, d.Resource)
		}
		if want := !allowed && c.principal != ""; d.Explained() != want {
			t.Errorf("%s: Explained() = %v, want %v", c.name, d.Explained(), want)
		}
		ck.Release()
	}
}

// TestDenialLast: a denial is the last decision refused, the action and
// resource it was about, not an earlier one's; a fresh request has none.
func TestDenialLast(t *testing.T) {
	a := New(acct, Options{})
	who := user(t, "u", stmt("Allow", "s3:GetObject", "*", ""), stmt("Deny", "s3:PutObject", "arn:aws:s3:::b/locked/*", ""))
	c := a.Prepare(&Request{Principal: who, HTTP: httptest.NewRequest(http.MethodPut, "/b/k", nil)})
	c.Decide("s3:DeleteObject", ObjectARN("b", "k"), nil)
	c.Decide("s3:PutObject", ObjectARN("b", "locked/k"), nil)
	d := c.Denial()
	if d.Action != "s3:PutObject" || d.Resource != ObjectARN("b", "locked/k") || d.Decision != policy.ExplicitDeny || d.Source != policy.IdentityPolicy {
		t.Errorf("last denial %+v", d)
	}
	c.Release()
	c = a.Prepare(&Request{Principal: who, HTTP: httptest.NewRequest(http.MethodGet, "/b/k", nil)})
	if d := c.Denial(); d.Action != "" || d.Explained() {
		t.Errorf("a new request's denial %+v", d)
	}
	// A role's trust policy that does not name the caller: the
	// resource-based policy allows nothing.
	trust := compile(t, policy.Trust, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::`+acct+`:user/other"},"Action":"sts:AssumeRole"}]}`)
	roleARN := "arn:aws:iam::" + acct + ":role/r"
	c.DecideAssumeRole(roleARN, trust)
	if d := c.Denial(); d.Action != "sts:AssumeRole" || d.Resource != roleARN || d.Source != policy.ResourcePolicy || d.Decision != policy.ImplicitDeny {
		t.Errorf("AssumeRole denial %+v", d)
	}
}
