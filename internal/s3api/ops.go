package s3api

import "net/http"

// Op is a parsed S3 operation. Everything static the edge knows about an
// operation — its S3 name, the IAM actions that authorise it (with or
// without a version), the kind of work it does, its handler, the
// subresource that routes it, its name in server access logs and its
// attributes (opAttr: the bodies a digest covers, SSE-C, versionId,
// reservations, notifications …) — is one row of the operations table
// below. The router, the wire table's groups, authorization's sets and
// SigV2's signed parameters are derived from the rows: a new operation is
// a constant here, a row below, its handler and its test.
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
	// Default encryption (bucket_encryption.go): ?encryption.
	OpPutBucketEncryption
	OpGetBucketEncryption
	OpDeleteBucketEncryption
	// Bucket replication (internal/bucketrepl, bucket_replication.go):
	// ?replication. The configuration is stored and validated; delivery
	// is not built yet.
	OpPutBucketReplication
	OpGetBucketReplication
	OpDeleteBucketReplication
	// Bucket quotas (JOG extension, docs/QOS.md): ?quota.
	OpPutBucketQuota
	OpGetBucketQuota
	OpDeleteBucketQuota
	// Bucket replication's resync (JOG extension, internal/bucketrepl/
	// delivery): POST and GET ?replication-resync.
	OpStartReplicationResync
	OpGetReplicationResync
	// Throughput reservations (JOG extension, internal/qos, docs/QOS.md):
	// bucket subresources ?reservations and ?reservation=ID.
	OpCreateReservation
	OpListReservations
	OpGetReservation
	OpDeleteReservation
	// The caller's own permissions (JOG extension, internal/permissions):
	// ?permissions on a bucket or on a key.
	OpGetBucketPermissions
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
	OpGetObjectPermissions
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
	OpGetBucketWebsite
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
	// callerOnly: answers about its caller alone (GetBucketPermissions):
	// it needs no IAM action, any authenticated principal may send it,
	// and anonymous requests are refused (authorize).
	callerOnly
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

// IAM actions used by more than one operation.
const (
	actGetObject        = "s3:GetObject"
	actGetObjectVersion = "s3:GetObjectVersion"
	actPutObject        = "s3:PutObject"
	actListBucket       = "s3:ListBucket"
	actPutEncryption    = "s3:PutEncryptionConfiguration"
	actPutReplication   = "s3:PutReplicationConfiguration"
)

