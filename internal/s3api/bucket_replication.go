package s3api

import (
	"net/http"

	"github.com/jogstore/jog/internal/bucketrepl"
)

// Bucket replication's configuration (Put/Get/DeleteBucketReplication,
// internal/bucketrepl): stored and validated, each rule's destination
// resolved to a configured target; nothing is delivered yet.

func (h *Handler) putBucketReplication(w http.ResponseWriter, r *request) error {
	body, err := readSmallBody(r.Request, bucketrepl.MaxDocument, true)
	if err != nil {
		return err
	}
	c, err := bucketrepl.ParseXML(body)
	if err != nil {
		return err
	}
	return answer(w, http.StatusOK, h.svc.PutBucketReplication(r.Context(), r.route.Bucket, c))
}

func (h *Handler) getBucketReplication(w http.ResponseWriter, r *request) error {
	c, err := h.svc.GetBucketReplication(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	c.Xmlns = s3Namespace
	return writeXML(w, http.StatusOK, c)
}

func (h *Handler) deleteBucketReplication(w http.ResponseWriter, r *request) error {
	return answer(w, http.StatusNoContent, h.svc.DeleteBucketReplication(r.Context(), r.route.Bucket))
}
