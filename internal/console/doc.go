// Package console is the back end of the web console `jog server` serves
// at /console/ (docs/CONSOLE-api.md, ADR 0023). It has no privileged
// path: signing in exchanges an access key and secret for temporary
// credentials of that principal (an STS session of the root or the IAM
// user), kept in a sealed cookie, and every action the UI takes is an
// ordinary S3 or IAM request, signed with those credentials and served
// by the server's own handler chain in process (authentication,
// authorization, metrics, logs), bodies streamed both ways.
//
//	console.go  Config, Handler: routing under /console/, JSON errors
//	session.go  sign-in, sign-out, the sealed cookie, CSRF
//	guard.go    the sign-in throttle and the signed-out sessions
//	revoke.go   sign-outs recorded in the store, read from it by every gateway
//	proxy.go    /console/api/s3/… and /console/api/iam, presign, metrics
//	static.go   the embedded UI (internal/console/ui): caching, gzip, CSP
//
// The UI itself is package ui, built by its own owner; this package only
// serves its files.
package console
