package s3api

import (
	"net/http"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/iam/policy"
)

// maxPolicyBody bounds a PutBucketPolicy body read: a little over S3's
// 20 KiB, so that a larger document is refused by the policy's own size
// check, with S3's message.
const maxPolicyBody = policy.MaxBucketPolicyBytes + 1

func (h *Handler) putBucketPolicy(w http.ResponseWriter, r *request) error {
	body, err := readSmallBody(r.Request, maxPolicyBody, true)
	if err != nil {
		return err
	}
	p, err := authz.ParseBucketPolicy(body, r.route.Bucket)
	if err != nil {
		return err
	}
	if authz.IsPublic(p) {
		// BlockPublicPolicy refuses a public policy and keeps the old one.
		acc, err := h.svc.BucketAccess(r.Context(), r.route.Bucket)
		if err != nil {
			return err
		}
		if acc.Block != nil && acc.Block.BlockPublicPolicy {
			return errAccessDenied
		}
	}
	if err := h.svc.PutBucketPolicy(r.Context(), r.route.Bucket, body); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h *Handler) getBucketPolicy(w http.ResponseWriter, r *request) error {
	doc, err := h.svc.GetBucketPolicy(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(doc)
	return err
}

func (h *Handler) deleteBucketPolicy(w http.ResponseWriter, r *request) error {
	if err := h.svc.DeleteBucketPolicy(r.Context(), r.route.Bucket); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// policyStatus is GetBucketPolicyStatus's answer.
type policyStatus struct {
	XMLName  struct{} `xml:"PolicyStatus"`
	Xmlns    string   `xml:"xmlns,attr"`
	IsPublic bool     `xml:"IsPublic"`
}

func (h *Handler) getBucketPolicyStatus(w http.ResponseWriter, r *request) error {
	doc, err := h.svc.GetBucketPolicy(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	p, err := policy.Parse(doc, policy.Resource)
	if err != nil {
		return err
	}
	return writeXML(w, http.StatusOK, policyStatus{Xmlns: s3Namespace, IsPublic: authz.IsPublic(p)})
}
