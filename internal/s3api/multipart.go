package s3api

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/checksum"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/service"
)

func (h *Handler) createMultipartUpload(w http.ResponseWriter, r *request) error {
	headers, userMeta, err := parseObjectHeaders(r.Header)
	if err != nil {
		return err
	}
	class, err := storageClassHeader(r.Header)
	if err != nil {
		return err
	}
	tags, err := taggingHeader(r.Header)
	if err != nil {
		return err
	}
	lock, err := lockRequest(r.Header)
	if err != nil {
		return err
	}
	enc, err := h.writeACL(r, r.Header)
	if err != nil {
		return err
	}
	u := meta.Upload{ACL: enc,
		Bucket: r.route.Bucket, Key: r.route.Key, Owner: r.auth.AccessKey, Tags: tags,
		StorageClass: class, Headers: headers, UserMeta: userMeta,
		ChecksumType: strings.ToUpper(r.Header.Get("X-Amz-Checksum-Type")),
	}
	if !lock.Lock.IsZero() {
		u.Lock = &lock.Lock
	}
	if v := r.Header.Get("X-Amz-Checksum-Algorithm"); v != "" {
		a, err := checksum.ParseAlgorithm(v)
		if err != nil {
			return apiErr(http.StatusBadRequest, "InvalidRequest", "Checksum algorithm %q is not supported.", v)
		}
		u.ChecksumAlgorithm = string(a)
	}
	req, err := h.sseRequest(r, r.Header)
	if err != nil {
		return err
	}
	u, err = h.svc.CreateUpload(r.Context(), u, req)
	if err != nil {
		return err
	}
	h.setEncryptionHeaders(w.Header(), u.Encryption, req.CustomerKey, true)
	if u.ChecksumAlgorithm != "" {
		w.Header().Set("X-Amz-Checksum-Algorithm", u.ChecksumAlgorithm)
		w.Header().Set("X-Amz-Checksum-Type", u.ChecksumType)
	}
	return writeXML(w, http.StatusOK, initiateMultipartUploadResult{
		Xmlns: s3Namespace, Bucket: u.Bucket, Key: u.Key, UploadID: u.UploadID,
	})
}

// partNumber parses the partNumber query parameter.
func partNumber(q url.Values) (int, error) {
	n, err := strconv.Atoi(q.Get("partNumber"))
	if err != nil || n < 1 || n > service.MaxParts {
		return 0, service.ErrInvalidPartNumber
	}
	return n, nil
}

