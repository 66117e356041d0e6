package s3api

import (
	"encoding/xml"
	"net/http"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/service"
)

// maxDeleteObjects is S3's limit on keys per DeleteObjects request.
const maxDeleteObjects = 1000

func (h *Handler) deleteObjects(w http.ResponseWriter, r *request) error {
	body, err := readSmallBody(r.Request, maxXMLBody, true)
	if err != nil {
		return err
	}
	var req deleteRequest
	if err := xml.Unmarshal(body, &req); err != nil || len(req.Objects) == 0 || len(req.Objects) > maxDeleteObjects {
		return errMalformedXML
	}
	req.Objects = uniqueEntries(req.Objects)
	// Every condition is read before anything is deleted: a malformed
	// Size or LastModifiedTime refuses the whole request.
	conds := make([]meta.Condition, len(req.Objects))
	for i, obj := range req.Objects {
		var ok bool
		if conds[i], ok = obj.condition(); !ok {
			return errMalformedXML
		}
	}
	if _, err := h.svc.GetBucket(r.Context(), r.route.Bucket); err != nil {
		return err
	}
	res := deleteResult{Xmlns: s3Namespace}
	bypass := bypassGovernance(r.Header)
	for i, obj := range req.Objects {
		cond := conds[i]
		cond.BypassGovernance = bypass
		var version string
		var d service.DeleteResult
		var err error
		if obj.VersionID != nil {
			version = *obj.VersionID
			// S3 answers a version ID that cannot name a version, here,
			// with the key's NoSuchVersion.
			if checkVersionID(version) != nil {
				err = errNoSuchVersion
			}
		}
		if err == nil {
			err = h.authorizeKey(r, obj.Key, version)
		}
		if err == nil {
			d, err = h.svc.DeleteObject(r.Context(), r.route.Bucket, obj.Key, version, r.auth.AccessKey, cond)
		}
		if err == nil || (err == meta.ErrObjectNotFound && cond.IsZero()) {
			if !req.Quiet {
				e := deletedEntry{Key: obj.Key, VersionID: version, DeleteMarker: d.DeleteMarker}
				// A marker created, or one named and removed: S3 names
				// it in DeleteMarkerVersionId either way.
				if d.DeleteMarker {
					e.DeleteMarkerVersionID = h.svc.VersionHeader(r.Context(), r.route.Bucket, d.VersionID)
				}
				res.Deleted = append(res.Deleted, e)
			}
			continue
		}
		ae, known := toAPIError(err)
		if !known {
			h.log.Error("delete object", "id", r.id, "bucket", r.route.Bucket, "key", obj.Key, "err", err)
		}
		res.Errors = append(res.Errors, deleteError{Key: obj.Key, VersionID: version, Code: ae.Code, Message: ae.Message})
	}
	return writeXML(w, http.StatusOK, res)
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

// uniqueEntries drops the entries that repeat an earlier one: the same
// key, version ID (or none) and conditions. S3 deletes and answers such an
// entry once (as MinIO); done again, a delete without version ID on a
// versioned bucket would add a second delete marker.
func uniqueEntries(objs []deleteObject) []deleteObject {
	type entry struct {
		key, version, etag, modified, size string
		versioned                          bool
	}
	seen := make(map[entry]bool, len(objs))
	out := objs[:0]
	for _, o := range objs {
		e := entry{key: o.Key, etag: o.ETag, modified: o.LastModifiedTime, size: o.Size, versioned: o.VersionID != nil}
		if o.VersionID != nil {
			e.version = *o.VersionID
		}
		if !seen[e] {
			seen[e] = true
			out = append(out, o)
		}
	}
	return out
}
