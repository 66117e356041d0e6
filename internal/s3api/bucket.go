package s3api

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"github.com/jogstore/jog/internal/meta"
)

// ownerOf returns the S3 owner of an access key: a stable canonical ID and
// the key as display name.
func ownerOf(accessKey string) owner {
	sum := sha256.Sum256([]byte("jog-owner:" + accessKey))
	return owner{ID: hex.EncodeToString(sum[:]), DisplayName: accessKey}
}

func (h *Handler) listBuckets(w http.ResponseWriter, r *request) error {
	buckets, err := h.svc.Meta().ListBuckets(r.Context(), meta.ListBucketsOptions{})
	if err != nil {
		return err
	}
	res := listAllMyBucketsResult{Xmlns: s3Namespace, Owner: ownerOf(r.auth.AccessKey)}
	res.Buckets = make([]bucketInfo, 0, len(buckets))
	for _, b := range buckets {
		res.Buckets = append(res.Buckets, bucketInfo{Name: b.Name, CreationDate: iso8601(b.CreatedAt), BucketRegion: b.Region})
	}
	return writeXML(w, http.StatusOK, res)
}

func (h *Handler) createBucket(w http.ResponseWriter, r *request) error {
	if r.ContentLength != 0 {
		var cfg createBucketConfiguration
		if err := readXML(r.Request, &cfg); err != nil {
			return err
		}
		if loc := cfg.LocationConstraint; loc != "" && loc != h.cfg.Region {
			return apiErr(http.StatusBadRequest, "IllegalLocationConstraintException",
				"The %s location constraint is incompatible for the region specific endpoint this request was sent to (%s).", loc, h.cfg.Region)
		}
	}
	if err := h.svc.CreateBucket(r.Context(), r.route.Bucket, h.cfg.Region, r.auth.AccessKey); err != nil {
		return err
	}
	w.Header().Set("Location", "/"+r.route.Bucket)
	w.WriteHeader(http.StatusOK)
	return nil
}

func (h *Handler) headBucket(w http.ResponseWriter, r *request) error {
	b, err := h.svc.Meta().GetBucket(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	w.Header().Set("x-amz-bucket-region", b.Region)
	w.WriteHeader(http.StatusOK)
	return nil
}

func (h *Handler) deleteBucket(w http.ResponseWriter, r *request) error {
	if err := h.svc.DeleteBucket(r.Context(), r.route.Bucket); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h *Handler) getBucketLocation(w http.ResponseWriter, r *request) error {
	b, err := h.svc.Meta().GetBucket(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	loc := b.Region
	if loc == "us-east-1" {
		loc = "" // S3 reports the default region as an empty constraint
	}
	return writeXML(w, http.StatusOK, locationConstraint{Xmlns: s3Namespace, Region: loc})
}
