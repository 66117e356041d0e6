// Package policy is the AWS access policy language: it parses identity,
// bucket (resource) and role trust policies in AWS's JSON grammar, refuses
// malformed ones with the reason IAM or S3 gives, compiles a policy once into
// matchers that evaluate without allocating, and decides a request the way
// AWS does within a single account (explicit deny wins; an allow from an
// identity or the resource policy suffices; permissions boundaries and
// session policies narrow the identity's allow).
//
// The package stands alone: it knows nothing of users, keys, the metadata
// store or HTTP. Its caller builds a Request (who, which action on which
// ARN, and the condition keys of the request) and the Set of compiled
// policies that apply, and asks Evaluate.
//
//	parse.go      JSON → Policy (the grammar; element checks in validate.go)
//	pattern.go    wildcards and policy variables, compiled
//	condition.go  condition operators, compiled and evaluated
//	eval.go       Compile, Request, Set and Evaluate
//
// ADR 0014 records why JOG implements the language itself.
package policy
