package s3api

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/jogstore/jog/internal/acl"
	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/service"
	"github.com/jogstore/jog/internal/sigv2"
	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/tagging"
)

// credentials is what signatures are verified against: the root's static
// keys first, then the IAM users' active keys.
type credentials struct {
	root sigv4.Credentials
	iam  *iam.Service // nil: the root's keys only
}

func (c credentials) SecretKey(id string) (string, bool) {
	if s, ok := c.root.SecretKey(id); ok {
		return s, true
	}
	if c.iam != nil {
		return c.iam.SecretKey(id)
	}
	return "", false
}

// principal is who signed with access key id: the root for the configured
// keys, else the IAM user the key belongs to.
func (h *Handler) principal(r *http.Request, id string) (authz.Principal, error) {
	if _, ok := h.cfg.Credentials.SecretKey(id); ok {
		return authz.Root, nil
	}
	if h.cfg.IAM == nil {
		return authz.Principal{}, sigv4.ErrInvalidAccessKeyID
	}
	p, err := h.cfg.IAM.Principal(r.Context(), id)
	if errors.Is(err, iam.ErrNoSuchKey) {
		// Disabled or deleted between the signature check and now.
		return authz.Principal{}, sigv4.ErrInvalidAccessKeyID
	}
	if err != nil {
		return authz.Principal{}, err
	}
	return authz.Principal{Type: policy.User, User: p}, nil
}

// authorize decides the request's route for its principal: the route's
// actions on its bucket or object and, for a copy, the source's action on
// the source. The root is allowed without a look at any policy.
// DeleteObjects is decided key by key (authorizeKey), not here. A route
// without actions (no S3 operation, or one JOG does not implement) is
// refused to anonymous requests here and to others by serve.
func (h *Handler) authorize(r *request) error {
	if r.who.IsRoot() {
		return nil
	}
	rt := r.route
	actions := rt.Actions()
	switch {
	case rt.Op == OpDeleteObjects:
		// Only a bucket policy or ACL can allow anything to an anonymous
		// request: without one its keys need not be read to refuse them all.
		if r.who.Type == policy.Anonymous {
			acc, err := h.bucketAccess(r, rt.Bucket)
			if err != nil {
				return err
			}
			if !acc.MayAllowAnonymous() {
				return h.denied(r, authz.BucketARN(rt.Bucket))
			}
		}
		return h.prepare(r)
	case len(actions) == 0 && r.who.Type == policy.Anonymous:
		return h.denied(r, "")
	case len(actions) == 0:
		return nil
	}
	if err := h.prepare(r); err != nil {
		return err
	}
	resource := authz.ServiceARN
	var acc *service.Access
	if rt.Bucket != "" {
		resource = authz.BucketARN(rt.Bucket)
		if rt.Key != "" {
			resource = authz.ObjectARN(rt.Bucket, rt.Key)
		}
		var err error
		if acc, err = h.bucketAccess(r, rt.Bucket); err != nil {
			return err
		}
	}
	// An existing object's ACL counts for the operations on it (its
	// version is the request's, read only if the ACL is).
	obj := objectACL{bucket: rt.Bucket, key: rt.Key, requested: true}
	if rt.Key == "" || newObjectOps.has(rt.Op) {
		obj = objectACL{}
	}
	for _, a := range actions {
		if err := h.decide(r, a, resource, acc, &obj); err != nil {
			return err
		}
	}
	for _, a := range headerActions(rt.Op, r.Header) {
		if err := h.decide(r, a, resource, acc, &obj); err != nil {
			return err
		}
	}
	if src := rt.SourceAction(); src != "" {
		b, k, v, err := parseCopySource(r.Header.Get("X-Amz-Copy-Source"))
		if err != nil {
			return err
		}
		sacc, err := h.bucketAccess(r, b)
		if err != nil {
			return err
		}
		// The source's own version ID is not the request's s3:VersionId.
		resource = authz.ObjectARN(b, k)
		return h.decide(r, src, resource, sacc, &objectACL{bucket: b, key: k, version: v})
	}
	return nil
}

// objectACL is an existing object whose ACL may allow a request, read
// once when a decision needs it (key "": none). requested: the version is
// the request's versionId, not version.
type objectACL struct {
	bucket, key, version string
	requested            bool
	loaded               bool
	p                    *policy.Compiled
}

