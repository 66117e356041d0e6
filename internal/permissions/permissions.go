// Package permissions answers what the caller may do on a bucket or an
// object: JOG's GetBucketPermissions and GetObjectPermissions
// (GET /{bucket}?permissions&actions=… and GET /{bucket}/{key}?permissions&actions=…).
// The web console asks it which buttons to offer instead of probing with
// requests that would change something if allowed.
//
// This package owns the request's form (Parse) and the answer (Answer);
// the decisions are the S3 edge's own (internal/s3api, through
// internal/authz), the very code that authorizes a real request on the
// same resource. The question names no principal: the answer is always
// about the one who signed it.
package permissions

import (
	"encoding/xml"
	"net/url"
	"strings"

	"github.com/jogstore/jog/internal/s3doc"
)

// Param is the query parameter that routes the request; ActionsParam
// names the actions asked about, comma-separated.
const (
	Param        = "permissions"
	ActionsParam = "actions"
)

// MaxActions is how many actions one request may ask about.
const MaxActions = 64

// Error is a request this package refuses: 400 InvalidArgument with
// its message (s3api.ClientError).
type Error = s3doc.RuleError

// Parse reads the actions a request asks about from its query: each one
// known (an IAM action some operation needs), at most MaxActions, none
// twice. Any parameter but Param, ActionsParam and a presigned URL's
// X-Amz-* is refused, so that a request that means to ask about another
// principal ("?permissions&user=bob") is told it cannot rather than
// answered about its caller.
func Parse(q url.Values, known func(action string) bool) ([]string, error) {
	for k := range q {
		if k != Param && k != ActionsParam && !strings.HasPrefix(strings.ToLower(k), "x-amz-") {
			return nil, s3doc.InvalidArgument("A permissions request takes only %s=ACTION,ACTION…; %q is not one of its parameters (the answer is always about the caller's own permissions).", ActionsParam, k)
		}
	}
	if len(q[ActionsParam]) != 1 || q.Get(ActionsParam) == "" {
		return nil, s3doc.InvalidArgument("Name the actions to ask about once: %s=s3:GetObject,s3:PutObject (at most %d).", ActionsParam, MaxActions)
	}
	list := strings.Split(q.Get(ActionsParam), ",")
	if len(list) > MaxActions {
		return nil, s3doc.InvalidArgument("At most %d actions in one request; this one names %d.", MaxActions, len(list))
	}
	seen := make(map[string]bool, len(list))
	for i, a := range list {
		a = strings.TrimSpace(a)
		switch {
		case !known(a):
			return nil, s3doc.InvalidArgument("%q is not an action of any operation this server serves (an action is spelled as in a policy: s3:PutObject, jog:CreateReservation; no wildcards).", a)
		case seen[a]:
			return nil, s3doc.InvalidArgument("%q is asked about twice.", a)
		}
		seen[a] = true
		list[i] = a
	}
	return list, nil
}

// Answer is the XML answer: the caller's ARN, the resource decided on,
// each action asked about with whether it is allowed, and (on a bucket)
// whether the server has event notification targets, without which no
// notification can be configured.
type Answer struct {
	XMLName     xml.Name     `xml:"Permissions"`
	Xmlns       string       `xml:"xmlns,attr,omitempty"`
	Principal   string       `xml:"Principal"`
	Resource    string       `xml:"Resource"`
	Permissions []Permission `xml:"Permission"`
	// NotificationTargets is set on a bucket's answer only.
	NotificationTargets *bool `xml:"NotificationTargets,omitempty"`
}

// Permission is one action's answer.
type Permission struct {
	Action  string `xml:"Action"`
	Allowed bool   `xml:"Allowed"`
}

// Decide fills the answer for actions with allowed's decisions, in the
// order they were asked; an error of allowed (a bucket's policy that
// could not be read) is the request's.
func Decide(actions []string, allowed func(action string) (bool, error)) ([]Permission, error) {
	out := make([]Permission, len(actions))
	for i, a := range actions {
		ok, err := allowed(a)
		if err != nil {
			return nil, err
		}
		out[i] = Permission{Action: a, Allowed: ok}
	}
	return out, nil
}
