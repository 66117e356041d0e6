package s3api

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/jogstore/jog/internal/acl"
	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/bucketrepl"
	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/service"
	"github.com/jogstore/jog/internal/sigv2"
	"github.com/jogstore/jog/internal/sts"
)

// principal is who signed with access key id (session: the verifier's
// Result.Session, for temporary credentials): the root for the configured
// keys, else the IAM user the key belongs to or the session. A session
// whose role or user is gone is denied everything.
func (h *Handler) principal(r *http.Request, id string, session any) (authz.Principal, error) {
	p, err := h.keys.Principal(r.Context(), id, session)
	if errors.Is(err, sts.ErrRevoked) {
		h.log.LogAttrs(r.Context(), slog.LevelInfo, "access denied", slog.String("access_key", id), slog.String("reason", err.Error()))
		return authz.Principal{}, errAccessDenied
	}
	return p, err
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
		// GetBucketPermissions (callerOnly) decides with the prepared
		// request; serve refuses the others.
		return h.prepare(r)
	}
	if err := h.prepare(r); err != nil {
		return err
	}
	resource := authz.ServiceARN
	var acc *service.Access
	if rt.Bucket != "" {
		if rt.Key != "" {
			resource = authz.ObjectARN(rt.Bucket, rt.Key)
		} else {
			resource = authz.BucketARN(rt.Bucket)
		}
		var err error
		if acc, err = h.bucketAccess(r, rt.Bucket); err != nil {
			return err
		}
	}
	// The existing object the request names: its ACL counts for the
	// operations on it, its tags are s3:ExistingObjectTag.
	obj := r.object()
	for _, a := range actions {
		if err := h.decide(r, a, resource, acc, obj); err != nil {
			return err
		}
	}
	for _, a := range headerActions(rt.Op, r.authzHeader()) {
		if err := h.decide(r, a, resource, acc, obj); err != nil {
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
		// The source's own version ID is not the request's s3:VersionId;
		// its tags are s3:ExistingObjectTag for the source's action.
		resource = authz.ObjectARN(b, k)
		return h.decide(r, src, resource, sacc, &object{bucket: b, key: k, version: v, other: true})
	}
	return nil
}

// decide allows action on resource or answers AccessDenied: the identity
// policies, the bucket's policy and ACL and, when those do not allow it
// and the bucket's object ACLs count, the object's ACL. obj is the
// existing object the decision is about (its tags, its ACL), nil for
// none.
func (h *Handler) decide(r *request, action, resource string, acc *service.Access, obj *object) error {
	ok, err := h.allowed(r, action, resource, acc, obj)
	if err != nil {
		return err
	}
	if !ok {
		return h.denied(r, resource)
	}
	return nil
}

// allowed is decide's decision, without the refusal: whether the
// request's principal may do action on resource. GetBucketPermissions
// answers with it.
func (h *Handler) allowed(r *request, action, resource string, acc *service.Access, obj *object) (bool, error) {
	anon := r.who.Type == policy.Anonymous
	bacl, objACLs := acc.ACL(), acc.ObjectACLs()
	if acc.Restricts(anon) {
		bacl, objACLs = nil, false
	}
	bp := acc.Policy(anon)
	d := obj.decide(h, r, action, resource, bp, bacl)
	if d == policy.ImplicitDeny && objACLs && obj != nil && !obj.bucketOnly {
		oacl, err := obj.acl(h, r)
		if err != nil {
			return false, err
		}
		if oacl != nil {
			d = obj.decide(h, r, action, resource, bp, oacl)
		}
	}
	if err := r.check.Err(); err != nil {
		return false, err
	}
	return d == policy.Allowed, nil
}

