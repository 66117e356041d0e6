package s3api

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/service"
)

// ownerOf returns the S3 owner of an access key: a stable canonical ID and
// the key as display name.
func ownerOf(accessKey string) owner {
	sum := sha256.Sum256([]byte("jog-owner:" + accessKey))
	return owner{ID: hex.EncodeToString(sum[:]), DisplayName: accessKey}
}

// maxBuckets bounds max-buckets; it is also the page size of a ListBuckets
// that sends any of listBucketsParams but max-buckets. Without any of them
// S3 lists every bucket.
const maxBuckets = 10000

// listBucketsParams are the query parameters ListBuckets takes.
var listBucketsParams = []string{"max-buckets", "continuation-token", "prefix", "bucket-region"}

// parseListBuckets reads ListBuckets' query into store options and the
// page size (0: all buckets).
func (h *Handler) parseListBuckets(q url.Values) (opts meta.ListBucketsOptions, limit int, err error) {
	opts.Prefix = q.Get("prefix")
	if firstPresent(q, listBucketsParams) != "" {
		limit = maxBuckets
	}
	if v, ok := q["max-buckets"]; ok {
		n, err := strconv.ParseInt(v[0], 10, 32)
		if err != nil {
			return opts, 0, apiErr(http.StatusBadRequest, "InvalidArgument", "Provided max-buckets not an integer or within integer range")
		}
		if n < 1 || n > maxBuckets {
			return opts, 0, apiErr(http.StatusBadRequest, "InvalidArgument", "Argument max-buckets must be an integer between 1 and %d.", maxBuckets)
		}
		limit = int(n)
	}
	// Every bucket is in the one region JOG serves.
	if v, ok := q["bucket-region"]; ok && !strings.EqualFold(v[0], h.cfg.Region) {
		return opts, 0, apiErr(http.StatusBadRequest, "InvalidArgument", "Requests with bucket-region specified must be made to the corresponding regional endpoint")
	}
	if tok := q.Get("continuation-token"); tok != "" {
		if opts.After, err = decodeToken(tok); err != nil {
			return opts, 0, err
		}
	}
	return opts, limit, nil
}

func (h *Handler) listBuckets(w http.ResponseWriter, r *request) error {
	q := r.query()
	opts, limit, err := h.parseListBuckets(q)
	if err != nil {
		return err
	}
	if limit > 0 {
		opts.Limit = limit + 1 // one more: are there more?
	}
	buckets, err := h.svc.ListBuckets(r.Context(), opts)
	if err != nil {
		return err
	}
	res := listAllMyBucketsResult{Xmlns: s3Namespace, Owner: ownerOf(r.auth.AccessKey)}
	if limit > 0 && len(buckets) > limit {
		buckets = buckets[:limit]
		res.ContToken = encodeToken(buckets[limit-1].Name)
	}
	if _, ok := q["prefix"]; ok {
		res.Prefix = &opts.Prefix
	}
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
	setting, enc, err := h.createBucketAccess(r)
	if err != nil {
		return err
	}
	quota, err := quotaHeader(r.Header)
	if err != nil {
		return err
	}
	b := meta.Bucket{Name: r.route.Bucket, Region: h.cfg.Region, Owner: r.auth.AccessKey, Quota: quota,
		ObjectLock: strings.EqualFold(r.Header.Get("X-Amz-Bucket-Object-Lock-Enabled"), "true")}
	created, err := h.svc.CreateBucketWith(r.Context(), b)
	if err != nil {
		return err
	}
	if created {
		if err := h.setCreatedBucketAccess(r, setting, enc); err != nil {
			return err
		}
	}
	w.Header().Set("Location", "/"+r.route.Bucket)
	w.WriteHeader(http.StatusOK)
	return nil
}

func (h *Handler) headBucket(w http.ResponseWriter, r *request) error {
	b, err := h.svc.GetBucket(r.Context(), r.route.Bucket)
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
	if h.cfg.Reservations != nil {
		h.cfg.Reservations.BucketDeleted(r.route.Bucket)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h *Handler) getBucketLocation(w http.ResponseWriter, r *request) error {
	b, err := h.svc.GetBucket(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	loc := b.Region
	if loc == service.LegacyRegion {
		loc = "" // S3 reports the default region as an empty constraint
	}
	return writeXML(w, http.StatusOK, locationConstraint{Xmlns: s3Namespace, Region: loc})
}

// checkExpectedOwners honours x-amz-expected-bucket-owner and, on copies,
// x-amz-source-expected-bucket-owner: a bucket owned by anyone else than
// the ID named is refused with 403 AccessDenied, as S3 does. Requests
// without them (nearly all) cost two header lookups.
func (h *Handler) checkExpectedOwners(r *request) error {
	if v := r.Header.Get("X-Amz-Expected-Bucket-Owner"); v != "" && r.route.Bucket != "" {
		if err := h.bucketOwnedBy(r, r.route.Bucket, v); err != nil {
			return err
		}
	}
	if v := r.Header.Get("X-Amz-Source-Expected-Bucket-Owner"); v != "" && copies.has(r.route.Op) {
		src, _, _, err := parseCopySource(r.Header.Get("X-Amz-Copy-Source"))
		if err != nil {
			return err
		}
		return h.bucketOwnedBy(r, src, v)
	}
	return nil
}

func (h *Handler) bucketOwnedBy(r *request, bucket, id string) error {
	b, err := h.svc.GetBucket(r.Context(), bucket)
	if err != nil {
		return err
	}
	if ownerOf(b.Owner).ID != id {
		return errAccessDenied
	}
	return nil
}
