package s3api

import (
	"github.com/jogstore/jog/internal/acl"
	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/tagging"
)

// object is an existing object version an authorization decision is
// about: its tags are s3:ExistingObjectTag/<key>, and its ACL may allow
// the request. Both come from one HeadObject, made only when a decision
// needs one of them.
type object struct {
	bucket, key, version string
	// requested: the version is the request's versionId (read when the
	// object is).
	requested bool
	// other: not the object the request names (a copy's source, a
	// DeleteObjects key), whose tags replace the request's own for the
	// decisions about it.
	other bool
	// bucketOnly: the object's ACL does not count (deleting is granted by
	// the bucket's ACL only).
	bucketOnly bool

	read bool
	meta *meta.Object // nil: none (or not read yet)
	err  error
}

// newObjectOps write a new object (or part): they have no existing
// object, so no s3:ExistingObjectTag and no object ACL.
var newObjectOps = opsWith(newObject)

// object is the existing object the request names, nil for none (a
// bucket's route, a write of a new object).
func (r *request) object() *object {
	if r.route.Key == "" || newObjectOps.has(r.route.Op) {
		return nil
	}
	if r.own.key == "" {
		r.own = object{bucket: r.route.Bucket, key: r.route.Key, requested: true}
	}
	return &r.own
}

// head reads the object once: nil when there is none (no such object, a
// delete marker, a bad version ID: the operation answers for those).
func (o *object) head(h *Handler, r *request) (*meta.Object, error) {
	if !o.read {
		o.read = true
		if o.requested {
			o.version = r.query().Get("versionId")
		}
		m, err := h.svc.HeadObject(r.Context(), o.bucket, o.key, o.version, false)
		switch _, known := toAPIError(err); {
		case err == nil:
			o.meta = &m
		case !known:
			o.err = err
		}
	}
	return o.meta, o.err
}

// tags are the object's tags, none when there is no object.
func (o *object) tags(h *Handler, r *request) (map[string]string, error) {
	m, err := o.head(h, r)
	if m == nil {
		return nil, err
	}
	return tagging.ParseStored(m.Tags).Map(), nil
}

// acl is the object's ACL compiled into its allows: nil when the object
// does not exist or has no ACL of its own.
func (o *object) acl(h *Handler, r *request) (*policy.Compiled, error) {
	m, err := o.head(h, r)
	if m == nil || m.ACL == "" {
		return nil, err
	}
	grants, err := acl.Decode(m.ACL, "")
	if err != nil {
		return nil, err
	}
	return acl.Compile(grants, authz.ObjectARN(o.bucket, o.key), authz.BucketARN(o.bucket), true), nil
}

// ExistingTags implements authz.Tags: the tags of the object the request
// names, for the decisions about it (prepare).
func (r *request) ExistingTags() (map[string]string, error) { return r.own.tags(r.h, r) }

// decide decides action on resource under the bucket policy bp and an
// ACL (nil: none) with the object's tags as s3:ExistingObjectTag: the
// request's own object's through the Check (authz.Request.ExistingTags),
// another's in their place. A nil object is no object at all.
func (o *object) decide(h *Handler, r *request, action, resource string, bp, acl *policy.Compiled) policy.Decision {
	if o == nil || !o.other {
		return r.check.Decide(action, resource, bp, acl)
	}
	return r.check.DecideWith(authz.TagsFunc(func() (map[string]string, error) { return o.tags(h, r) }), action, resource, bp, acl)
}