// operations is the operation table, indexed by Op. The IAM actions are
// those of AWS's Service Authorization Reference, "Actions, resources, and
// condition keys for Amazon S3", table "API operations defined by Amazon
// S3", and of each operation's API reference (TestOpActionsMatchAWS
// restates them), and those of a request that names a version (version);
// other actions that depend on the request — s3:PutObjectTagging for
// x-amz-tagging on a write — are headerActions' (authorize.go).
var operations = [numOps]opDesc{
	OpUnknown:     {name: "Unknown"},
	OpUnsupported: {name: "Unsupported"},
	OpPreflight:   {name: "Preflight"},
	OpListBuckets: {name: "ListBuckets", actions: []string{"s3:ListAllMyBuckets"}, kind: KindList, serve: (*Handler).listBuckets,
		log: "SERVICE"},
	OpCreateBucket: {name: "CreateBucket", actions: []string{"s3:CreateBucket"}, kind: KindAdmin, serve: (*Handler).createBucket},
	OpHeadBucket:   {name: "HeadBucket", actions: []string{actListBucket}, kind: KindAdmin, serve: (*Handler).headBucket},
	OpDeleteBucket: {name: "DeleteBucket", actions: []string{"s3:DeleteBucket"}, kind: KindAdmin, serve: (*Handler).deleteBucket},
	OpGetBucketLocation: {name: "GetBucketLocation", actions: []string{"s3:GetBucketLocation"}, kind: KindAdmin, serve: (*Handler).getBucketLocation,
		log: "LOCATION"},
	OpListObjects:   {name: "ListObjects", actions: []string{actListBucket}, kind: KindList, serve: (*Handler).listObjectsV1},
	OpListObjectsV2: {name: "ListObjectsV2", actions: []string{actListBucket}, kind: KindList, serve: (*Handler).listObjectsV2},
	// DeleteObjects is authorised per key, as DeleteObject: an entry with
	// a VersionId needs s3:DeleteObjectVersion.
	OpDeleteObjects: {name: "DeleteObjects", actions: []string{"s3:DeleteObject"}, kind: KindWrite, serve: (*Handler).deleteObjects,
		version: versionDesc{actions: []string{"s3:DeleteObjectVersion"}}, log: "MULTI_OBJECT_DELETE", attrs: digestBody | notifies},
	OpPutObject: {name: "PutObject", actions: []string{actPutObject}, kind: KindWrite, serve: (*Handler).putObject,
		attrs: writesObject | newObject | dataIn | digestBody | checksumBody | sseC | reserves | notifies},
	// A copy's destination is a new version whatever the source names:
	// s3:PutObject.
	OpCopyObject: {name: "CopyObject", actions: []string{actPutObject}, source: actGetObject, kind: KindWrite, serve: (*Handler).copyObject,
		version: versionDesc{source: actGetObjectVersion}, log: "OBJECT", attrs: writesObject | newObject | sseC | notifies},
	OpGetObject: {name: "GetObject", actions: []string{actGetObject}, kind: KindRead, serve: (*Handler).getObject,
		version: versionDesc{actions: []string{actGetObjectVersion}}, attrs: sseC | takesVersion | reserves},
	OpHeadObject: {name: "HeadObject", actions: []string{actGetObject}, kind: KindRead, serve: (*Handler).getObject,
		version: versionDesc{actions: []string{actGetObjectVersion}}, attrs: sseC | takesVersion},
	OpDeleteObject: {name: "DeleteObject", actions: []string{"s3:DeleteObject"}, kind: KindWrite, serve: (*Handler).deleteObject,
		version: versionDesc{actions: []string{"s3:DeleteObjectVersion"}}, attrs: takesVersion | notifies},
	OpCreateMultipartUpload: {name: "CreateMultipartUpload", actions: []string{actPutObject}, kind: KindWrite, serve: (*Handler).createMultipartUpload,
		log: "UPLOADS", attrs: writesObject | newObject | sseC},
	OpUploadPart: {name: "UploadPart", actions: []string{actPutObject}, kind: KindWrite, serve: (*Handler).uploadPart,
		log: "PART", attrs: newObject | dataIn | digestBody | checksumBody | sseC | reserves},
	OpUploadPartCopy: {name: "UploadPartCopy", actions: []string{actPutObject}, source: actGetObject, kind: KindWrite, serve: (*Handler).uploadPartCopy,
		version: versionDesc{source: actGetObjectVersion}, log: "PART", attrs: newObject | sseC | reserves},
	OpCompleteMultipartUpload: {name: "CompleteMultipartUpload", actions: []string{actPutObject}, kind: KindWrite, serve: (*Handler).completeMultipartUpload,
		log: "UPLOAD", attrs: newObject | checksumBody | sseC | notifies},
	OpAbortMultipartUpload: {name: "AbortMultipartUpload", actions: []string{"s3:AbortMultipartUpload"}, kind: KindWrite, serve: (*Handler).abortMultipartUpload,
		log: "UPLOAD", attrs: newObject},
	OpListParts: {name: "ListParts", actions: []string{"s3:ListMultipartUploadParts"}, kind: KindList, serve: (*Handler).listParts,
		log: "UPLOAD", attrs: newObject | sseC},
	OpListMultipartUploads: {name: "ListMultipartUploads", actions: []string{"s3:ListBucketMultipartUploads"}, kind: KindList, serve: (*Handler).listMultipartUploads,
		log: "UPLOADS"},
	// GetObjectAttributes needs both (its API reference, "Permissions"),
	// with a version ID too.
	OpGetObjectAttributes: {name: "GetObjectAttributes", actions: []string{actGetObject, "s3:GetObjectAttributes"}, kind: KindRead, serve: (*Handler).getObjectAttributes,
		version: versionDesc{actions: []string{actGetObjectVersion, "s3:GetObjectVersionAttributes"}}, log: "OBJECT_ATTRIBUTES", attrs: sseC | takesVersion},
	OpPutBucketCors: {name: "PutBucketCors", actions: []string{"s3:PutBucketCORS"}, kind: KindAdmin, serve: (*Handler).putBucketCors,
		route: bucketSub(http.MethodPut, "cors"), log: "CORS", attrs: digestBody},
	OpGetBucketCors: {name: "GetBucketCors", actions: []string{"s3:GetBucketCORS"}, kind: KindAdmin, serve: (*Handler).getBucketCors,
		route: bucketSub(http.MethodGet, "cors"), log: "CORS"},
	// DeleteBucketCors has no action of its own.
	OpDeleteBucketCors: {name: "DeleteBucketCors", actions: []string{"s3:PutBucketCORS"}, kind: KindAdmin, serve: (*Handler).deleteBucketCors,
		route: bucketSub(http.MethodDelete, "cors"), log: "CORS"},
	OpPutBucketLifecycleConfiguration: {name: "PutBucketLifecycleConfiguration", actions: []string{"s3:PutLifecycleConfiguration"}, kind: KindAdmin, serve: (*Handler).putBucketLifecycle,
		route: bucketSub(http.MethodPut, "lifecycle"), log: "LIFECYCLE", attrs: digestBody},
	OpGetBucketLifecycleConfiguration: {name: "GetBucketLifecycleConfiguration", actions: []string{"s3:GetLifecycleConfiguration"}, kind: KindAdmin, serve: (*Handler).getBucketLifecycle,
		route: bucketSub(http.MethodGet, "lifecycle"), log: "LIFECYCLE"},
	// DeleteBucketLifecycle has no action of its own.
	OpDeleteBucketLifecycle: {name: "DeleteBucketLifecycle", actions: []string{"s3:PutLifecycleConfiguration"}, kind: KindAdmin, serve: (*Handler).deleteBucketLifecycle,
		route: bucketSub(http.MethodDelete, "lifecycle"), log: "LIFECYCLE"},
	OpPutBucketTagging: {name: "PutBucketTagging", actions: []string{"s3:PutBucketTagging"}, kind: KindAdmin, serve: (*Handler).putBucketTagging,
		route: bucketSub(http.MethodPut, "tagging"), log: "TAGGING", attrs: digestBody},
	OpGetBucketTagging: {name: "GetBucketTagging", actions: []string{"s3:GetBucketTagging"}, kind: KindAdmin, serve: (*Handler).getBucketTagging,
		route: bucketSub(http.MethodGet, "tagging"), log: "TAGGING"},
	// DeleteBucketTagging has no action of its own.
	OpDeleteBucketTagging: {name: "DeleteBucketTagging", actions: []string{"s3:PutBucketTagging"}, kind: KindAdmin, serve: (*Handler).deleteBucketTagging,
		route: bucketSub(http.MethodDelete, "tagging"), log: "TAGGING"},
	OpPutBucketPolicy: {name: "PutBucketPolicy", actions: []string{"s3:PutBucketPolicy"}, kind: KindAdmin, serve: (*Handler).putBucketPolicy,
		route: bucketSub(http.MethodPut, "policy"), log: "BUCKETPOLICY", attrs: digestBody},
	OpGetBucketPolicy: {name: "GetBucketPolicy", actions: []string{"s3:GetBucketPolicy"}, kind: KindAdmin, serve: (*Handler).getBucketPolicy,
		route: bucketSub(http.MethodGet, "policy"), log: "BUCKETPOLICY"},
	OpDeleteBucketPolicy: {name: "DeleteBucketPolicy", actions: []string{"s3:DeleteBucketPolicy"}, kind: KindAdmin, serve: (*Handler).deleteBucketPolicy,
		route: bucketSub(http.MethodDelete, "policy"), log: "BUCKETPOLICY"},
	OpGetBucketPolicyStatus: {name: "GetBucketPolicyStatus", actions: []string{"s3:GetBucketPolicyStatus"}, kind: KindAdmin, serve: (*Handler).getBucketPolicyStatus,
		route: bucketSub(http.MethodGet, "policyStatus"), log: "POLICY_STATUS"},
	// ACLs, Object Ownership, public access (internal/acl).
	OpPutBucketAcl: {name: "PutBucketAcl", actions: []string{"s3:PutBucketAcl"}, kind: KindAdmin, serve: (*Handler).putBucketACL,
		route: bucketSub(http.MethodPut, "acl"), log: "ACL", attrs: digestBody},
	OpGetBucketAcl: {name: "GetBucketAcl", actions: []string{"s3:GetBucketAcl"}, kind: KindAdmin, serve: (*Handler).getBucketACL,
		route: bucketSub(http.MethodGet, "acl"), log: "ACL"},
	OpPutBucketOwnershipControls: {name: "PutBucketOwnershipControls", actions: []string{"s3:PutBucketOwnershipControls"}, kind: KindAdmin, serve: (*Handler).putOwnershipControls,
		route: bucketSub(http.MethodPut, "ownershipControls"), log: "OWNERSHIP_CONTROLS", attrs: digestBody},
	OpGetBucketOwnershipControls: {name: "GetBucketOwnershipControls", actions: []string{"s3:GetBucketOwnershipControls"}, kind: KindAdmin, serve: (*Handler).getOwnershipControls,
		route: bucketSub(http.MethodGet, "ownershipControls"), log: "OWNERSHIP_CONTROLS"},
	OpDeleteBucketOwnershipControls: {name: "DeleteBucketOwnershipControls", actions: []string{"s3:PutBucketOwnershipControls"}, kind: KindAdmin, serve: (*Handler).deleteOwnershipControls,
		route: bucketSub(http.MethodDelete, "ownershipControls"), log: "OWNERSHIP_CONTROLS"},
	OpPutPublicAccessBlock: {name: "PutPublicAccessBlock", actions: []string{"s3:PutBucketPublicAccessBlock"}, kind: KindAdmin, serve: (*Handler).putPublicAccessBlock,
		route: bucketSub(http.MethodPut, "publicAccessBlock"), log: "PUBLIC_ACCESS_BLOCK", attrs: digestBody},
	OpGetPublicAccessBlock: {name: "GetPublicAccessBlock", actions: []string{"s3:GetBucketPublicAccessBlock"}, kind: KindAdmin, serve: (*Handler).getPublicAccessBlock,
		route: bucketSub(http.MethodGet, "publicAccessBlock"), log: "PUBLIC_ACCESS_BLOCK"},
	// DeletePublicAccessBlock has no action of its own.
	OpDeletePublicAccessBlock: {name: "DeletePublicAccessBlock", actions: []string{"s3:PutBucketPublicAccessBlock"}, kind: KindAdmin, serve: (*Handler).deletePublicAccessBlock,
		route: bucketSub(http.MethodDelete, "publicAccessBlock"), log: "PUBLIC_ACCESS_BLOCK"},
	// Object lock. x-amz-bypass-governance-retention: true asks for
	// s3:BypassGovernanceRetention besides (on DeleteObject, DeleteObjects
	// and PutObjectRetention): a request-dependent action, not listed.
	OpPutObjectLockConfiguration: {name: "PutObjectLockConfiguration", actions: []string{"s3:PutBucketObjectLockConfiguration"}, kind: KindAdmin, serve: (*Handler).putObjectLockConfiguration,
		route: bucketSub(http.MethodPut, "object-lock"), log: "OBJECT_LOCK_CONFIGURATION", attrs: digestBody},
	OpGetObjectLockConfiguration: {name: "GetObjectLockConfiguration", actions: []string{"s3:GetBucketObjectLockConfiguration"}, kind: KindAdmin, serve: (*Handler).getObjectLockConfiguration,
		route: bucketSub(http.MethodGet, "object-lock"), log: "OBJECT_LOCK_CONFIGURATION"},
	OpPutBucketLogging: {name: "PutBucketLogging", actions: []string{"s3:PutBucketLogging"}, kind: KindAdmin, serve: (*Handler).putBucketLogging,
		route: bucketSub(http.MethodPut, "logging"), log: "LOGGING_STATUS", attrs: digestBody},
	OpGetBucketLogging: {name: "GetBucketLogging", actions: []string{"s3:GetBucketLogging"}, kind: KindAdmin, serve: (*Handler).getBucketLogging,
		route: bucketSub(http.MethodGet, "logging"), log: "LOGGING_STATUS"},
	OpPutBucketNotificationConfiguration: {name: "PutBucketNotificationConfiguration", actions: []string{"s3:PutBucketNotification"}, kind: KindAdmin, serve: (*Handler).putBucketNotification,
		route: bucketSub(http.MethodPut, "notification"), log: "NOTIFICATION", attrs: digestBody},
	OpGetBucketNotificationConfiguration: {name: "GetBucketNotificationConfiguration", actions: []string{"s3:GetBucketNotification"}, kind: KindAdmin, serve: (*Handler).getBucketNotification,
		route: bucketSub(http.MethodGet, "notification"), log: "NOTIFICATION"},
	// DeleteBucketEncryption has no action of its own.
	OpPutBucketEncryption: {name: "PutBucketEncryption", actions: []string{actPutEncryption}, kind: KindAdmin, serve: (*Handler).putBucketEncryption,
		route: bucketSub(http.MethodPut, "encryption"), log: "ENCRYPTION", attrs: digestBody},
	OpGetBucketEncryption: {name: "GetBucketEncryption", actions: []string{"s3:GetEncryptionConfiguration"}, kind: KindAdmin, serve: (*Handler).getBucketEncryption,
		route: bucketSub(http.MethodGet, "encryption"), log: "ENCRYPTION"},
	OpDeleteBucketEncryption: {name: "DeleteBucketEncryption", actions: []string{actPutEncryption}, kind: KindAdmin, serve: (*Handler).deleteBucketEncryption,
		route: bucketSub(http.MethodDelete, "encryption"), log: "ENCRYPTION"},
	// DeleteBucketReplication has no action of its own.
	OpPutBucketReplication: {name: "PutBucketReplication", actions: []string{actPutReplication}, kind: KindAdmin, serve: (*Handler).putBucketReplication,
		route: bucketSub(http.MethodPut, "replication"), log: "REPLICATION", attrs: digestBody},
	OpGetBucketReplication: {name: "GetBucketReplication", actions: []string{"s3:GetReplicationConfiguration"}, kind: KindAdmin, serve: (*Handler).getBucketReplication,
		route: bucketSub(http.MethodGet, "replication"), log: "REPLICATION"},
	OpDeleteBucketReplication: {name: "DeleteBucketReplication", actions: []string{actPutReplication}, kind: KindAdmin, serve: (*Handler).deleteBucketReplication,
		route: bucketSub(http.MethodDelete, "replication"), log: "REPLICATION"},
	OpPutBucketQuota: {name: "PutBucketQuota", actions: []string{"jog:PutBucketQuota"}, kind: KindAdmin, serve: (*Handler).putBucketQuota,
		route: bucketSub(http.MethodPut, "quota"), log: "QUOTA", attrs: jogOwn | digestBody},
	OpGetBucketQuota: {name: "GetBucketQuota", actions: []string{"jog:GetBucketQuota"}, kind: KindAdmin, serve: (*Handler).getBucketQuota,
		route: bucketSub(http.MethodGet, "quota"), log: "QUOTA", attrs: jogOwn},
	OpDeleteBucketQuota: {name: "DeleteBucketQuota", actions: []string{"jog:DeleteBucketQuota"}, kind: KindAdmin, serve: (*Handler).deleteBucketQuota,
		route: bucketSub(http.MethodDelete, "quota"), log: "QUOTA", attrs: jogOwn},
	OpStartReplicationResync: {name: "StartReplicationResync", actions: []string{"jog:StartReplicationResync"}, kind: KindAdmin, serve: (*Handler).startReplicationResync,
		route: bucketSub(http.MethodPost, "replication-resync"), log: "REPLICATION_RESYNC", attrs: jogOwn},
	OpGetReplicationResync: {name: "GetReplicationResync", actions: []string{"jog:GetReplicationResync"}, kind: KindAdmin, serve: (*Handler).getReplicationResync,
		route: bucketSub(http.MethodGet, "replication-resync"), log: "REPLICATION_RESYNC", attrs: jogOwn},
	// Reservations: JOG's own actions (docs/SECURITY.md), on the bucket.
	OpCreateReservation: {name: "CreateReservation", actions: []string{"jog:CreateReservation"}, kind: KindAdmin, serve: (*Handler).createReservation,
		route: bucketSub(http.MethodPost, "reservations"), log: "RESERVATIONS", attrs: jogOwn | digestBody},
	OpListReservations: {name: "ListReservations", actions: []string{"jog:ListReservations"}, kind: KindAdmin, serve: (*Handler).listReservations,
		route: bucketSub(http.MethodGet, "reservations"), log: "RESERVATIONS", attrs: jogOwn},
	OpGetReservation: {name: "GetReservation", actions: []string{"jog:GetReservation"}, kind: KindAdmin, serve: (*Handler).getReservation,
		route: bucketSub(http.MethodGet, "reservation"), log: "RESERVATION", attrs: jogOwn},
	OpDeleteReservation: {name: "DeleteReservation", actions: []string{"jog:DeleteReservation"}, kind: KindAdmin, serve: (*Handler).deleteReservation,
		route: bucketSub(http.MethodDelete, "reservation"), log: "RESERVATION", attrs: jogOwn},
	// The caller's permissions: no action of their own (callerOnly).
	OpGetBucketPermissions: {name: "GetBucketPermissions", kind: KindAdmin, serve: (*Handler).getPermissions,
		route: bucketSub(http.MethodGet, "permissions"), log: "PERMISSIONS", attrs: jogOwn | callerOnly},
	OpPutBucketVersioning: {name: "PutBucketVersioning", actions: []string{"s3:PutBucketVersioning"}, kind: KindAdmin, serve: (*Handler).putBucketVersioning,
		route: bucketSub(http.MethodPut, "versioning"), log: "VERSIONING", attrs: digestBody},
	OpGetBucketVersioning: {name: "GetBucketVersioning", actions: []string{"s3:GetBucketVersioning"}, kind: KindAdmin, serve: (*Handler).getBucketVersioning,
		route: bucketSub(http.MethodGet, "versioning"), log: "VERSIONING"},
	OpListObjectVersions: {name: "ListObjectVersions", actions: []string{"s3:ListBucketVersions"}, kind: KindList, serve: (*Handler).listObjectVersions,
		log: "BUCKETVERSIONS"},
	OpPutObjectRetention: {name: "PutObjectRetention", actions: []string{"s3:PutObjectRetention"}, kind: KindWrite, serve: (*Handler).putObjectRetention,
		route: objectSub(http.MethodPut, "retention"), log: "RETENTION", attrs: digestBody | takesVersion},
	OpGetObjectRetention: {name: "GetObjectRetention", actions: []string{"s3:GetObjectRetention"}, kind: KindRead, serve: (*Handler).getObjectRetention,
		route: objectSub(http.MethodGet, "retention"), log: "RETENTION", attrs: takesVersion},
	OpPutObjectLegalHold: {name: "PutObjectLegalHold", actions: []string{"s3:PutObjectLegalHold"}, kind: KindWrite, serve: (*Handler).putObjectLegalHold,
		route: objectSub(http.MethodPut, "legal-hold"), log: "LEGAL_HOLD", attrs: digestBody | takesVersion},
	OpGetObjectLegalHold: {name: "GetObjectLegalHold", actions: []string{"s3:GetObjectLegalHold"}, kind: KindRead, serve: (*Handler).getObjectLegalHold,
		route: objectSub(http.MethodGet, "legal-hold"), log: "LEGAL_HOLD", attrs: takesVersion},
	OpPutObjectAcl: {name: "PutObjectAcl", actions: []string{"s3:PutObjectAcl"}, kind: KindWrite, serve: (*Handler).putObjectACL,
		version: versionDesc{actions: []string{"s3:PutObjectVersionAcl"}}, route: objectSub(http.MethodPut, "acl"), log: "ACL", attrs: digestBody | takesVersion},
	OpGetObjectAcl: {name: "GetObjectAcl", actions: []string{"s3:GetObjectAcl"}, kind: KindRead, serve: (*Handler).getObjectACL,
		version: versionDesc{actions: []string{"s3:GetObjectVersionAcl"}}, route: objectSub(http.MethodGet, "acl"), log: "ACL", attrs: takesVersion},
	OpPutObjectTagging: {name: "PutObjectTagging", actions: []string{"s3:PutObjectTagging"}, kind: KindWrite, serve: (*Handler).putObjectTagging,
		version: versionDesc{actions: []string{"s3:PutObjectVersionTagging"}}, route: objectSub(http.MethodPut, "tagging"), log: "OBJECT_TAGGING", attrs: digestBody | takesVersion},
	OpGetObjectTagging: {name: "GetObjectTagging", actions: []string{"s3:GetObjectTagging"}, kind: KindRead, serve: (*Handler).getObjectTagging,
		version: versionDesc{actions: []string{"s3:GetObjectVersionTagging"}}, route: objectSub(http.MethodGet, "tagging"), log: "OBJECT_TAGGING", attrs: takesVersion},
	OpDeleteObjectTagging: {name: "DeleteObjectTagging", actions: []string{"s3:DeleteObjectTagging"}, kind: KindWrite, serve: (*Handler).deleteObjectTagging,
		version: versionDesc{actions: []string{"s3:DeleteObjectVersionTagging"}}, route: objectSub(http.MethodDelete, "tagging"), log: "OBJECT_TAGGING", attrs: takesVersion},
	OpGetObjectPermissions: {name: "GetObjectPermissions", kind: KindRead, serve: (*Handler).getPermissions,
		route: objectSub(http.MethodGet, "permissions"), log: "PERMISSIONS", attrs: jogOwn | callerOnly},
	// PostObject is PutObject from an HTML form (API reference, "POST
	// Object": the same permission as PUT).
	OpPostObject: {name: "PostObject", actions: []string{actPutObject}, kind: KindWrite, serve: servePost,
		attrs: writesObject | newObject | dataIn | digestBody | checksumBody | sseC | notifies},
	// Configurations JOG has none of: the empty state (config_reads.go).
	// A List needs the action of its Get.
	OpGetBucketWebsite: {name: "GetBucketWebsite", actions: []string{"s3:GetBucketWebsite"}, kind: KindAdmin, serve: (*Handler).getEmptyConfig,
		route: bucketSub(http.MethodGet, "website"), log: "WEBSITE"},
	OpGetBucketAccelerateConfiguration: {name: "GetBucketAccelerateConfiguration", actions: []string{"s3:GetAccelerateConfiguration"}, kind: KindAdmin, serve: (*Handler).getEmptyConfig,
		route: bucketSub(http.MethodGet, "accelerate"), log: "ACCELERATE"},
	OpGetBucketRequestPayment: {name: "GetBucketRequestPayment", actions: []string{"s3:GetBucketRequestPayment"}, kind: KindAdmin, serve: (*Handler).getEmptyConfig,
		route: bucketSub(http.MethodGet, "requestPayment"), log: "REQUEST_PAYMENT"},
	OpGetBucketAnalyticsConfiguration: {name: "GetBucketAnalyticsConfiguration", actions: []string{"s3:GetAnalyticsConfiguration"}, kind: KindAdmin, serve: (*Handler).getEmptyConfig,
		route: bucketSub(http.MethodGet, "analytics"), log: "ANALYTICS"},
	OpListBucketAnalyticsConfigurations: {name: "ListBucketAnalyticsConfigurations", actions: []string{"s3:GetAnalyticsConfiguration"}, kind: KindAdmin, serve: (*Handler).getEmptyConfig,
		route: listConfigs("analytics"), log: "ANALYTICS"},
	OpGetBucketInventoryConfiguration: {name: "GetBucketInventoryConfiguration", actions: []string{"s3:GetInventoryConfiguration"}, kind: KindAdmin, serve: (*Handler).getEmptyConfig,
		route: bucketSub(http.MethodGet, "inventory"), log: "INVENTORY"},
	OpListBucketInventoryConfigurations: {name: "ListBucketInventoryConfigurations", actions: []string{"s3:GetInventoryConfiguration"}, kind: KindAdmin, serve: (*Handler).getEmptyConfig,
		route: listConfigs("inventory"), log: "INVENTORY"},
	OpGetBucketMetricsConfiguration: {name: "GetBucketMetricsConfiguration", actions: []string{"s3:GetMetricsConfiguration"}, kind: KindAdmin, serve: (*Handler).getEmptyConfig,
		route: bucketSub(http.MethodGet, "metrics"), log: "METRICS"},
	OpListBucketMetricsConfigurations: {name: "ListBucketMetricsConfigurations", actions: []string{"s3:GetMetricsConfiguration"}, kind: KindAdmin, serve: (*Handler).getEmptyConfig,
		route: listConfigs("metrics"), log: "METRICS"},
	OpGetBucketIntelligentTieringConfiguration: {name: "GetBucketIntelligentTieringConfiguration", actions: []string{"s3:GetIntelligentTieringConfiguration"}, kind: KindAdmin, serve: (*Handler).getEmptyConfig,
		route: bucketSub(http.MethodGet, "intelligent-tiering"), log: "INTELLIGENT_TIERING"},
	OpListBucketIntelligentTieringConfigurations: {name: "ListBucketIntelligentTieringConfigurations", actions: []string{"s3:GetIntelligentTieringConfiguration"}, kind: KindAdmin, serve: (*Handler).getEmptyConfig,
		route: listConfigs("intelligent-tiering"), log: "INTELLIGENT_TIERING"},
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
