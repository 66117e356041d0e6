package s3api

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"

	"github.com/jogstore/jog/internal/meta"
)

const maxListKeys = 1000

// listParams are the query parameters both listing versions share.
type listParams struct {
	prefix, delimiter, encoding string
	maxKeys                     int
}

func parseListParams(q url.Values) (listParams, error) {
	p := listParams{prefix: q.Get("prefix"), delimiter: q.Get("delimiter"), encoding: q.Get("encoding-type"), maxKeys: maxListKeys}
	if p.encoding != "" && p.encoding != "url" {
		return p, apiErr(http.StatusBadRequest, "InvalidArgument", "Invalid Encoding Method specified in Request")
	}
	if v, ok := q["max-keys"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 0 {
			return p, apiErr(http.StatusBadRequest, "InvalidArgument", "Provided max-keys not an integer or within integer range")
		}
		p.maxKeys = min(n, maxListKeys)
	}
	return p, nil
}

// enc encodes a name for the response as encoding-type asks (urlEncode).
func (p listParams) enc(s string) string {
	if p.encoding == "url" {
		return urlEncode(s)
	}
	return s
}

func (h *Handler) list(r *request, p listParams, after string) (meta.ListPage, error) {
	if p.maxKeys == 0 {
		_, err := h.svc.GetBucket(r.Context(), r.route.Bucket)
		return meta.ListPage{}, err
	}
	return h.svc.ListObjects(r.Context(), r.route.Bucket, meta.ListOptions{
		Prefix: p.prefix, Delimiter: p.delimiter, After: after, Limit: p.maxKeys,
	})
}

// fill copies a page into the response, encoding names if asked.
func (p listParams) fill(res *listBucketResult, page meta.ListPage, withOwner *owner) {
	res.Prefix, res.Delimiter, res.MaxKeys = p.enc(p.prefix), p.enc(p.delimiter), p.maxKeys
	res.EncodingType, res.IsTruncated = p.encoding, page.Truncated
	res.Contents = make([]listEntry, 0, len(page.Objects))
	for _, o := range page.Objects {
		res.Contents = append(res.Contents, listEntry{
			Key: p.enc(o.Key), LastModified: iso8601(o.LastModified), ETag: `"` + o.ETag + `"`,
			Size: o.Size, StorageClass: storageClass(o.StorageClass), Owner: withOwner,
		})
	}
	for _, cp := range page.CommonPrefixes {
		res.CommonPrefixes = append(res.CommonPrefixes, commonPrefix{Prefix: p.enc(cp)})
	}
}

func storageClass(s string) string {
	if s == "" {
		return "STANDARD"
	}
	return s
}

func (h *Handler) listObjectsV1(w http.ResponseWriter, r *request) error {
	q := r.query()
	p, err := parseListParams(q)
	if err != nil {
		return err
	}
	marker := q.Get("marker")
	page, err := h.list(r, p, marker)
	if err != nil {
		return err
	}
	own := ownerOf(r.auth.AccessKey)
	res := listBucketResult{Xmlns: s3Namespace, Name: r.route.Bucket}
	encMarker := p.enc(marker)
	res.Marker = &encMarker
	p.fill(&res, page, &own)
	if page.Truncated {
		res.NextMarker = p.enc(page.NextAfter)
	}
	return writeXML(w, http.StatusOK, res)
}

func (h *Handler) listObjectsV2(w http.ResponseWriter, r *request) error {
	q := r.query()
	p, err := parseListParams(q)
	if err != nil {
		return err
	}
	startAfter, token := q.Get("start-after"), q.Get("continuation-token")
	after := startAfter
	if _, ok := q["continuation-token"]; ok {
		if after, err = decodeToken(token); err != nil {
			return err
		}
	}
	page, err := h.list(r, p, after)
	if err != nil {
		return err
	}
	var own *owner
	if q.Get("fetch-owner") == "true" {
		o := ownerOf(r.auth.AccessKey)
		own = &o
	}
	res := listBucketResult{Xmlns: s3Namespace, Name: r.route.Bucket, ContToken: token, StartAfter: p.enc(startAfter)}
	p.fill(&res, page, own)
	n := len(page.Objects) + len(page.CommonPrefixes)
	res.KeyCount = &n
	if page.Truncated {
		res.NextContToken = encodeToken(page.NextAfter)
	}
	return writeXML(w, http.StatusOK, res)
}

// Continuation tokens are opaque to clients: the last key or common prefix
// returned, base64url-encoded behind a version byte.
func encodeToken(after string) string {
	return base64.RawURLEncoding.EncodeToString(append([]byte{1}, after...))
}

func decodeToken(tok string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) == 0 || b[0] != 1 {
		return "", apiErr(http.StatusBadRequest, "InvalidArgument", "The continuation token provided is incorrect")
	}
	return string(b[1:]), nil
}
