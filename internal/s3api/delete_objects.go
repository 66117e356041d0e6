package s3api

import (
	"bytes"
	"crypto/md5"
	"encoding/xml"
	"io"
	"net/http"

	"github.com/jogstore/jog/internal/checksum"
	"github.com/jogstore/jog/internal/meta"
)

// maxDeleteObjects is S3's limit on keys per DeleteObjects request.
const maxDeleteObjects = 1000

func (h *Handler) deleteObjects(w http.ResponseWriter, r *request) error {
	body, err := readSmallBody(r.Request, true)
	if err != nil {
		return err
	}
	var req deleteRequest
	if err := xml.Unmarshal(body, &req); err != nil || len(req.Objects) == 0 || len(req.Objects) > maxDeleteObjects {
		return errMalformedXML
	}
	// Every condition is read before anything is deleted: a malformed
	// Size or LastModifiedTime refuses the whole request.
	conds := make([]meta.Condition, len(req.Objects))
	for i, obj := range req.Objects {
		var ok bool
		if conds[i], ok = obj.condition(); !ok {
			return errMalformedXML
		}
	}
	if _, err := h.svc.Meta().GetBucket(r.Context(), r.route.Bucket); err != nil {
		return err
	}
	res := deleteResult{Xmlns: s3Namespace}
	for i, obj := range req.Objects {
		cond := conds[i]
		err := h.svc.DeleteObject(r.Context(), r.route.Bucket, obj.Key, obj.VersionID, cond)
		if err == nil || (err == meta.ErrObjectNotFound && cond.IsZero()) {
			if !req.Quiet {
				res.Deleted = append(res.Deleted, deletedEntry{Key: obj.Key, VersionID: obj.VersionID})
			}
			continue
		}
		ae, known := toAPIError(err)
		if !known {
			h.log.Error("delete object", "id", r.id, "bucket", r.route.Bucket, "key", obj.Key, "err", err)
		}
		res.Errors = append(res.Errors, deleteError{Key: obj.Key, VersionID: obj.VersionID, Code: ae.Code, Message: ae.Message})
	}
	return writeXML(w, http.StatusOK, res)
}

// readSmallBody reads a request body of at most maxXMLBody bytes whole and
// verifies its Content-MD5 and, with checksums, the x-amz-checksum-*
// headers SDKs send in place of it. (CompleteMultipartUpload's checksum
// headers name the object's checksum, not the body's.)
func readSmallBody(r *http.Request, checksums bool) ([]byte, error) {
	want, err := contentMD5(r.Header)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxXMLBody+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxXMLBody {
		return nil, apiErr(http.StatusBadRequest, "MaxMessageLengthExceeded", "Your request was too big.")
	}
	if sum := md5.Sum(body); want != nil && !bytes.Equal(want, sum[:]) {
		return nil, apiErr(http.StatusBadRequest, "BadDigest", "The Content-MD5 you specified did not match what we received.")
	}
	if !checksums {
		return body, nil
	}
	for _, a := range checksum.Algorithms {
		v := r.Header.Get(a.HeaderName())
		if v == "" {
			continue
		}
		hash := a.New()
		hash.Write(body)
		if checksum.Encode(hash.Sum(nil)) != v {
			return nil, apiErr(http.StatusBadRequest, "BadDigest", "The %s you specified did not match the calculated checksum.", a.HeaderName())
		}
	}
	return body, nil
}

// condition is the meta.Condition an <Object> names; ok is false when its
// Size or LastModifiedTime is not a valid value.
func (o deleteObject) condition() (c meta.Condition, ok bool) {
	setIfMatch(&c, o.ETag)
	if o.Size != "" {
		n, err := parseMatchSize(o.Size)
		if err != nil {
			return c, false
		}
		c.IfMatchSize = &n
	}
	if o.LastModifiedTime != "" {
		if c.IfMatchLastModified, ok = parseMatchTime(o.LastModifiedTime); !ok {
			return c, false
		}
	}
	return c, true
}
