package s3api

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/jogstore/jog/internal/checksum"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/service"
)

// parseCopySource splits x-amz-copy-source ("[/]bucket/key[?versionId=v]",
// URL-encoded) into its parts.
func parseCopySource(v string) (bucket, key, version string, err error) {
	path, _, _ := strings.Cut(v, "?")
	dec, uerr := url.PathUnescape(path)
	if uerr != nil {
		return "", "", "", apiErr(http.StatusBadRequest, "InvalidArgument", "Invalid copy source encoding")
	}
	bucket, key, _ = strings.Cut(strings.TrimPrefix(dec, "/"), "/")
	if bucket == "" || key == "" {
		return "", "", "", apiErr(http.StatusBadRequest, "InvalidArgument", "Copy Source must mention the source bucket and key: sourcebucket/sourcekey")
	}
	if _, query, ok := strings.Cut(v, "?"); ok {
		q, _ := url.ParseQuery(query)
		if version, err = versionParam(q); err != nil {
			return "", "", "", err
		}
	}
	return bucket, key, version, nil
}

// copySourceVersion is the version ID x-amz-copy-source names
// ("bucket/key?versionId=v"), "" when it names none.
func copySourceVersion(v string) string {
	_, query, ok := strings.Cut(v, "?")
	if !ok {
		return ""
	}
	q, _ := url.ParseQuery(query)
	return q.Get("versionId")
}

// copySourceError answers err of a CopyObject or UploadPartCopy as S3
// does when the source named by version was not opened (opened: its
// CheckSource ran): a delete marker cannot be a copy source (400
// InvalidRequest), a version that is not there is NoSuchVersion.
func copySourceError(err error, version string, opened bool) error {
	if opened || version == "" {
		return err
	}
	var dm *meta.DeleteMarkerError
	if errors.As(err, &dm) {
		return apiErr(http.StatusBadRequest, "InvalidRequest", "The source of a copy request may not specifically refer to a delete marker by version id.")
	}
	if errors.Is(err, meta.ErrObjectNotFound) {
		return errNoSuchVersion
	}
	return err
}

func (h *Handler) copyObject(w http.ResponseWriter, r *request) error {
	srcBucket, srcKey, srcVersion, err := parseCopySource(r.Header.Get("X-Amz-Copy-Source"))
	if err != nil {
		return err
	}
	directive := r.Header.Get("X-Amz-Metadata-Directive")
	if directive != "" && directive != "COPY" && directive != "REPLACE" {
		return apiErr(http.StatusBadRequest, "InvalidArgument", "Unknown metadata directive.")
	}
	replace := directive == "REPLACE"
	tagDirective := r.Header.Get("X-Amz-Tagging-Directive")
	if tagDirective != "" && tagDirective != "COPY" && tagDirective != "REPLACE" {
		return apiErr(http.StatusBadRequest, "InvalidArgument", "Unknown tagging directive.")
	}
	storageClass, err := storageClassHeader(r.Header)
	if err != nil {
		return err
	}
	var in service.CopyInput
	if in.SrcCustomerKey, err = h.customerKey(r, r.Header, copySourceSSEC); err != nil {
		return err
	}
	if in.Dst.SSE, err = h.sseRequest(r, r.Header); err != nil {
		return err
	}
	// A copy naming a source version is a restore (S3 and MinIO refuse a
	// copy onto itself only when no version is named).
	if srcBucket == r.route.Bucket && srcKey == r.route.Key && srcVersion == "" && !replace && storageClass == "" && in.Dst.SSE.Mode == "" {
		return apiErr(http.StatusBadRequest, "InvalidRequest",
			"This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.")
	}
	in.SrcBucket, in.SrcKey, in.SrcVersion, in.ReplaceMetadata = srcBucket, srcKey, srcVersion, replace
	if replace {
		if in.Dst.Headers, in.Dst.UserMeta, err = parseObjectHeaders(r.Header); err != nil {
			return err
		}
	}
	if in.ReplaceTags = tagDirective == "REPLACE"; in.ReplaceTags {
		if in.Dst.Tags, err = taggingHeader(r.Header); err != nil {
			return err
		}
	}
	// The copy gets the ACL of the request's headers, not the source's.
	if in.Dst.ACL, err = h.writeACL(r, r.Header); err != nil {
		return err
	}
	if in.Dst.Lock, err = lockRequest(r.Header); err != nil {
		return err
	}
	if in.Dst.Cond, err = writeCondition(r.Header); err != nil {
		return err
	}
	in.Dst.Bucket, in.Dst.Key, in.Dst.Owner, in.Dst.StorageClass = r.route.Bucket, r.route.Key, r.auth.AccessKey, storageClass
	if v := r.Header.Get("X-Amz-Checksum-Algorithm"); v != "" {
		a, err := checksum.ParseAlgorithm(v)
		if err != nil {
			return apiErr(http.StatusBadRequest, "InvalidRequest", "Checksum algorithm %q is not supported.", v)
		}
		in.Dst.Checksums.Algorithm = a // computed over the copied bytes
	}
	srcOpened := false // CheckSource runs once the source is open
	in.CheckSource = func(src meta.Object) error {
		srcOpened = true
		return checkConditions(r.Header, copyConditions, src, errPrecondition)
	}
	if _, err := h.svc.GetBucket(r.Context(), r.route.Bucket); err != nil {
		return err
	}
	in.Throttle = h.scheduledCopy(r)
	o, srcVersionID, err := h.svc.CopyObject(r.Context(), in)
	if err != nil {
		return copySourceError(err, srcVersion, srcOpened)
	}
	if v := h.svc.VersionHeader(r.Context(), srcBucket, srcVersionID); v != "" {
		w.Header().Set("X-Amz-Copy-Source-Version-Id", v)
	}
	h.setVersionHeader(w, r, o.VersionID)
	h.setEncryptionHeaders(w.Header(), o.Encryption, in.Dst.SSE.CustomerKey, true)
	res := copyObjectResult{Xmlns: s3Namespace, LastModified: iso8601(o.LastModified), ETag: `"` + o.ETag + `"`, ChecksumType: o.Checksum.Type}
	res.checksumFields.set(o.Checksum.Algorithm, o.Checksum.Value)
	h.setExpiration(w.Header(), r, o)
	return writeXML(w, http.StatusOK, res)
}
