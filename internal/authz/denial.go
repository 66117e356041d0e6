package authz

import "github.com/jogstore/jog/internal/iam/policy"

// Denial is a refusal and why: who asked, the action and resource of the
// decision that was not Allowed, and the kind of policy behind it
// (Outcome: an explicit Deny, or no Allow, in an identity-based policy, a
// resource-based one — the bucket policy or an ACL —, the permissions
// boundary or the session policy). The S3 edge answers it as
// AccessDenied, and words it for the caller (internal/s3api/errors.go)
// only when the caller is authenticated: Principal is "" for an
// anonymous request, whose answer says nothing of policies.
//
// It names only what the caller sent (the resource it asked for) and
// what kind of policy decided, never a policy's content.
type Denial struct {
	Principal string // the caller's ARN; "" for an anonymous request
	Action    string // "s3:GetObject"; "" when no decision was made
	Resource  string // "arn:aws:s3:::bucket/key", ServiceARN, or "" for none
	policy.Outcome
}

// Error is the denial for the log.
func (d *Denial) Error() string {
	s := "access denied"
	if d.Action != "" {
		s += ": " + d.Action
	}
	if d.Resource != "" {
		s += " on " + d.Resource
	}
	if d.Source != policy.NoSource {
		s += " (" + d.Decision.String() + " by " + d.Source.String() + ")"
	}
	return s
}

// Explained reports whether the denial says why: an authenticated caller
// refused by a decision.
func (d *Denial) Explained() bool {
	return d.Principal != "" && d.Action != "" && d.Source != policy.NoSource
}
