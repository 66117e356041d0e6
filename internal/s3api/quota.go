package s3api

import (
	"encoding/xml"
	"net/http"
	"strconv"

	"github.com/jogstore/jog/internal/units"
)

// Bucket quotas (JOG extension; docs/QOS.md): a size stored with the
// bucket that its stored versions may not exceed, set at creation
// (x-jog-bucket-quota) or through ?quota.
//
//	PUT    /{bucket}?quota   body bucketQuota (QuotaBytes) → 200
//	GET    /{bucket}?quota   → bucketQuota (QuotaBytes omitted when none, UsedBytes,
//	                           ObjectCount: the keys whose latest version is not a
//	                           delete marker)
//	DELETE /{bucket}?quota   → 204

// QuotaHeader sets a bucket's quota at CreateBucket: bytes, optionally
// with a unit (10GiB).
const QuotaHeader = "X-Jog-Bucket-Quota"

type bucketQuota struct {
	XMLName     xml.Name `xml:"BucketQuota"`
	Xmlns       string   `xml:"xmlns,attr,omitempty"`
	QuotaBytes  int64    `xml:"QuotaBytes,omitempty"`
	UsedBytes   int64    `xml:"UsedBytes"`
	ObjectCount int64    `xml:"ObjectCount"`
}

// quotaHeader reads x-jog-bucket-quota: 0 when absent.
func quotaHeader(h http.Header) (int64, error) {
	v := h.Get(QuotaHeader)
	if v == "" {
		return 0, nil
	}
	n, err := units.ParseSize(v)
	if err != nil || n <= 0 {
		return 0, apiErr(http.StatusBadRequest, "InvalidArgument", "%s must be a positive number of bytes (10737418240 or 10GiB), got %q.", QuotaHeader, v)
	}
	return n, nil
}

func (h *Handler) putBucketQuota(w http.ResponseWriter, r *request) error {
	body, err := readSmallBody(r.Request, maxXMLBody, true)
	if err != nil {
		return err
	}
	var q bucketQuota
	if err := xml.Unmarshal(body, &q); err != nil {
		return errMalformedXML
	}
	if q.QuotaBytes <= 0 {
		return apiErr(http.StatusBadRequest, "InvalidArgument", "QuotaBytes must be a positive number of bytes; DELETE ?quota removes the quota.")
	}
	if err := h.svc.SetBucketQuota(r.Context(), r.route.Bucket, q.QuotaBytes); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

func (h *Handler) getBucketQuota(w http.ResponseWriter, r *request) error {
	quota, used, err := h.svc.BucketQuota(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	w.Header().Set("X-Jog-Bucket-Usage", strconv.FormatInt(used.Bytes, 10))
	w.Header().Set("X-Jog-Bucket-Objects", strconv.FormatInt(used.Objects, 10))
	return writeXML(w, http.StatusOK, bucketQuota{Xmlns: s3Namespace, QuotaBytes: quota, UsedBytes: used.Bytes, ObjectCount: used.Objects})
}

func (h *Handler) deleteBucketQuota(w http.ResponseWriter, r *request) error {
	if err := h.svc.SetBucketQuota(r.Context(), r.route.Bucket, 0); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
