package s3api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/jogstore/jog/internal/cors"
	"github.com/jogstore/jog/internal/meta"
)

func (h *Handler) putBucketCors(w http.ResponseWriter, r *request) error {
	body, err := readSmallBody(r.Request, cors.MaxDocument, true)
	if err != nil {
		return err
	}
	c, err := cors.ParseXML(body)
	if err != nil {
		return err
	}
	if err := h.svc.PutBucketCORS(r.Context(), r.route.Bucket, c); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

func (h *Handler) getBucketCors(w http.ResponseWriter, r *request) error {
	c, err := h.svc.GetBucketCORS(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	c.Xmlns = s3Namespace
	return writeXML(w, http.StatusOK, c)
}

func (h *Handler) deleteBucketCors(w http.ResponseWriter, r *request) error {
	if err := h.svc.DeleteBucketCORS(r.Context(), r.route.Bucket); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// preflight answers a CORS preflight (OPTIONS) from the bucket's rules,
// without authentication.
func (h *Handler) preflight(w http.ResponseWriter, r *request) error {
	method, hasMethod := r.Header.Get("Access-Control-Request-Method"), len(r.Header["Access-Control-Request-Method"]) > 0
	m, err := h.svc.PreflightCORS(r.Context(), r.route.Bucket, r.Header.Get("Origin"), method,
		strings.Join(r.Header.Values("Access-Control-Request-Headers"), ","), hasMethod)
	var badMethod *cors.MethodError
	switch {
	case errors.Is(err, cors.ErrNoOrigin) || errors.As(err, &badMethod):
		return err
	case err != nil: // a refusal (403): S3 names the method and resource
		if !hasMethod {
			method = http.MethodOptions
		}
		// An OBJECT once rules were evaluated for a key.
		resource := "BUCKET"
		if r.route.Key != "" && errors.Is(err, cors.ErrNotAllowed) {
			resource = "OBJECT"
		}
		return &corsDenied{err: err, method: method, resourceType: resource}
	}
	m.SetHeaders(w.Header(), true)
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
	return nil
}

// corsDenied carries what S3's refusal of a preflight names besides its
// code: the requested method and the kind of resource.
type corsDenied struct {
	err                  error
	method, resourceType string
}

func (e *corsDenied) Error() string { return e.err.Error() }
func (e *corsDenied) Unwrap() error { return e.err }

// setCORSHeaders adds the CORS headers of an actual request (one with
// Origin) that a rule of its bucket allows, before anything else runs:
// errors carry them too, as in S3. A bucket's rules come from a cache.
func (h *Handler) setCORSHeaders(w http.ResponseWriter, r *request, origin string) {
	rules, err := h.svc.BucketCORS(r.Context(), r.route.Bucket)
	if err != nil {
		if !errors.Is(err, meta.ErrBucketNotFound) {
			h.log.Warn("CORS rules not read", "id", r.id, "bucket", r.route.Bucket, "err", err)
		}
		return
	}
	method := r.Method
	if v := r.Header["Access-Control-Request-Method"]; len(v) > 0 {
		method = v[0]
	}
	if m, ok := rules.Actual(origin, method); ok {
		m.SetHeaders(w.Header(), false)
	}
}
