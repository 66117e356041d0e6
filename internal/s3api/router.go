package s3api

import (
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Route is what the router makes of a request: the operation and the
// resource it acts on.
type Route struct {
	Op     Op
	Bucket string
	Key    string
	// Sub names the subresource of an OpUnsupported route (e.g. "versioning").
	Sub string
	// Version: the request names a version (a versionId query parameter),
	// which S3 authorises with other actions (Route.Actions).
	Version bool
	// SourceVersion: the copy source (x-amz-copy-source) of a CopyObject
	// or UploadPartCopy names a version (Route.SourceAction).
	SourceVersion bool
}

// bucketSubresources are query parameters that select a bucket-level S3 API
// JOG does not implement yet.
var bucketSubresources = []string{
	"accelerate", "analytics", "intelligent-tiering",
	"inventory", "metrics",
	"requestPayment", "website",
	"metadataConfiguration", "metadataTable",
}

// objectSubresources select object-level APIs not implemented yet.
var objectSubresources = []string{
	"restore", "select", "torrent",
}

// ParseRoute turns method, host, path and query into a Route. domain, when
// set, enables virtual-hosted-style addressing (<bucket>.<domain>). The key is
// the decoded path exactly as sent: no cleaning, so "a//b" and "../x" are
// keys like any other. It reads the query only through routingQuery: the
// parameters of routingParams (routeparams.go), every one of which SigV2
// signs or changes nothing S3 authorises.
func ParseRoute(r *http.Request, domain string) Route {
	return parseRoute(r, domain, r.URL.Query())
}

// parseRoute is ParseRoute of a request whose query is parsed already.
func parseRoute(r *http.Request, domain string, query url.Values) Route {
	bucket, key := splitPath(r.URL.Path)
	if b, ok := virtualHostBucket(r.Host, domain); ok {
		bucket, key = b, strings.TrimPrefix(r.URL.Path, "/")
	}
	q := routingQuery{query}
	rt := Route{Bucket: bucket, Key: key}
	switch {
	case r.Method == http.MethodOptions:
		rt.Op = OpPreflight
		return rt
	case bucket == "":
		if r.Method == http.MethodGet {
			rt.Op = OpListBuckets
		}
		return rt
	case key == "":
		rt.Op = bucketOp(r.Method, q)
		if rt.Op == OpUnknown && r.Method == http.MethodPost && isForm(r.Header.Get("Content-Type")) {
			rt.Op = OpPostObject
		}
	default:
		rt.Op = objectOp(r, q)
	}
	rt.Version = key != "" && has(q, "versionId")
	if operations[rt.Op].source != "" {
		rt.SourceVersion = copySourceVersion(r.Header.Get("X-Amz-Copy-Source")) != ""
	}
	if rt.Op == OpUnsupported {
		rt.Sub = firstRouting(q, bucketSubresources)
		if key != "" {
			rt.Sub = firstRouting(q, objectSubresources)
		}
	}
	return rt
}

// methods is an operation per HTTP method: OpUnknown where it has none.
type methods struct{ get, put, post, del Op }

func (m methods) op(method string) Op {
	if p := m.slot(method); p != nil {
		return *p
	}
	return OpUnknown
}

// slot is where m holds method's operation: nil for another method.
func (m *methods) slot(method string) *Op {
	switch method {
	case http.MethodGet:
		return &m.get
	case http.MethodPut:
		return &m.put
	case http.MethodPost:
		return &m.post
	case http.MethodDelete:
		return &m.del
	}
	return nil
}

// subresource is a query parameter that selects an operation by method.
type subresource struct {
	param string
	ops   methods
	// list is the operation of a GET without ?id, where the subresource
	// holds configurations named by id (List…Configurations): OpUnknown
	// for none.
	list Op
	// unsupported: a method without an operation is OpUnsupported (a
	// configuration JOG only reads, among bucketSubresources), not
	// OpUnknown.
	unsupported bool
}

// bucketRoutes and objectRoutes are the subresources JOG serves, from the
// operation table's routes. The first present, in Op order, chooses the
// operation; a method it lacks is OpUnknown (or OpUnsupported).
var (
	bucketRoutes = subresources(atBucket, bucketSubresources)
	objectRoutes = subresources(atObject, objectSubresources)
)

// subresources gathers the routes of the operations on a level by
// parameter, in the order of their first operation.
func subresources(on level, unsupported []string) []subresource {
	var out []subresource
	for o := Op(0); o < numOps; o++ {
		k := operations[o].route
		if k.on != on {
			continue
		}
		i := slices.IndexFunc(out, func(s subresource) bool { return s.param == k.param })
		if i < 0 {
			out = append(out, subresource{param: k.param, unsupported: slices.Contains(unsupported, k.param)})
			i = len(out) - 1
		}
		if k.list {
			out[i].list = o
		} else if p := out[i].ops.slot(k.method); p != nil {
			*p = o
		}
	}
	return out
}

// subresourceOp is the operation of the first of routes present in q
// (skipping those unsupported for the method): ok is false when none is.
func subresourceOp(routes []subresource, method string, q routingQuery) (op Op, ok bool) {
	for _, s := range routes {
		if !has(q, s.param) {
			continue
		}
		op = s.ops.op(method)
		switch {
		case op == OpUnknown && s.unsupported:
			continue // another subresource may route it, or it is unsupported
		case method == http.MethodGet && s.list != OpUnknown && !has(q, "id"):
			return s.list, true
		}
		return op, true
	}
	return OpUnknown, false
}

func bucketOp(method string, q routingQuery) Op {
	if op, ok := subresourceOp(bucketRoutes, method, q); ok {
		return op
	}
	if firstRouting(q, bucketSubresources) != "" {
		return OpUnsupported
	}
	switch method {
	case http.MethodPut:
		return OpCreateBucket
	case http.MethodHead:
		return OpHeadBucket
	case http.MethodDelete:
		return OpDeleteBucket
	case http.MethodGet:
		switch {
		case has(q, "uploads"):
			return OpListMultipartUploads
		case has(q, "location"):
			return OpGetBucketLocation
		case has(q, "versions"):
			return OpListObjectVersions
		case q.Get("list-type") == "2":
			return OpListObjectsV2
		default:
			return OpListObjects
		}
	case http.MethodPost:
		if has(q, "delete") {
			return OpDeleteObjects
		}
	}
	return OpUnknown
}

func objectOp(r *http.Request, q routingQuery) Op {
	if op, ok := subresourceOp(objectRoutes, r.Method, q); ok {
		return op
	}
	if firstRouting(q, objectSubresources) != "" {
		return OpUnsupported
	}
	upload := has(q, "uploadId")
	switch r.Method {
	case http.MethodPut:
		copySource := r.Header.Get("X-Amz-Copy-Source") != ""
		switch {
		case upload && copySource:
			return OpUploadPartCopy
		case upload:
			return OpUploadPart
		case copySource:
			return OpCopyObject
		}
		return OpPutObject
	case http.MethodPost:
		switch {
		case has(q, "uploads"):
			return OpCreateMultipartUpload
		case upload:
			return OpCompleteMultipartUpload
		}
	case http.MethodGet:
		switch {
		case upload:
			return OpListParts
		case has(q, "attributes"):
			return OpGetObjectAttributes
		}
		return OpGetObject
	case http.MethodHead:
		return OpHeadObject
	case http.MethodDelete:
		if upload {
			return OpAbortMultipartUpload
		}
		return OpDeleteObject
	}
	return OpUnknown
}

// isForm reports whether a Content-Type is multipart/form-data: a POST of
// one to a bucket is a browser-based upload (PostObject).
func isForm(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "multipart/form-data")
}

// splitPath splits "/bucket/key..." at the first slash after the bucket.
func splitPath(p string) (bucket, key string) {
	p = strings.TrimPrefix(p, "/")
	bucket, key, _ = strings.Cut(p, "/")
	return bucket, key
}

// virtualHostBucket extracts the bucket from "<bucket>.<domain>[:port]".
func virtualHostBucket(host, domain string) (string, bool) {
	if domain == "" {
		return "", false
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(host)
	b, ok := strings.CutSuffix(host, "."+strings.ToLower(domain))
	return b, ok && b != ""
}

func firstPresent(q url.Values, keys []string) string {
	for _, k := range keys {
		if _, ok := q[k]; ok {
			return k
		}
	}
	return ""
}
