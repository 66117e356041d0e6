package s3api

import "net/http"

// Op is a parsed S3 operation. Everything the edge knows about an
// operation — its S3 name, the IAM actions that authorise it, the kind of
// work it does, its handler — is one row of the operations table below: a
// new operation is a constant here and a row there.
type Op int

// Operations JOG routes.
const (
	// OpUnknown is a request that names no S3 operation (POST on a key
	// without ?uploads or ?uploadId, PUT on the service): 405
	// MethodNotAllowed once authenticated.
	OpUnknown Op = iota
	// OpUnsupported is a recognised S3 operation JOG does not build yet
	// (Route.Sub names its subresource): 501 NotImplemented once
	// authenticated.
	OpUnsupported
	// The core operations: router.go chooses them by method and a few
	// selectors (routeparams.go's selectors).
	OpListBuckets
	OpCreateBucket
	OpHeadBucket
	OpDeleteBucket
	OpGetBucketLocation
	OpListObjects
	OpListObjectsV2
	OpDeleteObjects
	OpPutObject
	OpCopyObject
	OpGetObject
	OpHeadObject
	OpDeleteObject
	OpCreateMultipartUpload
	OpUploadPart
	OpUploadPartCopy
	OpCompleteMultipartUpload
	OpAbortMultipartUpload
	OpListParts
	OpListMultipartUploads
	OpGetObjectAttributes
	// Bucket subresources, each chosen by its row's route. Their order is
	// the router's: when a request names several subresources, the first
	// operation's wins.
	OpPutBucketCors
	OpGetBucketCors
	OpDeleteBucketCors
	OpPutBucketLifecycleConfiguration
	OpGetBucketLifecycleConfiguration
	OpDeleteBucketLifecycle
	OpPutBucketTagging
	OpGetBucketTagging
	OpDeleteBucketTagging
	OpPutBucketPolicy
	OpGetBucketPolicy
	OpDeleteBucketPolicy
	OpGetBucketPolicyStatus
	OpPutBucketAcl
	OpGetBucketAcl
	OpPutBucketOwnershipControls
	OpGetBucketOwnershipControls
	OpDeleteBucketOwnershipControls
	OpPutPublicAccessBlock
	OpGetPublicAccessBlock
	OpDeletePublicAccessBlock
	OpPutObjectLockConfiguration
	OpGetObjectLockConfiguration
	// Server access logging (internal/bucketlog): ?logging.
	OpPutBucketLogging
	OpGetBucketLogging
	// Event notifications (internal/notify, bucket_notification.go).
	OpPutBucketNotificationConfiguration
	OpGetBucketNotificationConfiguration
	// Bucket quotas (JOG extension, docs/QOS.md): ?quota.
	OpPutBucketQuota
	OpGetBucketQuota
	OpDeleteBucketQuota
	// Throughput reservations (JOG extension, internal/qos, docs/QOS.md):
	// bucket subresources ?reservations and ?reservation=ID.
	OpCreateReservation
	OpListReservations
	OpGetReservation
	OpDeleteReservation
	OpPutBucketVersioning
	OpGetBucketVersioning
	OpListObjectVersions // a core operation: GET ?versions
	// Object subresources, in the router's order as the bucket's.
	OpPutObjectRetention
	OpGetObjectRetention
	OpPutObjectLegalHold
	OpGetObjectLegalHold
	OpPutObjectAcl
	OpGetObjectAcl
	OpPutObjectTagging
	OpGetObjectTagging
	OpDeleteObjectTagging
	// OpPostObject is a browser-based upload: a multipart/form-data POST
	// to the bucket, authenticated by its signed policy, not by headers.
	OpPostObject
	// OpPreflight is a CORS preflight (OPTIONS on any path): answered from
	// the bucket's CORS rules, without authentication.
	OpPreflight
	// Reads of bucket configurations JOG carries out none of
	// (config_reads.go): each answers the empty state, as S3 does for a
	// bucket without one; their PUT and DELETE stay OpUnsupported. They
	// come after every other bucket subresource.
	OpGetBucketEncryption
	OpGetBucketWebsite
	OpGetBucketReplication
	OpGetBucketAccelerateConfiguration
	OpGetBucketRequestPayment
	OpGetBucketAnalyticsConfiguration
	OpListBucketAnalyticsConfigurations
	OpGetBucketInventoryConfiguration
	OpListBucketInventoryConfigurations
	OpGetBucketMetricsConfiguration
	OpListBucketMetricsConfigurations
	OpGetBucketIntelligentTieringConfiguration
	OpListBucketIntelligentTieringConfigurations
	numOps // not an operation: the size of the table
)

