package s3api

import (
	"net/http"
	"strings"

	"github.com/jogstore/jog/internal/bucketrepl"
	"github.com/jogstore/jog/internal/meta"
)

// maxUserMeta is S3's limit on the total size of x-amz-meta-* headers.
const maxUserMeta = 2048

const metaPrefix = "X-Amz-Meta-"

// parseObjectHeaders reads the content headers and user metadata a write
// stores with the object, byte for byte as sent (but for Content-Encoding's
// aws-chunked token): a header sent on several lines is stored as its
// values joined by ",", as SigV4 canonicalizes them (but Content-Type,
// which SigV2 signs one line of and PostObject parses: a request that
// repeats it is refused before, as the wire table says).
func parseObjectHeaders(h http.Header) (meta.ContentHeaders, map[string]string, error) {
	ch := meta.ContentHeaders{
		ContentType:        headerValue(h, "Content-Type"),
		ContentEncoding:    storedContentEncoding(headerValue(h, "Content-Encoding")),
		ContentDisposition: headerValue(h, "Content-Disposition"),
		ContentLanguage:    headerValue(h, "Content-Language"),
		CacheControl:       headerValue(h, "Cache-Control"),
		Expires:            headerValue(h, "Expires"),
	}
	var um map[string]string
	size := 0
	for k, vs := range h {
		name, ok := strings.CutPrefix(k, metaPrefix)
		if !ok {
			continue
		}
		if um == nil {
			um = make(map[string]string)
		}
		name = strings.ToLower(name)
		v := joinValues(vs)
		um[name] = v
		size += len(name) + len(v)
	}
	if size > maxUserMeta {
		return ch, nil, apiErr(http.StatusBadRequest, "MetadataTooLarge",
			"Your metadata headers exceed the maximum allowed metadata size of %d bytes.", maxUserMeta)
	}
	return ch, um, nil
}

// headerValue is every value of the canonical header name, joined by ","
// (one value: itself, without allocating).
func headerValue(h http.Header, name string) string {
	return joinValues(h[name])
}

func joinValues(vs []string) string {
	if len(vs) == 1 {
		return vs[0]
	}
	return strings.Join(vs, ",")
}

// responseOverrides maps GET's response-* query parameters to the headers
// they replace.
var responseOverrides = map[string]string{
	"response-content-type":        "Content-Type",
	"response-content-language":    "Content-Language",
	"response-expires":             "Expires",
	"response-cache-control":       "Cache-Control",
	"response-content-disposition": "Content-Disposition",
	"response-content-encoding":    "Content-Encoding",
}

// setCanonical sets header k, which is in canonical form already, to v:
// http.Header.Set without canonicalising k again.
func setCanonical(h http.Header, k, v string) { h[k] = []string{v} }

// setObjectHeaders writes an object's stored headers onto a GET/HEAD
// response, then applies response-* overrides from the query.
func setObjectHeaders(h http.Header, o meta.Object, q map[string][]string) {
	ct := o.Headers.ContentType
	if ct == "" {
		ct = "binary/octet-stream"
	}
	// One allocation holds every value set here (http.Header keeps a
	// []string per key); the keys are canonical already. ETag and
	// Last-Modified are planObject's, set before the conditions.
	vals := make([]string, 0, 7)
	set := func(k, v string) {
		vals = append(vals, v)
		h[k] = vals[len(vals)-1 : len(vals) : len(vals)]
	}
	set("Accept-Ranges", "bytes")
	set("Content-Type", ct)
	for _, kv := range [...]struct{ k, v string }{
		{"Content-Encoding", o.Headers.ContentEncoding},
		{"Content-Disposition", o.Headers.ContentDisposition},
		{"Content-Language", o.Headers.ContentLanguage},
		{"Cache-Control", o.Headers.CacheControl},
		{"Expires", o.Headers.Expires},
	} {
		if kv.v != "" {
			set(kv.k, kv.v)
		}
	}
	for k, v := range o.UserMeta {
		h[metaPrefix+k] = []string{v}
	}
	if o.StorageClass != "" && o.StorageClass != "STANDARD" {
		h.Set("x-amz-storage-class", o.StorageClass)
	}
	if o.Replication != "" {
		h[bucketrepl.StatusHeader] = []string{o.Replication}
	}
	setTaggingCount(h, o.Tags)
	if len(q) == 0 {
		return
	}
	for param, header := range responseOverrides {
		if v, ok := q[param]; ok {
			h.Set(header, v[0])
		}
	}
}

// storageClasses are the x-amz-storage-class values S3 accepts. JOG stores
// and lists the class; every class is served alike.
var storageClasses = map[string]bool{
	"STANDARD": true, "REDUCED_REDUNDANCY": true, "STANDARD_IA": true, "ONEZONE_IA": true,
	"INTELLIGENT_TIERING": true, "GLACIER": true, "DEEP_ARCHIVE": true, "OUTPOSTS": true,
	"GLACIER_IR": true, "SNOW": true, "EXPRESS_ONEZONE": true, "FSX_OPENZFS": true,
}

// storageClassHeader reads x-amz-storage-class ("" when absent) and refuses
// values S3 does not know.
func storageClassHeader(h http.Header) (string, error) {
	v := h.Get("X-Amz-Storage-Class")
	if v != "" && !storageClasses[v] {
		return "", apiErr(http.StatusBadRequest, "InvalidStorageClass", "The storage class you specified is not valid.")
	}
	return v, nil
}
