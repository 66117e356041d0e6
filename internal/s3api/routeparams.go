package s3api

import (
	"net/url"
	"slices"
)

// The query parameters that choose a request's operation are a security
// fact, not only a routing one: a signature that does not cover one lets
// whoever holds the signed request (a presigned URL, a captured request)
// append it and run another operation as the signer. SigV4 signs the whole
// query; SigV2 signs only the parameters it is told to (sigv2.Verifier's
// Routing, set from SignedRoutingParams). So the router reads the query
// only through routingQuery, which keeps the routing parameters and drops
// every other: a parameter that is not in routingParams cannot choose an
// operation, and every one that is, SigV2 signs.

// selectors are the routing parameters the router's code reads besides the
// subresources of its tables (bucketRoutes and objectRoutes, from the
// operation table's routes; bucketSubresources, objectSubresources): they
// choose within a method's operations (ListObjectsV2 or ListObjects, UploadPart or PutObject, a Get
// or a List of configurations) or name a version.
var selectors = []string{"uploads", "uploadId", "location", "versions", "list-type", "delete", "attributes", "id", "versionId"}

// unsignedRouting are the routing parameters SigV2 does not sign, each
// because the operations it chooses between are authorised alike — the same
// IAM actions on the same resource (TestUnsignedRoutingSameAuthorization) —
// so a signature without it grants nothing more with it. botocore and
// minio-go do not sign them: signing them would refuse those clients'
// requests (ListObjectsV2 above all) for no gain.
var unsignedRouting = []string{
	"list-type", // ListObjectsV2 or ListObjects: s3:ListBucket either way
	"id",        // Get… or List…Configuration(s): the Get's action either way
}

// routingParams is every query parameter the router reads.
var routingParams = func() map[string]bool {
	m := map[string]bool{}
	for _, routes := range [][]subresource{bucketRoutes, objectRoutes} {
		for _, s := range routes {
			m[s.param] = true
		}
	}
	for _, list := range [][]string{bucketSubresources, objectSubresources, selectors} {
		for _, p := range list {
			m[p] = true
		}
	}
	return m
}()

// routingQuery is the part of a request's query the router may read: the
// routing parameters present, nothing else. It wraps the query the
// handlers read too, parsed once (request.query), rather than a filtered
// copy, so that routing costs no allocation.
type routingQuery struct{ all url.Values }

// has reports whether q holds the routing parameter k: false for any
// other parameter, present or not.
func has(q routingQuery, k string) bool {
	_, ok := q.all[k]
	return ok && routingParams[k]
}

// Get returns the first value of the routing parameter k, "" when absent
// or not a routing parameter.
func (q routingQuery) Get(k string) string {
	if !has(q, k) {
		return ""
	}
	return q.all.Get(k)
}

// firstRouting returns the first of keys that q holds, or "".
func firstRouting(q routingQuery, keys []string) string {
	for _, k := range keys {
		if has(q, k) {
			return k
		}
	}
	return ""
}

// RoutingParams returns, sorted, every query parameter the router reads to
// choose a request's operation.
func RoutingParams() []string {
	ps := make([]string, 0, len(routingParams))
	for p := range routingParams {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

// SignedRoutingParams returns, sorted, the routing parameters a SigV2
// signature must cover: all but the few that change nothing S3 authorises
// (unsignedRouting).
func SignedRoutingParams() []string {
	return slices.DeleteFunc(RoutingParams(), func(p string) bool { return slices.Contains(unsignedRouting, p) })
}