func (h *Handler) uploadPart(w http.ResponseWriter, r *request) error {
	q := r.query()
	n, err := partNumber(q)
	if err != nil {
		return err
	}
	md5sum, err := contentMD5(r.Header)
	if err != nil {
		return err
	}
	customerKey, err := h.customerKey(r, r.Header, objectSSEC)
	if err != nil {
		return err
	}
	body, size, ck, err := h.uploadBody(r)
	if err != nil {
		return err
	}
	in := service.PartInput{
		Bucket: r.route.Bucket, Key: r.route.Key, UploadID: q.Get("uploadId"), Number: n, CustomerKey: customerKey,
		Body: body, Size: size, ContentMD5: md5sum, Checksums: ck, Integrity: md5sum != nil || len(ck.Verify) > 0,
	}
	p, err := h.svc.UploadPart(r.Context(), in)
	if err != nil {
		return err
	}
	h.setEncryptionHeaders(w.Header(), p.Encryption, customerKey, false)
	w.Header().Set("ETag", `"`+p.ETag+`"`)
	if p.ChecksumAlgorithm != "" {
		w.Header().Set(checksum.Algorithm(p.ChecksumAlgorithm).HeaderName(), p.Checksum)
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

func (h *Handler) uploadPartCopy(w http.ResponseWriter, r *request) error {
	q := r.query()
	n, err := partNumber(q)
	if err != nil {
		return err
	}
	in := service.PartCopyInput{Bucket: r.route.Bucket, Key: r.route.Key, UploadID: q.Get("uploadId"), Number: n}
	if in.SrcCustomerKey, err = h.customerKey(r, r.Header, copySourceSSEC); err != nil {
		return err
	}
	if in.CustomerKey, err = h.customerKey(r, r.Header, objectSSEC); err != nil {
		return err
	}
	if in.SrcBucket, in.SrcKey, in.SrcVersion, err = parseCopySource(r.Header.Get("X-Amz-Copy-Source")); err != nil {
		return err
	}
	if v := r.Header.Get("X-Amz-Copy-Source-Range"); v != "" {
		first, last, ok := strings.Cut(strings.TrimPrefix(v, "bytes="), "-")
		f, err1 := strconv.ParseInt(first, 10, 64)
		l, err2 := strconv.ParseInt(last, 10, 64)
		if !strings.HasPrefix(v, "bytes=") || !ok || err1 != nil || err2 != nil {
			return service.ErrInvalidCopyRange
		}
		in.HasRange, in.First, in.Last = true, f, l
	}
	srcOpened := false // CheckSource runs once the source is open
	in.CheckSource = func(src meta.Object) error {
		srcOpened = true
		return checkConditions(r.Header, copyConditions, src, errPrecondition)
	}
	in.Throttle = h.scheduledCopy(r)
	p, src, err := h.svc.UploadPartCopy(r.Context(), in)
	if err != nil {
		return copySourceError(err, in.SrcVersion, srcOpened)
	}
	if v := h.svc.VersionHeader(r.Context(), in.SrcBucket, src.VersionID); v != "" {
		w.Header().Set("X-Amz-Copy-Source-Version-Id", v)
	}
	h.setEncryptionHeaders(w.Header(), p.Encryption, in.CustomerKey, false)
	res := copyPartResult{Xmlns: s3Namespace, LastModified: iso8601(p.LastModified), ETag: `"` + p.ETag + `"`}
	res.checksumFields = partChecksum(p)
	return writeXML(w, http.StatusOK, res)
}

func (h *Handler) completeMultipartUpload(w http.ResponseWriter, r *request) error {
	var body completeMultipartUpload
	if err := readXML(r.Request, &body); err != nil {
		return err
	}
	cond, err := writeCondition(r.Header)
	if err != nil {
		return err
	}
	customerKey, err := h.customerKey(r, r.Header, objectSSEC)
	if err != nil {
		return err
	}
	in := service.CompleteInput{Bucket: r.route.Bucket, Key: r.route.Key, UploadID: r.query().Get("uploadId"), Cond: cond,
		ChecksumType: strings.ToUpper(r.Header.Get("X-Amz-Checksum-Type")), ObjectSize: -1}
	if v := r.Header.Get("X-Amz-Mp-Object-Size"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return apiErr(http.StatusBadRequest, "InvalidArgument", "The x-amz-mp-object-size header is not a valid size.")
		}
		in.ObjectSize = n
	}
	if len(body.Parts) > service.MaxParts {
		return errMalformedXML
	}
	for _, p := range body.Parts {
		_, v, _ := p.checksumFields.only()
		in.Parts = append(in.Parts, service.CompletedPart{Number: p.PartNumber, ETag: strings.Trim(p.ETag, `"`), Checksum: v})
	}
	for _, a := range checksum.Algorithms {
		if v := r.Header.Get(a.HeaderName()); v != "" {
			in.Checksum = v
		}
	}
	o, err := h.svc.CompleteUpload(r.Context(), in)
	if err != nil {
		return err
	}
	h.setVersionHeader(w, r, o.VersionID)
	h.setEncryptionHeaders(w.Header(), o.Encryption, customerKey, false)
	res := completeMultipartUploadResult{
		Xmlns: s3Namespace, Location: "/" + o.Bucket + "/" + o.Key, Bucket: o.Bucket, Key: o.Key,
		ETag: `"` + o.ETag + `"`, ChecksumType: o.Checksum.Type,
	}
	res.checksumFields.set(o.Checksum.Algorithm, o.Checksum.Value)
	h.setExpiration(w.Header(), r, o)
	return writeXML(w, http.StatusOK, res)
}

func (h *Handler) abortMultipartUpload(w http.ResponseWriter, r *request) error {
	var initiated time.Time
	if v := r.Header.Get("X-Amz-If-Match-Initiated-Time"); v != "" {
		t, ok := parseHTTPTime(v)
		if !ok {
			return apiErr(http.StatusBadRequest, "InvalidArgument", "The x-amz-if-match-initiated-time header is not a valid HTTP date.")
		}
		initiated = t
	}
	if err := h.svc.AbortUpload(r.Context(), r.route.Bucket, r.route.Key, r.query().Get("uploadId"), initiated); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// intParam parses an optional non-negative integer query parameter.
func intParam(q url.Values, name string, def int) (int, error) {
	v, ok := q[name]
	if !ok || v[0] == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v[0])
	if err != nil || n < 0 {
		return 0, apiErr(http.StatusBadRequest, "InvalidArgument", "%s must be a non-negative integer", name)
	}
	return n, nil
}

func (h *Handler) listParts(w http.ResponseWriter, r *request) error {
	q := r.query()
	marker, err := intParam(q, "part-number-marker", 0)
	if err != nil {
		return err
	}
	maxParts, err := intParam(q, "max-parts", 1000)
	if err != nil {
		return err
	}
	maxParts = min(maxParts, 1000)
	if _, err := h.customerKey(r, r.Header, objectSSEC); err != nil { // S3 takes it; the parts need no key to be listed
		return err
	}
	uploadID := q.Get("uploadId")
	u, err := h.svc.GetUpload(r.Context(), r.route.Bucket, r.route.Key, uploadID)
	if err != nil {
		return err
	}
	var parts []meta.Part
	truncated := false
	if maxParts > 0 {
		if parts, truncated, err = h.svc.ListParts(r.Context(), r.route.Bucket, r.route.Key, uploadID, marker, maxParts); err != nil {
			return err
		}
	}
	own := ownerOf(u.Owner)
	res := listPartsResult{
		Xmlns: s3Namespace, Bucket: u.Bucket, Key: u.Key, UploadID: u.UploadID, Initiator: own, Owner: own,
		StorageClass: storageClass(u.StorageClass), PartNumberMarker: marker, MaxParts: maxParts, IsTruncated: truncated,
		ChecksumAlgorithm: u.ChecksumAlgorithm, ChecksumType: u.ChecksumType,
	}
	for _, p := range parts {
		res.Parts = append(res.Parts, partEntry{PartNumber: p.Number, LastModified: iso8601(p.LastModified),
			ETag: `"` + p.ETag + `"`, Size: p.Size, checksumFields: partChecksum(p)})
		res.NextPartNumberMarker = p.Number
	}
	return writeXML(w, http.StatusOK, res)
}

func (h *Handler) listMultipartUploads(w http.ResponseWriter, r *request) error {
	q := r.query()
	p, err := parseListParams(q)
	if err != nil {
		return err
	}
	maxUploads, err := intParam(q, "max-uploads", 1000)
	if err != nil {
		return err
	}
	maxUploads = min(maxUploads, 1000)
	opts := meta.ListUploadsOptions{
		Prefix: p.prefix, Delimiter: p.delimiter, KeyMarker: q.Get("key-marker"),
		UploadIDMarker: q.Get("upload-id-marker"), Limit: maxUploads,
	}
	page, err := h.svc.ListUploads(r.Context(), r.route.Bucket, opts)
	if err != nil {
		return err
	}
	if maxUploads == 0 {
		if _, err := h.svc.GetBucket(r.Context(), r.route.Bucket); err != nil {
			return err
		}
	}
	res := listMultipartUploadsResult{
		Xmlns: s3Namespace, Bucket: r.route.Bucket, KeyMarker: p.enc(opts.KeyMarker), UploadIDMarker: opts.UploadIDMarker,
		Prefix: p.enc(p.prefix), Delimiter: p.enc(p.delimiter), MaxUploads: maxUploads, EncodingType: p.encoding,
		IsTruncated: page.Truncated,
	}
	if page.Truncated {
		res.NextKeyMarker, res.NextUploadIDMarker = p.enc(page.NextKeyMarker), page.NextUploadIDMarker
	}
	for _, u := range page.Uploads {
		own := ownerOf(u.Owner)
		res.Uploads = append(res.Uploads, uploadEntry{Key: p.enc(u.Key), UploadID: u.UploadID, Initiator: own, Owner: own,
			StorageClass: storageClass(u.StorageClass), Initiated: iso8601(u.Initiated),
			ChecksumAlgorithm: u.ChecksumAlgorithm, ChecksumType: u.ChecksumType})
	}
	for _, cp := range page.CommonPrefixes {
		res.CommonPrefixes = append(res.CommonPrefixes, commonPrefix{Prefix: p.enc(cp)})
	}
	return writeXML(w, http.StatusOK, res)
}
