package s3api

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/iam/policy"
)

// TestDenialMessage: a refusal by authorization is 403 AccessDenied in
// every case; an authenticated caller is told the action, the resource
// it asked for and the kind of policy, in AWS's words; an anonymous one,
// or a refusal no decision explains, only "Access Denied".
func TestDenialMessage(t *testing.T) {
	const user = "arn:aws:iam::111122223333:user/alice"
	const obj = "arn:aws:s3:::b/k"
	deny := func(d policy.Decision, s policy.Source) policy.Outcome { return policy.Outcome{Decision: d, Source: s} }
	cases := []struct {
		name string
		d    authz.Denial
		want string
	}{
		{"no identity allow", authz.Denial{Principal: user, Action: "s3:GetObject", Resource: obj, Outcome: deny(policy.ImplicitDeny, policy.IdentityPolicy)},
			`User: arn:aws:iam::111122223333:user/alice is not authorized to perform: s3:GetObject on resource: "arn:aws:s3:::b/k" because no identity-based policy allows the s3:GetObject action`},
		{"identity deny", authz.Denial{Principal: user, Action: "s3:PutObject", Resource: obj, Outcome: deny(policy.ExplicitDeny, policy.IdentityPolicy)},
			`User: arn:aws:iam::111122223333:user/alice is not authorized to perform: s3:PutObject on resource: "arn:aws:s3:::b/k" with an explicit deny in an identity-based policy`},
		{"bucket policy deny", authz.Denial{Principal: user, Action: "s3:GetObject", Resource: obj, Outcome: deny(policy.ExplicitDeny, policy.ResourcePolicy)},
			`User: arn:aws:iam::111122223333:user/alice is not authorized to perform: s3:GetObject on resource: "arn:aws:s3:::b/k" with an explicit deny in a resource-based policy`},
		{"boundary", authz.Denial{Principal: user, Action: "s3:GetObject", Resource: obj, Outcome: deny(policy.ImplicitDeny, policy.Boundary)},
			`User: arn:aws:iam::111122223333:user/alice is not authorized to perform: s3:GetObject on resource: "arn:aws:s3:::b/k" because no permissions boundary allows the s3:GetObject action`},
		{"session deny", authz.Denial{Principal: "arn:aws:sts::111122223333:assumed-role/r/s", Action: "s3:ListBucket", Resource: "arn:aws:s3:::b", Outcome: deny(policy.ExplicitDeny, policy.SessionPolicy)},
			`User: arn:aws:sts::111122223333:assumed-role/r/s is not authorized to perform: s3:ListBucket on resource: "arn:aws:s3:::b" with an explicit deny in a session policy`},
		{"no resource", authz.Denial{Principal: user, Action: "s3:ListAllMyBuckets", Resource: authz.ServiceARN, Outcome: deny(policy.ImplicitDeny, policy.IdentityPolicy)},
			`User: arn:aws:iam::111122223333:user/alice is not authorized to perform: s3:ListAllMyBuckets because no identity-based policy allows the s3:ListAllMyBuckets action`},
		{"anonymous", authz.Denial{Action: "s3:GetObject", Resource: obj, Outcome: deny(policy.ExplicitDeny, policy.ResourcePolicy)}, "Access Denied"},
		{"no decision", authz.Denial{Principal: user, Resource: obj}, "Access Denied"},
	}
	for _, c := range cases {
		d := c.d
		ae, known := toAPIError(fmt.Errorf("wrapped: %w", &d))
		if !known || ae.Code != "AccessDenied" || ae.Status != http.StatusForbidden || ae.Message != c.want {
			t.Errorf("%s: %v %s %d %q\nwant %q", c.name, known, ae.Code, ae.Status, ae.Message, c.want)
		}
	}
}
