package s3api

import (
	"net"
	"net/http"
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
	"accelerate", "analytics", "encryption", "intelligent-tiering",
	"inventory", "metrics",
	"replication",
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
// keys like any other.
func ParseRoute(r *http.Request, domain string) Route {
	bucket, key := splitPath(r.URL.Path)
	if b, ok := virtualHostBucket(r.Host, domain); ok {
		bucket, key = b, strings.TrimPrefix(r.URL.Path, "/")
	}
	q := r.URL.Query()
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
		rt.Sub = firstPresent(q, bucketSubresources)
		if key != "" {
			rt.Sub = firstPresent(q, objectSubresources)
		}
	}
	return rt
}

// configOp is the operation on a bucket configuration subresource
// (?cors, ?lifecycle): PUT, GET or DELETE; any other method is OpUnknown.
func configOp(method string, put, get, del Op) Op {
	switch method {
	case http.MethodPut:
		return put
	case http.MethodGet:
		return get
	case http.MethodDelete:
		return del
	}
	return OpUnknown
}

// putGet is the operation of a subresource that has only PUT and GET.
func putGet(method string, put, get Op) Op {
	return byMethod(method, http.MethodPut, put, http.MethodGet, get)
}

// byMethod is the operation of a subresource with two methods: a for
// method ma, b for mb, OpUnknown for any other.
func byMethod(method, ma string, a Op, mb string, b Op) Op {
	switch method {
	case ma:
		return a
	case mb:
		return b
	}
	return OpUnknown
}

func bucketOp(method string, q map[string][]string) Op {
	if has(q, "cors") {
		return configOp(method, OpPutBucketCors, OpGetBucketCors, OpDeleteBucketCors)
	}
	if has(q, "lifecycle") {
		return configOp(method, OpPutBucketLifecycleConfiguration, OpGetBucketLifecycleConfiguration, OpDeleteBucketLifecycle)
	}
	if has(q, "tagging") {
		return configOp(method, OpPutBucketTagging, OpGetBucketTagging, OpDeleteBucketTagging)
	}
	if has(q, "policy") {
		return configOp(method, OpPutBucketPolicy, OpGetBucketPolicy, OpDeleteBucketPolicy)
	}
	if has(q, "policyStatus") {
		if method == http.MethodGet {
			return OpGetBucketPolicyStatus
		}
		return OpUnknown
	}
	if has(q, "acl") {
		return putGet(method, OpPutBucketAcl, OpGetBucketAcl)
	}
	if has(q, "ownershipControls") {
		return configOp(method, OpPutBucketOwnershipControls, OpGetBucketOwnershipControls, OpDeleteBucketOwnershipControls)
	}
	if has(q, "publicAccessBlock") {
		return configOp(method, OpPutPublicAccessBlock, OpGetPublicAccessBlock, OpDeletePublicAccessBlock)
	}
	if has(q, "object-lock") {
		return putGet(method, OpPutObjectLockConfiguration, OpGetObjectLockConfiguration)
	}
	if has(q, "logging") {
		return putGet(method, OpPutBucketLogging, OpGetBucketLogging)
	}
	if has(q, "notification") {
		return putGet(method, OpPutBucketNotificationConfiguration, OpGetBucketNotificationConfiguration)
	}
	if has(q, "quota") {
		return configOp(method, OpPutBucketQuota, OpGetBucketQuota, OpDeleteBucketQuota)
	}
	if has(q, "reservations") {
		return byMethod(method, http.MethodPost, OpCreateReservation, http.MethodGet, OpListReservations)
	}
	if has(q, "reservation") {
		return byMethod(method, http.MethodGet, OpGetReservation, http.MethodDelete, OpDeleteReservation)
	}
	if has(q, "versioning") {
		switch method {
		case http.MethodPut:
			return OpPutBucketVersioning
		case http.MethodGet:
			return OpGetBucketVersioning
		}
		return OpUnknown
	}
	if op := configReadOp(method, q); op != OpUnknown {
		return op
	}
	if firstPresent(q, bucketSubresources) != "" {
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
		case q["list-type"] != nil && q["list-type"][0] == "2":
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

func objectOp(r *http.Request, q map[string][]string) Op {
	if has(q, "retention") {
		return putGet(r.Method, OpPutObjectRetention, OpGetObjectRetention)
	}
	if has(q, "legal-hold") {
		return putGet(r.Method, OpPutObjectLegalHold, OpGetObjectLegalHold)
	}
	if has(q, "acl") {
		return putGet(r.Method, OpPutObjectAcl, OpGetObjectAcl)
	}
	if firstPresent(q, objectSubresources) != "" {
		return OpUnsupported
	}
	if has(q, "tagging") {
		return configOp(r.Method, OpPutObjectTagging, OpGetObjectTagging, OpDeleteObjectTagging)
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

func has(q map[string][]string, k string) bool { _, ok := q[k]; return ok }

func firstPresent(q map[string][]string, keys []string) string {
	for _, k := range keys {
		if has(q, k) {
			return k
		}
	}
	return ""
}
