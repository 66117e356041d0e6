package s3api

import (
	"errors"
	"net/http"

	"github.com/jogstore/jog/internal/lifecycle"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/tagging"
)

func (h *Handler) putBucketLifecycle(w http.ResponseWriter, r *request) error {
	body, err := readSmallBody(r.Request, lifecycle.MaxDocument, true)
	if err != nil {
		return err
	}
	c, err := lifecycle.ParseXML(body)
	if err != nil {
		return err
	}
	if err := h.svc.PutBucketLifecycle(r.Context(), r.route.Bucket, c); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

func (h *Handler) getBucketLifecycle(w http.ResponseWriter, r *request) error {
	c, err := h.svc.GetBucketLifecycle(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	c.Xmlns = s3Namespace
	return writeXML(w, http.StatusOK, c)
}

func (h *Handler) deleteBucketLifecycle(w http.ResponseWriter, r *request) error {
	if err := h.svc.DeleteBucketLifecycle(r.Context(), r.route.Bucket); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// setExpiration adds x-amz-expiration to the response of a PUT, GET,
// HEAD, CopyObject or CompleteMultipartUpload of an object a lifecycle
// rule of its bucket expires, as S3 formats it: the rule ID URL-encoded
// (S3's documentation), as S3 URL-encodes names elsewhere (urlEncode), so
// that a quote in it cannot end the quoted value. A bucket's rules come
// from a cache: a bucket without any costs no query on repeat.
func (h *Handler) setExpiration(hdr http.Header, r *request, o meta.Object) {
	rules, err := h.svc.BucketLifecycle(r.Context(), r.route.Bucket)
	if err != nil {
		if !errors.Is(err, meta.ErrBucketNotFound) {
			h.log.Warn("lifecycle rules not read", "id", r.id, "bucket", r.route.Bucket, "err", err)
		}
		return
	}
	if !rules.ExpiresObjects() {
		return
	}
	// Expiration applies to current versions only: a version named by
	// versionId (GET, HEAD) gets the header only while it is the latest.
	if r.query().Get("versionId") != "" && !h.isLatest(r, o) {
		return
	}
	lo := lifecycle.Object{Key: o.Key, Size: o.Size, LastModified: o.LastModified}
	if o.Tags != "" {
		lo.Tags = tagging.ParseStored(o.Tags).Map()
	}
	at, id, ok := rules.Expiry(lo)
	if !ok {
		return
	}
	hdr.Set("X-Amz-Expiration", `expiry-date="`+at.UTC().Format(http.TimeFormat)+`", rule-id="`+urlEncode(id)+`"`)
}

// isLatest reports whether o is the latest version of its key.
func (h *Handler) isLatest(r *request, o meta.Object) bool {
	latest, err := h.svc.HeadObject(r.Context(), r.route.Bucket, o.Key, "", false)
	return err == nil && latest.VersionID == o.VersionID
}