// anonymousRefusal is what S3 refuses an anonymous request even where a
// policy or ACL allows it: the bucket policy's own operations, which only
// the bucket owner's account may call (405 MethodNotAllowed, as S3 answers
// a caller outside the account), and GET or HEAD with response-*
// overrides, which S3 honours only for signed requests (400).
func anonymousRefusal(r *request) error {
	switch r.route.Op {
	case OpGetBucketPolicy, OpPutBucketPolicy, OpDeleteBucketPolicy:
		return errMethodNotAllowed
	case OpGetObject, OpHeadObject:
		if r.URL.RawQuery == "" {
			return nil
		}
		q := r.query()
		for p := range responseOverrides {
			if q.Has(p) {
				return apiErr(http.StatusBadRequest, "InvalidRequest", "Request specific response headers cannot be used for anonymous GET requests.")
			}
		}
	}
	return nil
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
	// The key's tags are s3:ExistingObjectTag, as for DeleteObject;
	// deleting is granted by the bucket's ACL (WRITE), never an object's.
	obj := &object{bucket: r.route.Bucket, key: key, version: version, other: true, bucketOnly: true}
	for _, a := range actions {
		if err := h.decide(r, a, resource, acc, obj); err != nil {
			return err
		}
	}
	for _, a := range headerActions(OpDeleteObjects, r.Header) {
		if err := h.decide(r, a, resource, acc, obj); err != nil {
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
// or its ACL (s3:PutObjectAcl) through x-amz-acl and x-amz-grant-*; a
// replicated write or delete (bucketrepl.ReplicaHeader, replicaActions); and,
// on CreateBucket, setting its ACL (s3:PutBucketAcl) or its Object
// Ownership (s3:PutBucketOwnershipControls). A PostObject's form fields
// count as its headers (request.authzHTTP).
func headerActions(op Op, hdr http.Header) []string {
	var acts []string
	if replicaOps.has(op) && hdr.Get(bucketrepl.ReplicaHeader) != "" {
		acts = replicaActions(op, acts)
	}
	switch {
	case bypassOps.has(op):
		if bypassGovernance(hdr) {
			acts = append(acts, "s3:BypassGovernanceRetention")
		}
	case op == OpCreateBucket: // its API reference, "Permissions"
		if acl.HasHeaders(hdr) {
			acts = append(acts, "s3:PutBucketAcl")
		}
		if hdr.Get("X-Amz-Object-Ownership") != "" {
			acts = append(acts, "s3:PutBucketOwnershipControls")
		}
		if hdr.Get(QuotaHeader) != "" { // JOG's: a quota set at creation
			acts = append(acts, "jog:PutBucketQuota")
		}
	case headerWrites.has(op):
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
// and headerActions' operations: those that honour
// x-amz-bypass-governance-retention (the wire table), and the object
// writes.
var (
	deleteKeyActions     []string
	deleteVersionActions []string
	bypassOps            opSet
	headerWrites         opSet
)

func init() {
	deleteKeyActions = OpDeleteObject.Actions()
	deleteVersionActions = OpDeleteObjects.VersionActions()
	bypassOps = wireHandled("x-amz-bypass-governance-retention")
	headerWrites = objectWrites
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
	in := &r.authzIn
	*in = authz.Request{Principal: r.who, HTTP: r.authzHTTP(), List: listOps.has(r.route.Op)}
	if r.object() != nil {
		r.h, in.ExistingTags = h, r
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

// authzHTTP is the request as authorization reads it: a PostObject's
// with its form's fields as headers (the form's x-amz-acl, tagging and
// object lock fields are the condition keys and header actions a PUT's
// headers are), any other as it came.
func (r *request) authzHTTP() *http.Request {
	if r.form == nil {
		return r.Request
	}
	c := r.Request.WithContext(r.Context()) // a shallow copy
	c.Header = r.authzHeader()
	return c
}

// authzHeader is authzHTTP's header.
func (r *request) authzHeader() http.Header {
	if r.form == nil {
		return r.Header
	}
	h := r.Header.Clone()
	for k, v := range r.form {
		h[k] = v
	}
	return h
}

// listOps are the operations whose prefix, delimiter and max-keys are the
// condition keys s3:prefix, s3:delimiter and s3:max-keys: those that take
// max-keys (the wire table).
var listOps = wireHandled("max-keys")

// denied logs a refusal and answers it as S3 does: 403 AccessDenied,
// which for an authenticated caller names the action and resource
// refused and the kind of policy that refused it (errors.go words it).
func (h *Handler) denied(r *request, resource string) error {
	d := authz.Denial{Principal: h.authz.ARN(r.who), Resource: resource}
	if r.check != nil {
		if err := r.check.Err(); err != nil {
			return err
		}
		if c := r.check.Denial(); c.Resource == resource {
			d = c
		}
	}
	h.log.LogAttrs(r.Context(), slog.LevelInfo, "access denied",
		slog.String("id", r.id), slog.String("principal", r.who.Name()),
		slog.String("action", d.Action),
		slog.String("resource", resource), slog.String("source_ip", h.authz.SourceIP(r.Request)),
		slog.String("reason", denialReason(&d)))
	return &d
}