// decide allows action on resource or answers AccessDenied: the identity
// policies, the bucket's policy and ACL and, when those do not allow it
// and the bucket's object ACLs count, the object's ACL.
func (h *Handler) decide(r *request, action, resource string, acc *service.Access, obj *objectACL) error {
	anon := r.who.Type == policy.Anonymous
	bacl, objACLs := acc.ACL(), acc.ObjectACLs()
	if acc.Restricts(anon) {
		bacl, objACLs = nil, false
	}
	d := r.check.Decide(action, resource, acc.Policy(anon), bacl)
	if d == policy.ImplicitDeny && obj.key != "" && objACLs {
		if !obj.loaded {
			p, err := h.loadObjectACL(r, obj)
			if err != nil {
				return err
			}
			obj.p, obj.loaded = p, true
		}
		if obj.p != nil {
			d = r.check.Decide(action, resource, acc.Policy(anon), obj.p)
		}
	}
	if d != policy.Allowed {
		return h.denied(r, resource)
	}
	return nil
}

// loadObjectACL reads an object's ACL and compiles its allows: nil when
// the object does not exist (the operation answers for that) or grants
// nothing that counts.
func (h *Handler) loadObjectACL(r *request, obj *objectACL) (*policy.Compiled, error) {
	version := obj.version
	if obj.requested {
		version = r.URL.Query().Get("versionId")
	}
	o, err := h.svc.HeadObject(r.Context(), obj.bucket, obj.key, version, false)
	if err != nil {
		if _, known := toAPIError(err); known {
			return nil, nil
		}
		return nil, err
	}
	if o.ACL == "" {
		return nil, nil
	}
	grants, err := acl.Decode(o.ACL, "")
	if err != nil {
		return nil, err
	}
	return acl.Compile(grants, authz.ObjectARN(obj.bucket, obj.key), authz.BucketARN(obj.bucket), true), nil
}

// authorizeKey decides one key of a DeleteObjects request: nil or
// errAccessDenied.
func (h *Handler) authorizeKey(r *request, key, version string) error {
	if r.who.IsRoot() {
		return nil
	}
	acc, err := h.bucketAccess(r, r.route.Bucket)
	if err != nil {
		return err
	}
	actions := deleteKeyActions
	if version != "" {
		actions = deleteVersionActions
	}
	r.check.SetVersion(version)
	resource := authz.ObjectARN(r.route.Bucket, key)
	// Deleting is granted by the bucket's ACL (WRITE), never an object's.
	var none objectACL
	for _, a := range actions {
		if err := h.decide(r, a, resource, acc, &none); err != nil {
			return err
		}
	}
	for _, a := range headerActions(OpDeleteObjects, r.Header) {
		if err := h.decide(r, a, resource, acc, &none); err != nil {
			return err
		}
	}
	return nil
}

// headerActions are the actions S3 requires beyond an operation's own
// when the request carries certain headers: bypassing a GOVERNANCE
// retention (s3:BypassGovernanceRetention) on deletes and retention
// changes; and, on writes of a new object, setting its retention
// (s3:PutObjectRetention), legal hold (s3:PutObjectLegalHold) or tags
// (s3:PutObjectTagging) through x-amz-object-lock-* and x-amz-tagging,
// or its ACL (s3:PutObjectAcl) through x-amz-acl and x-amz-grant-*; and,
// on CreateBucket, setting its ACL (s3:PutBucketAcl) or its Object
// Ownership (s3:PutBucketOwnershipControls).
// PostObject's form fields are not headers: a form's lock and tagging
// fields are not checked here yet.
func headerActions(op Op, hdr http.Header) []string {
	var acts []string
	switch op {
	case OpDeleteObject, OpDeleteObjects, OpPutObjectRetention:
		if bypassGovernance(hdr) {
			acts = append(acts, "s3:BypassGovernanceRetention")
		}
	case OpCreateBucket: // its API reference, "Permissions"
		if acl.HasHeaders(hdr) {
			acts = append(acts, "s3:PutBucketAcl")
		}
		if hdr.Get("X-Amz-Object-Ownership") != "" {
			acts = append(acts, "s3:PutBucketOwnershipControls")
		}
	case OpPutObject, OpCopyObject, OpCreateMultipartUpload:
		if hdr.Get("X-Amz-Object-Lock-Mode") != "" || hdr.Get("X-Amz-Object-Lock-Retain-Until-Date") != "" {
			acts = append(acts, "s3:PutObjectRetention")
		}
		if hdr.Get("X-Amz-Object-Lock-Legal-Hold") != "" {
			acts = append(acts, "s3:PutObjectLegalHold")
		}
		if hdr.Get("X-Amz-Tagging") != "" {
			acts = append(acts, "s3:PutObjectTagging")
		}
		if acl.HasHeaders(hdr) {
			acts = append(acts, "s3:PutObjectAcl")
		}
	}
	return acts
}

