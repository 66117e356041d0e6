package s3api

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/service"
)

func (h *Handler) putObject(w http.ResponseWriter, r *request) error {
	if r.ContentLength < 0 {
		return errMissingLength
	}
	if r.ContentLength > service.MaxObjectSize {
		return service.ErrEntityTooLarge
	}
	md5sum, err := contentMD5(r.Header)
	if err != nil {
		return err
	}
	headers, userMeta, err := parseObjectHeaders(r.Header)
	if err != nil {
		return err
	}
	cond, err := writeCondition(r.Header)
	if err != nil {
		return err
	}
	class, err := storageClassHeader(r.Header)
	if err != nil {
		return err
	}
	o, err := h.svc.PutObject(r.Context(), service.PutInput{
		Bucket: r.route.Bucket, Key: r.route.Key, Body: r.Body, Size: r.ContentLength,
		ContentMD5: md5sum, Headers: headers, UserMeta: userMeta, Cond: cond,
		Owner: r.auth.AccessKey, StorageClass: class,
	})
	if err != nil {
		return err
	}
	w.Header().Set("ETag", `"`+o.ETag+`"`)
	w.WriteHeader(http.StatusOK)
	return nil
}

// contentMD5 decodes the Content-MD5 header (nil when absent).
func contentMD5(h http.Header) ([]byte, error) {
	v, ok := h["Content-Md5"]
	if !ok {
		return nil, nil
	}
	sum, err := base64.StdEncoding.DecodeString(v[0])
	if err != nil || len(sum) != 16 {
		return nil, apiErr(http.StatusBadRequest, "InvalidDigest", "The Content-MD5 you specified is not valid.")
	}
	return sum, nil
}

// getObject serves GET and HEAD: conditionals, Range, response-* overrides,
// and a zero-copy body.
func (h *Handler) getObject(w http.ResponseWriter, r *request) error {
	q := r.URL.Query()
	if _, ok := q["partNumber"]; ok {
		return apiErr(http.StatusNotImplemented, "NotImplemented", "partNumber is not supported yet")
	}
	// A named version is served or refused, never replaced by the latest;
	// unversioned writes create the version "null".
	version := q.Get("versionId")
	o, body, err := h.svc.OpenObject(r.Context(), r.route.Bucket, r.route.Key, version)
	if err != nil {
		if version != "" && errors.Is(err, meta.ErrObjectNotFound) {
			return errNoSuchVersion
		}
		return err
	}
	defer body.Close()
	hdr := w.Header()
	hdr.Set("ETag", `"`+o.ETag+`"`)
	hdr.Set("Last-Modified", o.LastModified.UTC().Format(http.TimeFormat))
	if err := checkConditions(r.Header, getConditions, o, errNotModified); err != nil {
		return err
	}
	rng, partial, err := parseRange(r.Header.Get("Range"), o.Size)
	if err != nil {
		hdr.Set("Content-Range", fmt.Sprintf("bytes */%d", o.Size))
		return err
	}
	setObjectHeaders(hdr, o, q)
	status, length := http.StatusOK, o.Size
	if partial {
		status, length = http.StatusPartialContent, rng.length
		hdr.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", rng.start, rng.start+rng.length-1, o.Size))
	}
	hdr.Set("Content-Length", strconv.FormatInt(length, 10))
	if r.Method == http.MethodHead {
		w.WriteHeader(status)
		return nil
	}
	if rng.start > 0 {
		if _, err := body.Seek(rng.start, io.SeekStart); err != nil {
			return err
		}
	}
	w.WriteHeader(status)
	// io.CopyN wraps an *os.File in an io.LimitedReader, which net/http
	// hands to sendfile.
	if _, err := io.CopyN(w, body, length); err != nil {
		return errAfterHeader{err}
	}
	return nil
}

func (h *Handler) deleteObject(w http.ResponseWriter, r *request) error {
	cond, err := writeCondition(r.Header)
	if err != nil {
		return err
	}
	err = h.svc.DeleteObject(r.Context(), r.route.Bucket, r.route.Key, r.URL.Query().Get("versionId"), cond)
	if err != nil && !(err == meta.ErrObjectNotFound && cond.IsZero()) {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
