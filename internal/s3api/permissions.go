package s3api

import (
	"net/http"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/permissions"
)

// The caller's own permissions (JOG extension, internal/permissions):
//
//	GET /{bucket}?permissions&actions=s3:DeleteBucket,s3:PutObject        → Permissions
//	GET /{bucket}/{key}?permissions&actions=s3:PutObject,s3:DeleteObject → Permissions
//
// Each action is decided on the bucket (or the object) as a request of
// the same principal on it would be: the identity policies, the
// permissions boundary, the session policy, the bucket's policy and ACLs
// (the object's, on a key that exists), by allowed, which authorize's
// decisions use too. The request needs no action of its own, as STS's
// GetCallerIdentity: it tells the caller nothing that sending the real
// request would not; anonymous requests are refused (authorize).

func (h *Handler) getPermissions(w http.ResponseWriter, r *request) error {
	actions, err := permissions.Parse(r.query(), func(a string) bool { return knownActions[a] })
	if err != nil {
		return err
	}
	resource := authz.BucketARN(r.route.Bucket)
	if r.route.Key != "" {
		resource = authz.ObjectARN(r.route.Bucket, r.route.Key)
	}
	decide := func(string) (bool, error) { return true, nil } // the root: allowed everything
	if !r.who.IsRoot() {                                      // authorize prepared r.check
		acc, err := h.bucketAccess(r, r.route.Bucket)
		if err != nil {
			return err
		}
		var obj *object // the key's existing object: r.object(), set by prepare
		if r.route.Key != "" {
			obj = &r.own
		}
		decide = func(a string) (bool, error) { return h.allowed(r, a, resource, acc, obj) }
	}
	out := permissions.Answer{Xmlns: s3Namespace, Principal: h.authz.ARN(r.who), Resource: resource}
	if out.Permissions, err = permissions.Decide(actions, decide); err != nil {
		return err
	}
	if r.route.Key == "" {
		targets := h.svc.Notifying()
		out.NotificationTargets = &targets
	}
	return writeXML(w, http.StatusOK, out)
}

// knownActions are the IAM actions a permissions request may ask about:
// those of the operation table's rows (their own, with a version, on a
// copy's source), set in init: the table cannot be read while it is
// initialised.
var knownActions = map[string]bool{}

func init() {
	for o := Op(0); o < numOps; o++ {
		d := &operations[o]
		for _, a := range append(append([]string{d.source, d.version.source}, d.actions...), d.version.actions...) {
			if a != "" {
				knownActions[a] = true
			}
		}
	}
}
