package s3api

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/sse"
)

// getObjectAttributes answers GetObjectAttributes: the attributes named in
// x-amz-object-attributes, with ObjectParts paginated by x-amz-max-parts and
// x-amz-part-number-marker.
func (h *Handler) getObjectAttributes(w http.ResponseWriter, r *request) error {
	want := map[string]bool{}
	for _, v := range r.Header.Values("X-Amz-Object-Attributes") {
		for _, a := range strings.Split(v, ",") {
			want[strings.TrimSpace(a)] = true
		}
	}
	for a := range want {
		switch a {
		case "ETag", "Checksum", "ObjectParts", "StorageClass", "ObjectSize":
		default:
			return apiErr(http.StatusBadRequest, "InvalidArgument", "Invalid attribute name specified: %q", a)
		}
	}
	if len(want) == 0 {
		return apiErr(http.StatusBadRequest, "InvalidArgument", "x-amz-object-attributes header specifying the attributes to be retrieved is either missing or empty")
	}
	maxParts, err := headerInt(r.Header, "X-Amz-Max-Parts", 1000)
	if err != nil {
		return err
	}
	marker, err := headerInt(r.Header, "X-Amz-Part-Number-Marker", 0)
	if err != nil {
		return err
	}
	customerKey, err := h.customerKey(r, r.Header, objectSSEC)
	if err != nil {
		return err
	}
	version := r.query().Get("versionId")
	o, err := h.svc.HeadObject(r.Context(), r.route.Bucket, r.route.Key, version, false)
	if err == nil { // S3 asks an SSE-C object's key here too
		err = sse.CheckCustomerKey(o.Encryption, customerKey)
	}
	if err != nil {
		if dmErr := deleteMarkerError(w, err, version != ""); dmErr != nil {
			return dmErr
		}
		if version != "" && errors.Is(err, meta.ErrObjectNotFound) {
			return errNoSuchVersion
		}
		return err
	}
	h.setVersionHeader(w, r, o.VersionID)
	res := attributesResult{Xmlns: s3Namespace}
	if want["ETag"] {
		res.ETag = o.ETag
	}
	if want["StorageClass"] {
		res.StorageClass = storageClass(o.StorageClass)
	}
	if want["ObjectSize"] {
		res.ObjectSize = &o.Size
	}
	if want["Checksum"] && o.Checksum.Algorithm != "" {
		res.Checksum = &attributeChecksum{ChecksumType: o.Checksum.Type}
		v := o.Checksum.Value
		if o.Checksum.Type == "COMPOSITE" {
			// S3 answers GetObjectAttributes without the "-<parts>" suffix
			// that HEAD, GET and CompleteMultipartUpload carry.
			if i := strings.LastIndexByte(v, '-'); i > 0 {
				v = v[:i]
			}
		}
		res.Checksum.set(o.Checksum.Algorithm, v)
	}
	if want["ObjectParts"] && o.PartsCount > 0 {
		parts, err := h.svc.ObjectParts(r.Context(), o.UploadID)
		if err != nil {
			return err
		}
		op := &attributeParts{TotalPartsCount: o.PartsCount, PartNumberMarker: marker, MaxParts: min(maxParts, 1000)}
		for _, p := range parts {
			if p.Number <= marker {
				continue
			}
			if len(op.Parts) == op.MaxParts {
				op.IsTruncated = true
				break
			}
			ap := attributePart{PartNumber: p.Number, Size: p.Size}
			if o.Checksum.Type == "COMPOSITE" {
				ap.checksumFields = partChecksum(p)
			}
			op.Parts = append(op.Parts, ap)
			op.NextPartNumberMarker = p.Number
		}
		res.ObjectParts = op
	}
	w.Header().Set("Last-Modified", o.LastModified.UTC().Format(http.TimeFormat))
	return writeXML(w, http.StatusOK, res)
}

func headerInt(h http.Header, name string, def int) (int, error) {
	v := h.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, apiErr(http.StatusBadRequest, "InvalidArgument", "%s must be a non-negative integer", name)
	}
	return n, nil
}
