package s3api

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/tagging"
)

// Object tags are stored per version in the x-amz-tagging form
// (meta.Object.Tags): what the header sends, and what GetObjectTagging
// turns back into a TagSet.

// taggingHeader reads x-amz-tagging into the stored form ("" when absent).
func taggingHeader(h http.Header) (string, error) {
	v := h.Get("X-Amz-Tagging")
	if v == "" {
		return "", nil
	}
	set, err := tagging.ParseQuery(v)
	if err != nil {
		return "", err
	}
	return set.Query(), nil
}

// setTaggingCount sends x-amz-tagging-count on GET and HEAD of a version
// with tags.
func setTaggingCount(h http.Header, tags string) {
	if tags != "" {
		h.Set("X-Amz-Tagging-Count", strconv.Itoa(strings.Count(tags, "&")+1))
	}
}

// objectVersionError answers a tagging request on a version that is not
// there: a delete marker (404 or 405 with its headers), NoSuchVersion for
// a named version, else err.
func objectVersionError(w http.ResponseWriter, err error, version string) error {
	if dmErr := deleteMarkerError(w, err, version != ""); dmErr != nil {
		return dmErr
	}
	if version != "" && errors.Is(err, meta.ErrObjectNotFound) {
		return errNoSuchVersion
	}
	return err
}

func (h *Handler) putObjectTagging(w http.ResponseWriter, r *request) error {
	body, err := readSmallBody(r.Request, tagging.MaxDocument, true)
	if err != nil {
		return err
	}
	set, err := tagging.ParseXML(body, tagging.MaxObjectTags)
	if err != nil {
		return err
	}
	return h.writeObjectTags(w, r, set.Query(), http.StatusOK)
}

func (h *Handler) deleteObjectTagging(w http.ResponseWriter, r *request) error {
	return h.writeObjectTags(w, r, "", http.StatusNoContent)
}

func (h *Handler) writeObjectTags(w http.ResponseWriter, r *request, tags string, status int) error {
	version := r.query().Get("versionId")
	v, err := h.svc.PutObjectTags(r.Context(), r.route.Bucket, r.route.Key, version, tags)
	if err != nil {
		return objectVersionError(w, err, version)
	}
	h.setVersionHeader(w, r, v)
	w.WriteHeader(status)
	return nil
}

func (h *Handler) getObjectTagging(w http.ResponseWriter, r *request) error {
	version := r.query().Get("versionId")
	o, err := h.svc.HeadObject(r.Context(), r.route.Bucket, r.route.Key, version, false)
	if err != nil {
		return objectVersionError(w, err, version)
	}
	h.setVersionHeader(w, r, o.VersionID)
	doc := tagging.ParseStored(o.Tags).Document()
	doc.Xmlns = s3Namespace
	return writeXML(w, http.StatusOK, doc)
}
