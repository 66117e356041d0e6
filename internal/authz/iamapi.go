package authz

import (
	"net/http"

	"github.com/jogstore/jog/internal/iam/policy"
)

// DecideIAM decides an IAM API request of an IAM user or a role session:
// action ("iam:CreateUser") on resource (the IAM ARN it acts on, "*" for
// a listing) under its identity policies, permissions boundary and
// session policy, as AWS evaluates them (IAM entities have no resource
// policies). The condition keys are those of any request (aws:username,
// aws:SourceIp, aws:CurrentTime, …), so ${aws:username} in a Resource
// confines a user to its own entity, and IAM's own keys of the request
// (iam:PolicyARN, iam:PermissionsBoundary), given.
func (a *Authorizer) DecideIAM(r *http.Request, who Principal, action, resource string, keys policy.Context) policy.Decision {
	c := a.Prepare(&Request{Principal: who, HTTP: r})
	if len(keys) > 0 {
		c.pr.Context = make(policy.Context, len(keys))
		for k, v := range keys {
			c.pr.Context[k] = v // fill sets only the keys not set
		}
	}
	return c.Decide(action, resource, nil)
}
