// Package s3api is JOG's S3 edge: it parses each HTTP request into a typed
// operation (router.go) described by one table (ops.go: name, IAM actions,
// kind, handler), admits it (admission.go), authenticates it (auth.go),
// dispatches it to a handler that returns an error, and writes every error
// through one mapper (errors.go) that turns domain errors into S3 codes and
// statuses.
package s3api
