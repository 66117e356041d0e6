package authz

import (
	"strconv"

	"github.com/jogstore/jog/internal/iam/policy"
)

// LoggingService is the service principal of S3 server access log
// delivery: a target bucket takes log objects when its policy allows it
// s3:PutObject (AWS's "Permissions for log delivery").
const LoggingService = "logging.s3.amazonaws.com"

// DecideService decides action on resource for the AWS service principal
// service (LoggingService) acting for the resource sourceARN, under the
// bucket's policy alone: only a statement naming the service, or every
// principal, allows it, and a Deny naming it refuses. The request's
// condition keys are aws:SourceArn (sourceARN), aws:SourceAccount (the
// account), aws:PrincipalServiceName, aws:PrincipalIsAWSService and the
// time's; nil bucketPolicy is ImplicitDeny.
func (a *Authorizer) DecideService(service, action, resource, sourceARN string, bucketPolicy *policy.Compiled) policy.Decision {
	if bucketPolicy == nil {
		return policy.ImplicitDeny
	}
	now := a.opts.Now()
	r := policy.Request{Type: policy.Service, ARN: service, Action: action, Resource: resource, Time: now,
		Context: policy.Context{}}
	r.Context.Set("aws:SourceArn", sourceARN)
	r.Context.Set("aws:SourceAccount", a.account)
	r.Context.Set("aws:PrincipalServiceName", service)
	r.Context.Set("aws:PrincipalIsAWSService", "true")
	r.Context.Set("aws:CurrentTime", a.currentTime(now))
	r.Context.Set("aws:EpochTime", strconv.FormatInt(now.Unix(), 10))
	return policy.Evaluate(&r, &policy.Set{Resource: bucketPolicy})
}