// opSet (wire.go) holds operations as bits of two uint64s.
const _ = uint(128 - numOps)

// Kind is what an operation does, in the terms admission, reservations and
// metrics count in. It follows S3's request-rate classes (GET/HEAD against
// PUT/COPY/POST/DELETE), with listings and the bucket itself apart.
type Kind uint8

const (
	// KindNone: not an S3 operation JOG serves (OpUnknown,
	// OpUnsupported, OpPreflight).
	KindNone Kind = iota
	// KindRead reads one object: its data (GET) or its metadata (HEAD,
	// attributes). The bytes of a GET are what read throughput meters.
	KindRead
	// KindWrite creates, copies, completes or deletes objects or their
	// parts. The body of a PUT or UploadPart is what write throughput
	// meters; a copy writes data it reads from the store.
	KindWrite
	// KindList enumerates buckets, objects, uploads or parts: metadata
	// scans, no object data.
	KindList
	// KindAdmin acts on a bucket itself rather than its objects: create,
	// delete, head, location, configuration. The control plane.
	KindAdmin
)

var kindNames = [...]string{KindNone: "none", KindRead: "read", KindWrite: "write", KindList: "list", KindAdmin: "admin"}

func (k Kind) String() string { return kindNames[k] }

// opDesc describes one operation.
type opDesc struct {
	name string // as S3 names it: the API reference, the SDKs' models
	// actions are the IAM actions S3 requires for the operation on the
	// route's resource (the bucket, or the object), every one of them.
	actions []string
	// source is, for a copy, the IAM action S3 also requires on the copy
	// source (x-amz-copy-source), another resource than the route's.
	source string
	kind   Kind
	// serve is the handler: nil for the three special operations, which
	// serve answers itself. The table is initialised in its declaration,
	// so a handler must not call Op's methods (String, Actions, …): that
	// would be an initialisation cycle, which the compiler reports.
	serve handlerFunc
	// version is what S3 requires instead of actions and source when the
	// request names a version.
	version versionDesc
	// route is the subresource that chooses a subresource operation
	// (router.go); zero for the core operations, which the router chooses
	// by method and a few selectors, and for the special ones.
	route routeKey
	// log names the operation's resource in a server access log line
	// (REST.PUT.<log>, AppendLogOperation) where it is neither OBJECT (on
	// a key) nor BUCKET.
	log   string
	attrs opAttr
}

// opAttr is a set of static attributes of an operation (opDesc.attrs):
// the wire table, authorization, reservations, notifications and logs
// take their sets of operations from them (opsWith).
type opAttr uint16

const (
	// jogOwn: JOG's own operation (docs/QOS.md), not S3's: its IAM
	// actions are jog:…, and the wire table's S3 model has none of it.
	jogOwn opAttr = 1 << iota
	// writesObject: writes a new object from the request's headers (a
	// PostObject's form fields count as its headers): they take
	// Content-Type, x-amz-meta-*, x-amz-tagging, x-amz-acl, the object
	// lock and the encryption headers.
	writesObject
	// newObject: writes a new object or part, so names no existing object
	// (no s3:ExistingObjectTag, no object ACL).
	newObject
	// dataIn: the body is object data (a server access log's object size).
	dataIn
	// digestBody: Content-MD5 or x-amz-sdk-checksum-algorithm may cover
	// the body.
	digestBody
	// checksumBody: x-amz-checksum-* may cover the object's data.
	checksumBody
	// sseC: S3 reads or writes SSE-C objects with it.
	sseC
	// takesVersion: reads a versionId query parameter, which serve checks
	// once before the handler runs.
	takesVersion
	// reserves: draws on a throughput reservation (docs/QOS.md): the
	// object data moves.
	reserves
	// notifies: its changes emit event notifications.
	notifies
)

