package s3api

import (
	"cmp"
	"net/http"

	"github.com/jogstore/jog/internal/acl"
	"github.com/jogstore/jog/internal/service"
)

// maxACLBody bounds a Put*Acl body: S3 allows 100 grants.
const maxACLBody = 64 << 10

// Refusals of ACLs by the bucket's settings, as S3 words them.
var (
	errACLsDisabled = apiErr(http.StatusBadRequest, "AccessControlListNotSupported", "The bucket does not allow ACLs")
	errACLOwnership = apiErr(http.StatusBadRequest, "InvalidBucketAclWithObjectOwnership",
		"Bucket cannot have ACLs set with ObjectOwnership's BucketOwnerEnforced setting")
)

// aclOwner is the owner of bucket's ACLs (and of its objects': the
// bucket owner and every writer are one account in JOG).
func (h *Handler) aclOwner(r *request, bucket string) (owner, error) {
	b, err := h.svc.GetBucket(r.Context(), bucket)
	if err != nil {
		return owner{}, err
	}
	return ownerOf(b.Owner), nil
}

// checkACL refuses grants the bucket does not take: any grant to another
// than the owner where ACLs are disabled (BucketOwnerEnforced), and a
// public ACL under BlockPublicAcls.
func checkACL(acc *service.Access, grants []acl.Grant, ownerID string) error {
	if !acc.ACLsEnabled() && !acl.OwnerOnly(grants, ownerID) {
		return errACLsDisabled
	}
	if acc.Block != nil && acc.Block.BlockPublicAcls && acl.IsPublic(grants) {
		return errAccessDenied
	}
	return nil
}

// storedACL is what grants are stored as in the bucket: nothing ("", the
// private ACL) where ACLs are disabled.
func storedACL(acc *service.Access, grants []acl.Grant, ownerID string) string {
	if !acc.ACLsEnabled() {
		return ""
	}
	return acl.Encode(grants, ownerID)
}

// writeACL is the ACL an object write's x-amz-acl or x-amz-grant-*
// headers (hdr) give the new object, as stored ("" without them), checked
// against the bucket's settings.
func (h *Handler) writeACL(r *request, hdr http.Header) (string, error) {
	if !acl.HasHeaders(hdr) {
		return "", nil
	}
	own, err := h.aclOwner(r, r.route.Bucket)
	if err != nil {
		return "", err
	}
	grants, _, err := acl.FromHeaders(hdr, own.ID)
	if err != nil {
		return "", err
	}
	acc, err := h.svc.BucketAccess(r.Context(), r.route.Bucket)
	if err != nil {
		return "", err
	}
	if err := checkACL(acc, grants, own.ID); err != nil {
		return "", err
	}
	return storedACL(acc, grants, own.ID), nil
}

// requestACL is the ACL a Put*Acl request gives: by headers or by an
// AccessControlPolicy body, not both.
func requestACL(r *request, ownerID string) ([]acl.Grant, error) {
	if acl.HasHeaders(r.Header) {
		if r.ContentLength > 0 {
			return nil, apiErr(http.StatusBadRequest, "UnexpectedContent", "This request does not support content")
		}
		grants, _, err := acl.FromHeaders(r.Header, ownerID)
		return grants, err
	}
	body, err := readSmallBody(r.Request, maxACLBody, true)
	if err != nil {
		return nil, err
	}
	return acl.ParseXML(body)
}

// bucketACLChange reads a Put*Acl request and checks it against the
// bucket's settings: the bucket's Access, the owner and the ACL to store.
func (h *Handler) bucketACLChange(r *request) (own owner, enc string, err error) {
	if own, err = h.aclOwner(r, r.route.Bucket); err != nil {
		return own, "", err
	}
	grants, err := requestACL(r, own.ID)
	if err != nil {
		return own, "", err
	}
	acc, err := h.svc.BucketAccess(r.Context(), r.route.Bucket)
	if err != nil {
		return own, "", err
	}
	if err := checkACL(acc, grants, own.ID); err != nil {
		return own, "", err
	}
	return own, storedACL(acc, grants, own.ID), nil
}

func (h *Handler) putBucketACL(w http.ResponseWriter, r *request) error {
	_, enc, err := h.bucketACLChange(r)
	if err != nil {
		return err
	}
	return answer(w, http.StatusOK, h.svc.PutBucketACL(r.Context(), r.route.Bucket, enc))
}