// Handlers in the operations table cannot refer to it in package
// initialisation (the compiler reports a cycle), so what they need of it
// is set in init: the actions of a DeleteObjects entry, DeleteObject's,
// and authorize itself for PostObject, which is authorized once its form
// is read.
var (
	deleteKeyActions     []string
	deleteVersionActions []string
	authorizeForm        func(*Handler, *request) error
)

func init() {
	deleteKeyActions = OpDeleteObject.Actions()
	deleteVersionActions = OpDeleteObjects.VersionActions()
	authorizeForm = (*Handler).authorize
}

// bucketAccess is a bucket's policy, ACL and access settings, nil when
// it does not exist (the operation then answers NoSuchBucket to whoever
// may ask).
func (h *Handler) bucketAccess(r *request, bucket string) (*service.Access, error) {
	if h.svc == nil { // the edge alone, in its unit tests: no bucket has a policy
		return nil, nil
	}
	bp, err := h.svc.BucketAccess(r.Context(), bucket)
	if errors.Is(err, meta.ErrBucketNotFound) {
		return nil, nil
	}
	return bp, err
}

// prepare builds the request's condition keys once.
func (h *Handler) prepare(r *request) error {
	if r.check != nil {
		return nil
	}
	in := &authz.Request{Principal: r.who, HTTP: r.Request, List: listOps.has(r.route.Op)}
	if r.route.Key != "" && !newObjectOps.has(r.route.Op) {
		in.ExistingTags = func() (map[string]string, error) { return h.existingTags(r) }
	}
	switch {
	case r.auth == nil || r.who.Type == policy.Anonymous:
	case r.route.Op == OpPostObject:
		in.SignatureVersion, in.AuthType = authz.SigV4, authz.AuthPOST
		if r.auth.Scope == "" {
			in.SignatureVersion = authz.SigV2
		}
	default:
		in.SignatureVersion, in.AuthType = authz.SigV4, authz.AuthHeader
		if sigv2.IsV2(r.Request) {
			in.SignatureVersion = authz.SigV2
		}
		if r.auth.Presigned {
			in.AuthType = authz.AuthQuery
		}
	}
	r.check = h.authz.Prepare(in)
	return nil
}

// newObjectOps write a new object (or part): they have no existing
// object, so no s3:ExistingObjectTag.
var newObjectOps = opsOf(OpPutObject, OpCopyObject, OpPostObject, OpCreateMultipartUpload, OpUploadPart,
	OpUploadPartCopy, OpCompleteMultipartUpload, OpAbortMultipartUpload, OpListParts)

// existingTags reads the tags of the object version the request names,
// none when there is none.
func (h *Handler) existingTags(r *request) (map[string]string, error) {
	o, err := h.svc.HeadObject(r.Context(), r.route.Bucket, r.route.Key, r.URL.Query().Get("versionId"), false)
	if err != nil {
		if _, known := toAPIError(err); known {
			return nil, nil // no such object, a delete marker, a bad version ID: no tags
		}
		return nil, err
	}
	return tagging.ParseStored(o.Tags).Map(), nil
}

// listOps are the operations whose prefix, delimiter and max-keys are the
// condition keys s3:prefix, s3:delimiter and s3:max-keys.
var listOps = opsOf(OpListObjects, OpListObjectsV2, OpListObjectVersions)

// denied logs a refusal and answers it as S3 does: 403 AccessDenied,
// nothing said of which policy refused.
func (h *Handler) denied(r *request, resource string) error {
	action := ""
	if r.check != nil {
		if err := r.check.Err(); err != nil {
			return err
		}
		action = r.check.Denied()
	}
	h.log.LogAttrs(r.Context(), slog.LevelInfo, "access denied",
		slog.String("id", r.id), slog.String("principal", r.who.Name()),
		slog.String("action", action),
		slog.String("resource", resource), slog.String("source_ip", r.RemoteAddr))
	return errAccessDenied
}