// opsWith returns the operations that have every attribute of a.
func opsWith(a opAttr) opSet {
	return opsMatching(func(d *opDesc) bool { return d.attrs&a == a })
}

// opsMatching returns the operations whose row satisfies f.
func opsMatching(f func(*opDesc) bool) opSet {
	var s opSet
	for o := Op(0); o < numOps; o++ {
		if f(&operations[o]) {
			s = s.with(o)
		}
	}
	return s
}

// routeKey is how the router chooses a subresource operation: the query
// parameter (param) naming the subresource of a bucket or an object (on),
// and the method. list marks a List…Configurations operation: a GET of
// param without ?id (with one, the Get… of the same param).
type routeKey struct {
	on     level
	method string
	param  string
	list   bool
}

// level is the resource a subresource belongs to.
type level uint8

const (
	atBucket level = iota + 1
	atObject
)

func bucketSub(method, param string) routeKey {
	return routeKey{on: atBucket, method: method, param: param}
}

func objectSub(method, param string) routeKey {
	return routeKey{on: atObject, method: method, param: param}
}

// listConfigs routes a List…Configurations operation: GET ?param without ?id.
func listConfigs(param string) routeKey {
	return routeKey{on: atBucket, method: http.MethodGet, param: param, list: true}
}

// versionDesc is what S3 requires instead of an operation's actions when
// the request names a version: a versionId query parameter; for
// DeleteObjects a VersionId in a key's entry. An operation without one
// needs its usual actions whatever the version: the retention and
// legal-hold actions cover every version, and ListObjectVersions always
// needs s3:ListBucketVersions. TestOpVersionActionsMatchAWS restates them.
type versionDesc struct {
	// actions replace the operation's actions on the route's object.
	actions []string
	// source replaces the copy source's action when x-amz-copy-source
	// names a version (?versionId=).
	source string
}

// String returns the operation's name as S3 spells it ("GetObject").
func (o Op) String() string { return operations[o].name }

// Routed returns the operations the router serves, in Op order: every
// one has IAM actions (TestOperationTable).
func Routed() []Op { return routed.ops() }

// Actions returns the IAM actions ("s3:GetObject") S3 requires for the
// operation on its route's bucket or object: every one must be allowed.
// OpUnknown, OpUnsupported and OpPreflight have none: the first two are
// refused once authenticated, whatever a policy says, and a preflight is
// answered from the bucket's CORS rules, unauthenticated. The slice is
// shared: do not modify it.
func (o Op) Actions() []string { return operations[o].actions }

// SourceAction returns, for CopyObject and UploadPartCopy, the IAM action
// required on the copy source ("s3:GetObject"); "" for the others.
func (o Op) SourceAction() string { return operations[o].source }

// VersionActions returns the IAM actions S3 requires instead of Actions
// when the request names a version ("s3:GetObjectVersion" for GetObject),
// or nil when a version changes nothing. For DeleteObjects they apply to
// each entry with a VersionId. The slice is shared: do not modify it.
func (o Op) VersionActions() []string { return operations[o].version.actions }

// Actions returns the IAM actions S3 requires for this request on its
// route's bucket or object, every one of them: the operation's, or those
// for a version when the request names one (rt.Version). DeleteObjects
// names its versions in its body: its keys are authorised one by one (see
// Op.VersionActions). The slice is shared: do not modify it.
func (rt Route) Actions() []string {
	if a := operations[rt.Op].version.actions; rt.Version && a != nil {
		return a
	}
	return rt.Op.Actions()
}

// SourceAction returns the IAM action S3 requires on the copy source of a
// CopyObject or UploadPartCopy: s3:GetObjectVersion when x-amz-copy-source
// names a version (rt.SourceVersion), else s3:GetObject; "" for other
// operations.
func (rt Route) SourceAction() string {
	if s := operations[rt.Op].version.source; rt.SourceVersion && s != "" {
		return s
	}
	return rt.Op.SourceAction()
}

// DataIn reports whether the operation's request body is object data
// (PutObject, UploadPart, PostObject): its size is the object's (or
// part's).
func (o Op) DataIn() bool { return operations[o].attrs&dataIn != 0 }

// Kind returns what the operation does: read, write, list or admin.
func (o Op) Kind() Kind { return operations[o].kind }
