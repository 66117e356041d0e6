package s3api

import (
	"net/http"

	"github.com/jogstore/jog/internal/tagging"
)

func (h *Handler) putBucketTagging(w http.ResponseWriter, r *request) error {
	body, err := readSmallBody(r.Request, tagging.MaxDocument, true)
	if err != nil {
		return err
	}
	tags, err := tagging.ParseXML(body, tagging.MaxBucketTags)
	if err != nil {
		return err
	}
	if err := h.svc.PutBucketTagging(r.Context(), r.route.Bucket, tags); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h *Handler) getBucketTagging(w http.ResponseWriter, r *request) error {
	tags, err := h.svc.GetBucketTagging(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	doc := tags.Document()
	doc.Xmlns = s3Namespace
	return writeXML(w, http.StatusOK, doc)
}

func (h *Handler) deleteBucketTagging(w http.ResponseWriter, r *request) error {
	if err := h.svc.DeleteBucketTagging(r.Context(), r.route.Bucket); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
