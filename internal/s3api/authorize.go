package s3api

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/sigv2"
	"github.com/jogstore/jog/internal/sts"
	"github.com/jogstore/jog/internal/tagging"
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
		// Only a bucket policy can allow anything to an anonymous request:
		// without one its keys need not be read to refuse them all.
		if r.who.Type == policy.Anonymous {
			bp, err := h.bucketPolicy(r, rt.Bucket)
			if err != nil {
				return err
			}
			if bp == nil {
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
	var bp *policy.Compiled
	if rt.Bucket != "" {
		resource = authz.BucketARN(rt.Bucket)
		if rt.Key != "" {
			resource = authz.ObjectARN(rt.Bucket, rt.Key)
		}
		var err error
		if bp, err = h.bucketPolicy(r, rt.Bucket); err != nil {
			return err
		}
	}
	for _, a := range actions {
		if r.check.Decide(a, resource, bp) != policy.Allowed {
			return h.denied(r, resource)
		}
	}
	for _, a := range headerActions(rt.Op, r.authzHeader()) {
		if r.check.Decide(a, resource, bp) != policy.Allowed {
			return h.denied(r, resource)
		}
	}
	if src := rt.SourceAction(); src != "" {
		b, k, v, err := parseCopySource(r.Header.Get("X-Amz-Copy-Source"))
		if err != nil {
			return err
		}
		sbp, err := h.bucketPolicy(r, b)
		if err != nil {
			return err
		}
		// The source's own version ID is not the request's s3:VersionId;
		// its tags are s3:ExistingObjectTag for the source's action.
		resource = authz.ObjectARN(b, k)
		srcTags := func() (map[string]string, error) { return h.objectTags(r, b, k, v) }
		if r.check.DecideWith(src, resource, sbp, srcTags) != policy.Allowed {
			return h.denied(r, resource)
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
	bp, err := h.bucketPolicy(r, r.route.Bucket)
	if err != nil {
		return err
	}
	actions := deleteKeyActions
	if version != "" {
		actions = deleteVersionActions
	}
	r.check.SetVersion(version)
	resource := authz.ObjectARN(r.route.Bucket, key)
	for _, a := range actions {
		if r.check.Decide(a, resource, bp) != policy.Allowed {
			return h.denied(r, resource)
		}
	}
	for _, a := range headerActions(OpDeleteObjects, r.Header) {
		if r.check.Decide(a, resource, bp) != policy.Allowed {
			return h.denied(r, resource)
		}
	}
	return nil
}

// headerActions are the actions S3 requires beyond an operation's own
// when the request carries certain headers: bypassing a GOVERNANCE
// retention (s3:BypassGovernanceRetention) on deletes and retention
// changes; and, on writes of a new object, setting its retention
// (s3:PutObjectRetention), legal hold (s3:PutObjectLegalHold) or tags
// (s3:PutObjectTagging) through x-amz-object-lock-* and x-amz-tagging.
// A PostObject's form fields count as its headers (request.authzHTTP).
func headerActions(op Op, hdr http.Header) []string {
	var acts []string
	switch op {
	case OpDeleteObject, OpDeleteObjects, OpPutObjectRetention:
		if bypassGovernance(hdr) {
			acts = append(acts, "s3:BypassGovernanceRetention")
		}
	case OpPutObject, OpCopyObject, OpCreateMultipartUpload, OpPostObject:
		if hdr.Get("X-Amz-Object-Lock-Mode") != "" || hdr.Get("X-Amz-Object-Lock-Retain-Until-Date") != "" {
			acts = append(acts, "s3:PutObjectRetention")
		}
		if hdr.Get("X-Amz-Object-Lock-Legal-Hold") != "" {
			acts = append(acts, "s3:PutObjectLegalHold")
		}
		if hdr.Get("X-Amz-Tagging") != "" {
			acts = append(acts, "s3:PutObjectTagging")
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

// bucketPolicy is a bucket's compiled policy, nil when it has none or
// does not exist (the operation then answers NoSuchBucket to whoever may
// ask).
func (h *Handler) bucketPolicy(r *request, bucket string) (*policy.Compiled, error) {
	if h.svc == nil { // the edge alone, in its unit tests: no bucket has a policy
		return nil, nil
	}
	bp, err := h.svc.BucketPolicy(r.Context(), bucket)
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
	in := &authz.Request{Principal: r.who, HTTP: r.authzHTTP(), List: listOps.has(r.route.Op)}
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

// newObjectOps write a new object (or part): they have no existing
// object, so no s3:ExistingObjectTag.
var newObjectOps = opsOf(OpPutObject, OpCopyObject, OpPostObject, OpCreateMultipartUpload, OpUploadPart,
	OpUploadPartCopy, OpCompleteMultipartUpload, OpAbortMultipartUpload, OpListParts)

// existingTags reads the tags of the object version the request names,
// none when there is none.
func (h *Handler) existingTags(r *request) (map[string]string, error) {
	return h.objectTags(r, r.route.Bucket, r.route.Key, r.URL.Query().Get("versionId"))
}

// objectTags reads the tags of an object version, none when there is
// none.
func (h *Handler) objectTags(r *request, bucket, key, version string) (map[string]string, error) {
	o, err := h.svc.HeadObject(r.Context(), bucket, key, version, false)
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
