package s3api

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/jogstore/jog/internal/checksum"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/service"
	"github.com/jogstore/jog/internal/sse"
)

func (h *Handler) putObject(w http.ResponseWriter, r *request) error {
	if r.ContentLength > service.MaxObjectSize {
		return service.ErrEntityTooLarge
	}
	in, err := h.newObjectInput(r, r.Header)
	if err != nil {
		return err
	}
	if in.Cond, err = writeCondition(r.Header); err != nil {
		return err
	}
	if in.Body, in.Size, in.Checksums, err = h.uploadBody(r); err != nil {
		return err
	}
	if _, err := h.storeObject(w, r, r.Header, in); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// newObjectInput reads what a new object is stored with from a write's
// headers — PutObject's, or PostObject's form fields as headers
// (formHeaders): Content-MD5, content headers and metadata, storage class,
// x-amz-tagging, object lock, encryption.
func (h *Handler) newObjectInput(r *request, hdr http.Header) (service.PutInput, error) {
	var in service.PutInput
	var err error
	if in.ContentMD5, err = contentMD5(hdr); err != nil {
		return in, err
	}
	if in.Headers, in.UserMeta, err = parseObjectHeaders(hdr); err != nil {
		return in, err
	}
	if in.StorageClass, err = storageClassHeader(hdr); err != nil {
		return in, err
	}
	if in.Tags, err = taggingHeader(hdr); err != nil {
		return in, err
	}
	if in.Lock, err = lockRequest(hdr); err != nil {
		return in, err
	}
	in.SSE, err = h.sseRequest(r, hdr)
	return in, err
}

// storeObject stores in (its body and checksums set) as the route's object
// for the authenticated caller, with the ACL of hdr (the request's headers,
// or a form's fields as headers) and sets the headers of a stored object on
// the response: ETag, checksum, encryption, expiration, version.
func (h *Handler) storeObject(w http.ResponseWriter, r *request, hdr http.Header, in service.PutInput) (meta.Object, error) {
	in.Bucket, in.Key, in.Owner = r.route.Bucket, r.route.Key, r.auth.AccessKey
	var err error
	if in.ACL, err = h.writeACL(r, hdr); err != nil {
		return meta.Object{}, err
	}
	in.Integrity = in.ContentMD5 != nil || len(in.Checksums.Verify) > 0
	o, err := h.svc.PutObject(r.Context(), in)
	if err != nil {
		return o, err
	}
	w.Header().Set("ETag", `"`+o.ETag+`"`)
	setChecksumHeaders(w.Header(), o.Checksum)
	h.setEncryptionHeaders(w.Header(), o.Encryption, in.SSE.CustomerKey, true)
	h.setExpiration(w.Header(), r, o)
	if v := h.svc.ObjectVersionHeader(r.Context(), r.route.Bucket, o); v != "" {
		w.Header().Set("X-Amz-Version-Id", v)
	}
	return o, nil
}

// setChecksumHeaders names an object's checksum on a response.
func setChecksumHeaders(h http.Header, c meta.Checksum) {
	if c.Algorithm == "" {
		return
	}
	h.Set(checksum.Algorithm(c.Algorithm).HeaderName(), c.Value)
	h.Set("X-Amz-Checksum-Type", c.Type)
}

// contentMD5 decodes the Content-MD5 header (nil when absent).
func contentMD5(h http.Header) ([]byte, error) {
	v, ok := h["Content-Md5"]
	if !ok {
		return nil, nil
	}
	sum, err := base64.StdEncoding.DecodeString(v[0])
	if err != nil || len(sum) != 16 {
		return nil, apiErr(http.StatusBadRequest, "InvalidDigest", "The Content-MD5 you specified is not valid.")
	}
	return sum, nil
}

// getObject serves GET and HEAD: it resolves the version asked for, plans
// the response (conditionals, Range or partNumber, response-* overrides,
// checksums) and sends it, with a zero-copy body for GET.
func (h *Handler) getObject(w http.ResponseWriter, r *request) error {
	obj, err := h.resolveObject(w, r)
	if err != nil {
		return err
	}
	if obj.body != nil {
		defer obj.body.Close()
	}
	p, err := h.planObject(w.Header(), r, &obj)
	if err != nil {
		return err
	}
	return h.sendObject(w, r, obj.body, p)
}

// objectRead is the object version a GET or HEAD resolved.
type objectRead struct {
	o      meta.Object
	body   service.ObjectReader // GET's open data; nil for HEAD
	bucket meta.Bucket          // its versioning and lock state
	part   int                  // the partNumber asked for; 0 for none
	query  url.Values
	// customerKey is the SSE-C key the request sent (nil: none).
	customerKey []byte
}

// resolveObject reads the version a GET or HEAD names: partNumber (not
// with Range), versionId, then the object — HEAD reads only its metadata,
// GET opens its data with it, consistently — and its bucket's state. A
// named version is served or refused, never replaced by the latest;
// unversioned writes create the version "null". A delete marker is
// refused with its headers.
func (h *Handler) resolveObject(w http.ResponseWriter, r *request) (objectRead, error) {
	res := objectRead{query: r.query()}
	if _, ok := res.query["partNumber"]; ok {
		n, err := partNumber(res.query)
		if err != nil {
			return res, err
		}
		if r.Header.Get("Range") != "" {
			return res, apiErr(http.StatusBadRequest, "InvalidRequest", "Cannot specify both Range header and partNumber query parameter.")
		}
		res.part = n
	}
	version := res.query.Get("versionId")
	var err error
	if res.customerKey, err = h.customerKey(r, r.Header, objectSSEC); err != nil {
		return res, err
	}
	if r.Method == http.MethodHead {
		res.o, err = h.svc.HeadObject(r.Context(), r.route.Bucket, r.route.Key, version, res.part > 0)
		if err == nil {
			err = sse.CheckCustomerKey(res.o.Encryption, res.customerKey)
		}
	} else {
		res.o, res.body, err = h.svc.OpenObject(r.Context(), r.route.Bucket, r.route.Key, version, res.customerKey)
	}
	if err != nil {
		if dmErr := deleteMarkerError(w, err, version != ""); dmErr != nil {
			return res, dmErr
		}
		if version != "" && errors.Is(err, meta.ErrObjectNotFound) {
			return res, errNoSuchVersion
		}
		return res, err
	}
	// One bucket lookup (none when the store read it with the object)
	// serves the version header and the lock headers.
	if res.bucket, err = h.svc.ObjectBucket(r.Context(), r.route.Bucket, res.o); err != nil {
		if res.body != nil {
			res.body.Close()
		}
		return objectRead{}, err
	}
	return res, nil
}

// objectPlan is the response planned for an objectRead: its status and
// the bytes of the object it carries.
type objectPlan struct {
	status int
	rng    byteRange
}

// planObject sets the response headers of obj and decides its status and
// byte range: validators, then conditionals, then the part or Range asked
// for, the object's own headers with the response-* overrides,
// expiration, lock and (when asked) checksum headers, Content-Length.
func (h *Handler) planObject(hdr http.Header, r *request, obj *objectRead) (objectPlan, error) {
	o := &obj.o
	if v := service.VersionHeaderOf(obj.bucket, o.VersionID); v != "" {
		hdr.Set("X-Amz-Version-Id", v)
	}
	// Before the conditions: a 304 carries them too.
	setCanonical(hdr, "Etag", `"`+o.ETag+`"`)
	setCanonical(hdr, "Last-Modified", o.LastModified.UTC().Format(http.TimeFormat))
	if err := checkConditions(r.Header, getConditions, *o, errNotModified); err != nil {
		return objectPlan{}, err
	}
	var rng byteRange
	var err error
	partial := false
	if obj.part > 0 {
		if rng, err = partRange(*o, obj.part); err != nil {
			return objectPlan{}, err
		}
		partial = true
		if o.PartsCount > 0 {
			hdr.Set("X-Amz-Mp-Parts-Count", strconv.Itoa(o.PartsCount))
		}
	} else if rng, partial, err = parseRange(r.Header.Get("Range"), o.Size); err != nil {
		hdr.Set("Content-Range", fmt.Sprintf("bytes */%d", o.Size))
		return objectPlan{}, err
	}
	setObjectHeaders(hdr, *o, obj.query)
	h.setEncryptionHeaders(hdr, o.Encryption, obj.customerKey, false)
	sandboxDocument(hdr)
	h.setExpiration(hdr, r, *o)
	if obj.bucket.ObjectLock {
		if err := h.setLockHeaders(hdr, r, *o); err != nil {
			return objectPlan{}, err
		}
	}
	if strings.EqualFold(r.Header.Get("X-Amz-Checksum-Mode"), "ENABLED") {
		setChecksumHeaders(hdr, servedChecksum(*o, obj.part, partial))
	}
	p := objectPlan{status: http.StatusOK, rng: byteRange{0, o.Size}}
	if partial {
		p.status, p.rng = http.StatusPartialContent, rng
		hdr.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", rng.start, rng.start+rng.length-1, o.Size))
		if rng.length == 0 { // an empty object's "part 1"
			p.status = http.StatusOK
			hdr.Del("Content-Range")
		}
	}
	setCanonical(hdr, "Content-Length", strconv.FormatInt(p.rng.length, 10))
	return p, nil
}

// sendObject writes the planned status and, for GET, the planned bytes of
// body.
func (h *Handler) sendObject(w http.ResponseWriter, r *request, body service.ObjectReader, p objectPlan) error {
	w.WriteHeader(p.status)
	if body == nil || p.rng.length == 0 {
		return nil
	}
	if _, err := body.CopyRange(h.scheduledDownload(r, w, p.rng.length), p.rng.start, p.rng.length); err != nil {
		return errAfterHeader{err}
	}
	return nil
}

// servedChecksum is the checksum of the bytes a GET serves, as S3 reports
// it: the object's for the whole object (or part 1 of an object with no
// parts, which is the whole); for part n of a multipart object, the part's
// own checksum when the object's is COMPOSITE, the object's when its one
// part is the whole FULL_OBJECT; none for any other range.
func servedChecksum(o meta.Object, part int, partial bool) meta.Checksum {
	switch {
	case !partial || (part > 0 && o.PartsCount == 0):
		return o.Checksum
	case part > 0 && o.Checksum.Type == service.ChecksumComposite && o.Parts[part-1].ChecksumAlgorithm != "":
		p := o.Parts[part-1]
		return meta.Checksum{Algorithm: p.ChecksumAlgorithm, Value: p.Checksum, Type: service.ChecksumComposite}
	case part > 0 && o.PartsCount == 1:
		return o.Checksum
	}
	return meta.Checksum{}
}

// partRange is the byte range of part n of o. An object not made by a
// multipart upload has one part: itself.
func partRange(o meta.Object, n int) (byteRange, error) {
	if o.PartsCount == 0 {
		if n != 1 {
			return byteRange{}, errInvalidPartNumber
		}
		return byteRange{0, o.Size}, nil
	}
	if n > len(o.Parts) {
		return byteRange{}, errInvalidPartNumber
	}
	var off int64
	for _, p := range o.Parts[:n-1] {
		off += p.Size
	}
	return byteRange{off, o.Parts[n-1].Size}, nil
}

func (h *Handler) deleteObject(w http.ResponseWriter, r *request) error {
	cond, err := deleteCondition(r.Header)
	if err != nil {
		return err
	}
	cond.BypassGovernance = bypassGovernance(r.Header)
	res, err := h.svc.DeleteObject(r.Context(), r.route.Bucket, r.route.Key, r.query().Get("versionId"), r.auth.AccessKey, cond)
	if err != nil && !(err == meta.ErrObjectNotFound && cond.IsZero()) {
		return err
	}
	if res.DeleteMarker {
		w.Header().Set("X-Amz-Delete-Marker", "true")
	}
	if res.VersionID != "" {
		h.setVersionHeader(w, r, res.VersionID)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