func (h *Handler) getBucketACL(w http.ResponseWriter, r *request) error {
	own, err := h.aclOwner(r, r.route.Bucket)
	if err != nil {
		return err
	}
	enc, err := h.svc.GetBucketACL(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	return h.writeACLDoc(w, r, own, enc)
}

// writeACLDoc answers a Get*Acl: the stored ACL, or the owner's full
// control alone where ACLs are disabled (as S3 answers then).
func (h *Handler) writeACLDoc(w http.ResponseWriter, r *request, own owner, enc string) error {
	acc, err := h.svc.BucketAccess(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	if !acc.ACLsEnabled() {
		enc = ""
	}
	grants, err := acl.Decode(enc, own.ID)
	if err != nil {
		return err
	}
	return writeRaw(w, acl.XML(own.ID, own.DisplayName, grants))
}

func (h *Handler) putObjectACL(w http.ResponseWriter, r *request) error {
	_, enc, err := h.bucketACLChange(r)
	if err != nil {
		return err
	}
	version := r.query().Get("versionId")
	v, err := h.svc.PutObjectACL(r.Context(), r.route.Bucket, r.route.Key, version, enc)
	if err != nil {
		return objectVersionError(w, err, version)
	}
	h.setVersionHeader(w, r, v)
	w.WriteHeader(http.StatusOK)
	return nil
}

func (h *Handler) getObjectACL(w http.ResponseWriter, r *request) error {
	version := r.query().Get("versionId")
	o, err := h.svc.HeadObject(r.Context(), r.route.Bucket, r.route.Key, version, false)
	if err != nil {
		return objectVersionError(w, err, version)
	}
	own, err := h.aclOwner(r, r.route.Bucket)
	if err != nil {
		return err
	}
	h.setVersionHeader(w, r, o.VersionID)
	return h.writeACLDoc(w, r, own, o.ACL)
}

// readSetting reads a settings document (OwnershipControls,
// PublicAccessBlockConfiguration): MalformedXML when parse refuses it.
func readSetting[T any](r *request, parse func([]byte) (T, bool)) (T, error) {
	var v T
	body, err := readSmallBody(r.Request, maxACLBody, true)
	if err != nil {
		return v, err
	}
	v, ok := parse(body)
	if !ok {
		return v, errMalformedXML
	}
	return v, nil
}

// answer ends a handler whose last step was err: status with no body,
// or err.
func answer(w http.ResponseWriter, status int, err error) error {
	if err != nil {
		return err
	}
	w.WriteHeader(status)
	return nil
}

// writeRaw sends an XML document built elsewhere.
func writeRaw(w http.ResponseWriter, doc []byte) error {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(doc)
	return err
}

func (h *Handler) putOwnershipControls(w http.ResponseWriter, r *request) error {
	setting, err := readSetting(r, acl.ParseOwnershipXML)
	if err != nil {
		return err
	}
	if setting == acl.BucketOwnerEnforced {
		if err := h.bucketACLIsPrivate(r); err != nil {
			return err
		}
	}
	return answer(w, http.StatusOK, h.svc.PutBucketOwnership(r.Context(), r.route.Bucket, setting))
}

// bucketACLIsPrivate refuses to disable ACLs while the bucket's ACL
// grants anyone but its owner (InvalidBucketAclWithObjectOwnership).
// Object ACLs do not matter: they stop counting.
func (h *Handler) bucketACLIsPrivate(r *request) error {
	own, err := h.aclOwner(r, r.route.Bucket)
	if err != nil {
		return err
	}
	enc, err := h.svc.GetBucketACL(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	grants, err := acl.Decode(enc, own.ID)
	if err != nil {
		return err
	}
	if !acl.OwnerOnly(grants, own.ID) {
		return errACLOwnership
	}
	return nil
}

func (h *Handler) getOwnershipControls(w http.ResponseWriter, r *request) error {
	setting, _, err := h.svc.GetBucketOwnership(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	if setting == "" {
		return service.ErrNoOwnershipControls
	}
	return writeRaw(w, acl.OwnershipXML(setting))
}

func (h *Handler) deleteOwnershipControls(w http.ResponseWriter, r *request) error {
	return answer(w, http.StatusNoContent, h.svc.PutBucketOwnership(r.Context(), r.route.Bucket, ""))
}

func (h *Handler) putPublicAccessBlock(w http.ResponseWriter, r *request) error {
	b, err := readSetting(r, acl.ParsePublicAccessBlockXML)
	if err != nil {
		return err
	}
	return answer(w, http.StatusOK, h.svc.PutPublicAccessBlock(r.Context(), r.route.Bucket, b))
}

func (h *Handler) getPublicAccessBlock(w http.ResponseWriter, r *request) error {
	b, err := h.svc.GetPublicAccessBlock(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	return writeRaw(w, b.XML())
}

func (h *Handler) deletePublicAccessBlock(w http.ResponseWriter, r *request) error {
	return answer(w, http.StatusNoContent, h.svc.DeletePublicAccessBlock(r.Context(), r.route.Bucket))
}

// createBucketAccess checks CreateBucket's x-amz-object-ownership and
// ACL headers before the bucket is created: the setting (the server's
// --default-object-ownership when absent, BucketOwnerEnforced unless set)
// and the bucket ACL to store ("" for the private one).
func (h *Handler) createBucketAccess(r *request) (setting, enc string, err error) {
	setting = cmp.Or(h.cfg.DefaultObjectOwnership, acl.BucketOwnerEnforced)
	if v := r.Header.Get("X-Amz-Object-Ownership"); v != "" {
		if !acl.ValidOwnership(v) {
			return "", "", apiErr(http.StatusBadRequest, "InvalidArgument", "Invalid x-amz-object-ownership header: %s", v)
		}
		setting = v
	}
	own := ownerOf(r.auth.AccessKey)
	grants, ok, err := acl.FromHeaders(r.Header, own.ID)
	if err != nil || !ok {
		return setting, "", err
	}
	if setting == acl.BucketOwnerEnforced {
		if !acl.OwnerOnly(grants, own.ID) {
			return "", "", errACLOwnership
		}
		return setting, "", nil
	}
	return setting, acl.Encode(grants, own.ID), nil
}

// setCreatedBucketAccess stores what createBucketAccess read, on the
// bucket just created. A bucket without ownership controls is
// BucketOwnerEnforced (service.GetBucketOwnership): any other setting,
// from the header or the server's default, is stored.
func (h *Handler) setCreatedBucketAccess(r *request, setting, enc string) error {
	if setting != acl.BucketOwnerEnforced {
		if err := h.svc.PutBucketOwnership(r.Context(), r.route.Bucket, setting); err != nil {
			return err
		}
	}
	if enc != "" {
		return h.svc.PutBucketACL(r.Context(), r.route.Bucket, enc)
	}
	return nil
}
