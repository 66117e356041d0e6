package s3api

import (
	"encoding/xml"
	"net/http"

	"github.com/jogstore/jog/internal/meta"
)

// maxDeleteObjects is S3's limit on keys per DeleteObjects request.
const maxDeleteObjects = 1000

func (h *Handler) deleteObjects(w http.ResponseWriter, r *request) error {
	body, err := readSmallBody(r, maxXMLBody)
	if err != nil {
		return err
	}
	var req deleteRequest
	if err := xml.Unmarshal(body, &req); err != nil || len(req.Objects) == 0 || len(req.Objects) > maxDeleteObjects {
		return errMalformedXML
	}
	if _, err := h.svc.Meta().GetBucket(r.Context(), r.route.Bucket); err != nil {
		return err
	}
	res := deleteResult{Xmlns: s3Namespace}
	for _, obj := range req.Objects {
		var cond meta.Condition
		if obj.ETag != "" {
			cond.IfMatch = obj.ETag
		}
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
