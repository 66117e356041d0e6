package s3api

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
	OpPutBucketCors
	OpGetBucketCors
	OpDeleteBucketCors
	OpPutBucketLifecycleConfiguration
	OpGetBucketLifecycleConfiguration
	OpDeleteBucketLifecycle
	OpPutBucketVersioning
	OpGetBucketVersioning
	OpListObjectVersions
	OpPutBucketTagging
	OpGetBucketTagging
	OpDeleteBucketTagging
	OpPutObjectTagging
	OpGetObjectTagging
	OpDeleteObjectTagging
	OpPutObjectLockConfiguration
	OpGetObjectLockConfiguration
	OpPutObjectRetention
	OpGetObjectRetention
	OpPutObjectLegalHold
	OpGetObjectLegalHold
	OpPutBucketPolicy
	OpGetBucketPolicy
	OpDeleteBucketPolicy
	OpGetBucketPolicyStatus
	OpPutBucketAcl
	OpGetBucketAcl
	OpPutObjectAcl
	OpGetObjectAcl
	OpPutBucketOwnershipControls
	OpGetBucketOwnershipControls
	OpDeleteBucketOwnershipControls
	OpPutPublicAccessBlock
	OpGetPublicAccessBlock
	OpDeletePublicAccessBlock
	// Throughput reservations (JOG extension, internal/qos, docs/QOS.md):
	// bucket subresources ?reservations and ?reservation=ID.
	OpCreateReservation
	OpListReservations
	OpGetReservation
	OpDeleteReservation
	// Bucket quotas (JOG extension, docs/QOS.md): ?quota.
	OpPutBucketQuota
	OpGetBucketQuota
	OpDeleteBucketQuota
	// Server access logging (internal/bucketlog): ?logging.
	OpPutBucketLogging
	OpGetBucketLogging
	// OpPostObject is a browser-based upload: a multipart/form-data POST
	// to the bucket, authenticated by its signed policy, not by headers.
	OpPostObject
	// OpPreflight is a CORS preflight (OPTIONS on any path): answered from
	// the bucket's CORS rules, without authentication.
	OpPreflight
	// Reads of bucket configurations JOG carries out none of
	// (config_reads.go): each answers the empty state, as S3 does for a
	// bucket without one; their PUT and DELETE stay OpUnsupported.
	OpGetBucketEncryption
	OpGetBucketWebsite
	OpGetBucketReplication
	OpGetBucketAccelerateConfiguration
	OpGetBucketRequestPayment
	OpGetBucketNotificationConfiguration
	OpGetBucketAnalyticsConfiguration
	OpListBucketAnalyticsConfigurations
	OpGetBucketInventoryConfiguration
	OpListBucketInventoryConfigurations
	OpGetBucketMetricsConfiguration
	OpListBucketMetricsConfigurations
	OpGetBucketIntelligentTieringConfiguration
	OpListBucketIntelligentTieringConfigurations
	// Event notifications (internal/notify, bucket_notification.go): the
	// PUT of ?notification; its GET is OpGetBucketNotificationConfiguration.
	OpPutBucketNotificationConfiguration

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
}

// IAM actions used by more than one operation.
const (
	actGetObject        = "s3:GetObject"
	actGetObjectVersion = "s3:GetObjectVersion"
	actPutObject        = "s3:PutObject"
	actListBucket       = "s3:ListBucket"
)

// operations is the operation table, indexed by Op. The IAM actions are
// those of AWS's Service Authorization Reference, "Actions, resources, and
// condition keys for Amazon S3", table "API operations defined by Amazon
// S3", and of each operation's API reference (TestOpActionsMatchAWS
// restates them). The actions of a request that names a version are in
// versioned, below; other actions that depend on the request —
// s3:PutObjectTagging for x-amz-tagging on a write — are not listed.
var operations = [numOps]opDesc{
	OpUnknown:     {name: "Unknown"},
	OpUnsupported: {name: "Unsupported"},
	OpPreflight:   {name: "Preflight"},

	OpListBuckets:       {"ListBuckets", []string{"s3:ListAllMyBuckets"}, "", KindList, (*Handler).listBuckets},
	OpCreateBucket:      {"CreateBucket", []string{"s3:CreateBucket"}, "", KindAdmin, (*Handler).createBucket},
	OpHeadBucket:        {"HeadBucket", []string{actListBucket}, "", KindAdmin, (*Handler).headBucket},
	OpDeleteBucket:      {"DeleteBucket", []string{"s3:DeleteBucket"}, "", KindAdmin, (*Handler).deleteBucket},
	OpGetBucketLocation: {"GetBucketLocation", []string{"s3:GetBucketLocation"}, "", KindAdmin, (*Handler).getBucketLocation},
	OpListObjects:       {"ListObjects", []string{actListBucket}, "", KindList, (*Handler).listObjectsV1},
	OpListObjectsV2:     {"ListObjectsV2", []string{actListBucket}, "", KindList, (*Handler).listObjectsV2},
	// DeleteObjects is authorised per key, as DeleteObject.
	OpDeleteObjects: {"DeleteObjects", []string{"s3:DeleteObject"}, "", KindWrite, (*Handler).deleteObjects},
	OpPutObject:     {"PutObject", []string{actPutObject}, "", KindWrite, (*Handler).putObject},
	OpCopyObject:    {"CopyObject", []string{actPutObject}, actGetObject, KindWrite, (*Handler).copyObject},
	OpGetObject:     {"GetObject", []string{actGetObject}, "", KindRead, (*Handler).getObject},
	OpHeadObject:    {"HeadObject", []string{actGetObject}, "", KindRead, (*Handler).getObject},
	OpDeleteObject:  {"DeleteObject", []string{"s3:DeleteObject"}, "", KindWrite, (*Handler).deleteObject},

	OpCreateMultipartUpload:   {"CreateMultipartUpload", []string{actPutObject}, "", KindWrite, (*Handler).createMultipartUpload},
	OpUploadPart:              {"UploadPart", []string{actPutObject}, "", KindWrite, (*Handler).uploadPart},
	OpUploadPartCopy:          {"UploadPartCopy", []string{actPutObject}, actGetObject, KindWrite, (*Handler).uploadPartCopy},
	OpCompleteMultipartUpload: {"CompleteMultipartUpload", []string{actPutObject}, "", KindWrite, (*Handler).completeMultipartUpload},
	OpAbortMultipartUpload:    {"AbortMultipartUpload", []string{"s3:AbortMultipartUpload"}, "", KindWrite, (*Handler).abortMultipartUpload},
	OpListParts:               {"ListParts", []string{"s3:ListMultipartUploadParts"}, "", KindList, (*Handler).listParts},
	OpListMultipartUploads:    {"ListMultipartUploads", []string{"s3:ListBucketMultipartUploads"}, "", KindList, (*Handler).listMultipartUploads},
	// GetObjectAttributes needs both (its API reference, "Permissions").
	OpGetObjectAttributes: {"GetObjectAttributes", []string{actGetObject, "s3:GetObjectAttributes"}, "", KindRead, (*Handler).getObjectAttributes},

	OpPutBucketCors: {"PutBucketCors", []string{"s3:PutBucketCORS"}, "", KindAdmin, (*Handler).putBucketCors},
	OpGetBucketCors: {"GetBucketCors", []string{"s3:GetBucketCORS"}, "", KindAdmin, (*Handler).getBucketCors},
	// DeleteBucketCors has no action of its own.
	OpDeleteBucketCors: {"DeleteBucketCors", []string{"s3:PutBucketCORS"}, "", KindAdmin, (*Handler).deleteBucketCors},

	OpPutBucketLifecycleConfiguration: {"PutBucketLifecycleConfiguration", []string{"s3:PutLifecycleConfiguration"}, "", KindAdmin, (*Handler).putBucketLifecycle},
	OpGetBucketLifecycleConfiguration: {"GetBucketLifecycleConfiguration", []string{"s3:GetLifecycleConfiguration"}, "", KindAdmin, (*Handler).getBucketLifecycle},
	// DeleteBucketLifecycle has no action of its own.
	OpDeleteBucketLifecycle: {"DeleteBucketLifecycle", []string{"s3:PutLifecycleConfiguration"}, "", KindAdmin, (*Handler).deleteBucketLifecycle},
	OpPutBucketVersioning:   {"PutBucketVersioning", []string{"s3:PutBucketVersioning"}, "", KindAdmin, (*Handler).putBucketVersioning},
	OpGetBucketVersioning:   {"GetBucketVersioning", []string{"s3:GetBucketVersioning"}, "", KindAdmin, (*Handler).getBucketVersioning},
	OpListObjectVersions:    {"ListObjectVersions", []string{"s3:ListBucketVersions"}, "", KindList, (*Handler).listObjectVersions},

	OpPutBucketTagging: {"PutBucketTagging", []string{"s3:PutBucketTagging"}, "", KindAdmin, (*Handler).putBucketTagging},
	OpGetBucketTagging: {"GetBucketTagging", []string{"s3:GetBucketTagging"}, "", KindAdmin, (*Handler).getBucketTagging},
	// DeleteBucketTagging has no action of its own.
	OpDeleteBucketTagging: {"DeleteBucketTagging", []string{"s3:PutBucketTagging"}, "", KindAdmin, (*Handler).deleteBucketTagging},
	OpPutObjectTagging:    {"PutObjectTagging", []string{"s3:PutObjectTagging"}, "", KindWrite, (*Handler).putObjectTagging},
	OpGetObjectTagging:    {"GetObjectTagging", []string{"s3:GetObjectTagging"}, "", KindRead, (*Handler).getObjectTagging},
	OpDeleteObjectTagging: {"DeleteObjectTagging", []string{"s3:DeleteObjectTagging"}, "", KindWrite, (*Handler).deleteObjectTagging},
	// Object lock. x-amz-bypass-governance-retention: true asks for
	// s3:BypassGovernanceRetention besides (on DeleteObject, DeleteObjects
	// and PutObjectRetention): a request-dependent action, not listed.
	OpPutObjectLockConfiguration: {"PutObjectLockConfiguration", []string{"s3:PutBucketObjectLockConfiguration"}, "", KindAdmin, (*Handler).putObjectLockConfiguration},
	OpGetObjectLockConfiguration: {"GetObjectLockConfiguration", []string{"s3:GetBucketObjectLockConfiguration"}, "", KindAdmin, (*Handler).getObjectLockConfiguration},
	OpPutObjectRetention:         {"PutObjectRetention", []string{"s3:PutObjectRetention"}, "", KindWrite, (*Handler).putObjectRetention},
	OpGetObjectRetention:         {"GetObjectRetention", []string{"s3:GetObjectRetention"}, "", KindRead, (*Handler).getObjectRetention},
	OpPutObjectLegalHold:         {"PutObjectLegalHold", []string{"s3:PutObjectLegalHold"}, "", KindWrite, (*Handler).putObjectLegalHold},
	OpGetObjectLegalHold:         {"GetObjectLegalHold", []string{"s3:GetObjectLegalHold"}, "", KindRead, (*Handler).getObjectLegalHold},
	OpPutBucketPolicy:            {"PutBucketPolicy", []string{"s3:PutBucketPolicy"}, "", KindAdmin, (*Handler).putBucketPolicy},
	OpGetBucketPolicy:            {"GetBucketPolicy", []string{"s3:GetBucketPolicy"}, "", KindAdmin, (*Handler).getBucketPolicy},
	OpDeleteBucketPolicy:         {"DeleteBucketPolicy", []string{"s3:DeleteBucketPolicy"}, "", KindAdmin, (*Handler).deleteBucketPolicy},
	OpGetBucketPolicyStatus:      {"GetBucketPolicyStatus", []string{"s3:GetBucketPolicyStatus"}, "", KindAdmin, (*Handler).getBucketPolicyStatus},
	// ACLs, Object Ownership, public access (internal/acl).
	OpPutBucketAcl:                  {"PutBucketAcl", []string{"s3:PutBucketAcl"}, "", KindAdmin, (*Handler).putBucketACL},
	OpGetBucketAcl:                  {"GetBucketAcl", []string{"s3:GetBucketAcl"}, "", KindAdmin, (*Handler).getBucketACL},
	OpPutObjectAcl:                  {"PutObjectAcl", []string{"s3:PutObjectAcl"}, "", KindWrite, (*Handler).putObjectACL},
	OpGetObjectAcl:                  {"GetObjectAcl", []string{"s3:GetObjectAcl"}, "", KindRead, (*Handler).getObjectACL},
	OpPutBucketOwnershipControls:    {"PutBucketOwnershipControls", []string{"s3:PutBucketOwnershipControls"}, "", KindAdmin, (*Handler).putOwnershipControls},
	OpGetBucketOwnershipControls:    {"GetBucketOwnershipControls", []string{"s3:GetBucketOwnershipControls"}, "", KindAdmin, (*Handler).getOwnershipControls},
	OpDeleteBucketOwnershipControls: {"DeleteBucketOwnershipControls", []string{"s3:PutBucketOwnershipControls"}, "", KindAdmin, (*Handler).deleteOwnershipControls},
	OpPutPublicAccessBlock:          {"PutPublicAccessBlock", []string{"s3:PutBucketPublicAccessBlock"}, "", KindAdmin, (*Handler).putPublicAccessBlock},
	OpGetPublicAccessBlock:          {"GetPublicAccessBlock", []string{"s3:GetBucketPublicAccessBlock"}, "", KindAdmin, (*Handler).getPublicAccessBlock},
	// DeletePublicAccessBlock has no action of its own.
	OpDeletePublicAccessBlock: {"DeletePublicAccessBlock", []string{"s3:PutBucketPublicAccessBlock"}, "", KindAdmin, (*Handler).deletePublicAccessBlock},
	// Reservations: JOG's own actions (docs/SECURITY.md), on the bucket.
	OpCreateReservation: {"CreateReservation", []string{"jog:CreateReservation"}, "", KindAdmin, (*Handler).createReservation},
	OpListReservations:  {"ListReservations", []string{"jog:ListReservations"}, "", KindAdmin, (*Handler).listReservations},
	OpGetReservation:    {"GetReservation", []string{"jog:GetReservation"}, "", KindAdmin, (*Handler).getReservation},
	OpDeleteReservation: {"DeleteReservation", []string{"jog:DeleteReservation"}, "", KindAdmin, (*Handler).deleteReservation},
	OpPutBucketQuota:    {"PutBucketQuota", []string{"jog:PutBucketQuota"}, "", KindAdmin, (*Handler).putBucketQuota},
	OpGetBucketQuota:    {"GetBucketQuota", []string{"jog:GetBucketQuota"}, "", KindAdmin, (*Handler).getBucketQuota},
	OpDeleteBucketQuota: {"DeleteBucketQuota", []string{"jog:DeleteBucketQuota"}, "", KindAdmin, (*Handler).deleteBucketQuota},
	OpPutBucketLogging:  {"PutBucketLogging", []string{"s3:PutBucketLogging"}, "", KindAdmin, (*Handler).putBucketLogging},
	OpGetBucketLogging:  {"GetBucketLogging", []string{"s3:GetBucketLogging"}, "", KindAdmin, (*Handler).getBucketLogging},
	// PostObject is PutObject from an HTML form (API reference, "POST
	// Object": the same permission as PUT).
	OpPostObject: {"PostObject", []string{actPutObject}, "", KindWrite, (*Handler).postObject},
	// Configurations JOG has none of: the empty state (config_reads.go).
	// A List needs the action of its Get.
	OpGetBucketEncryption:                        {"GetBucketEncryption", []string{"s3:GetEncryptionConfiguration"}, "", KindAdmin, (*Handler).getEmptyConfig},
	OpGetBucketWebsite:                           {"GetBucketWebsite", []string{"s3:GetBucketWebsite"}, "", KindAdmin, (*Handler).getEmptyConfig},
	OpGetBucketReplication:                       {"GetBucketReplication", []string{"s3:GetReplicationConfiguration"}, "", KindAdmin, (*Handler).getEmptyConfig},
	OpGetBucketAccelerateConfiguration:           {"GetBucketAccelerateConfiguration", []string{"s3:GetAccelerateConfiguration"}, "", KindAdmin, (*Handler).getEmptyConfig},
	OpGetBucketRequestPayment:                    {"GetBucketRequestPayment", []string{"s3:GetBucketRequestPayment"}, "", KindAdmin, (*Handler).getEmptyConfig},
	OpGetBucketNotificationConfiguration:         {"GetBucketNotificationConfiguration", []string{"s3:GetBucketNotification"}, "", KindAdmin, (*Handler).getBucketNotification},
	OpGetBucketAnalyticsConfiguration:            {"GetBucketAnalyticsConfiguration", []string{"s3:GetAnalyticsConfiguration"}, "", KindAdmin, (*Handler).getEmptyConfig},
	OpListBucketAnalyticsConfigurations:          {"ListBucketAnalyticsConfigurations", []string{"s3:GetAnalyticsConfiguration"}, "", KindAdmin, (*Handler).getEmptyConfig},
	OpGetBucketInventoryConfiguration:            {"GetBucketInventoryConfiguration", []string{"s3:GetInventoryConfiguration"}, "", KindAdmin, (*Handler).getEmptyConfig},
	OpListBucketInventoryConfigurations:          {"ListBucketInventoryConfigurations", []string{"s3:GetInventoryConfiguration"}, "", KindAdmin, (*Handler).getEmptyConfig},
	OpGetBucketMetricsConfiguration:              {"GetBucketMetricsConfiguration", []string{"s3:GetMetricsConfiguration"}, "", KindAdmin, (*Handler).getEmptyConfig},
	OpListBucketMetricsConfigurations:            {"ListBucketMetricsConfigurations", []string{"s3:GetMetricsConfiguration"}, "", KindAdmin, (*Handler).getEmptyConfig},
	OpGetBucketIntelligentTieringConfiguration:   {"GetBucketIntelligentTieringConfiguration", []string{"s3:GetIntelligentTieringConfiguration"}, "", KindAdmin, (*Handler).getEmptyConfig},
	OpListBucketIntelligentTieringConfigurations: {"ListBucketIntelligentTieringConfigurations", []string{"s3:GetIntelligentTieringConfiguration"}, "", KindAdmin, (*Handler).getEmptyConfig},
	OpPutBucketNotificationConfiguration:         {"PutBucketNotificationConfiguration", []string{"s3:PutBucketNotification"}, "", KindAdmin, (*Handler).putBucketNotification},
}

// versionDesc is what S3 requires instead of an operation's actions when
// the request names a version.
type versionDesc struct {
	// actions replace the operation's actions on the route's object.
	actions []string
	// source replaces the copy source's action when x-amz-copy-source
	// names a version (?versionId=).
	source string
}

// versioned holds, for the operations S3 authorises with other actions
// when the request names a version (a versionId query parameter; for
// DeleteObjects a VersionId in a key's entry), those actions: the same
// reference as the operations table (TestOpVersionActionsMatchAWS restates
// them). An operation without a row here needs its usual actions whatever
// the version: the retention and legal-hold actions cover every version,
// and ListObjectVersions always needs s3:ListBucketVersions.
var versioned = [numOps]versionDesc{
	OpGetObject:    {actions: []string{actGetObjectVersion}},
	OpHeadObject:   {actions: []string{actGetObjectVersion}},
	OpDeleteObject: {actions: []string{"s3:DeleteObjectVersion"}},
	// Per key: an entry with a VersionId needs s3:DeleteObjectVersion.
	OpDeleteObjects: {actions: []string{"s3:DeleteObjectVersion"}},
	// Both, as without a version ID (its API reference, "Permissions").
	OpGetObjectAttributes: {actions: []string{actGetObjectVersion, "s3:GetObjectVersionAttributes"}},
	OpPutObjectTagging:    {actions: []string{"s3:PutObjectVersionTagging"}},
	OpGetObjectTagging:    {actions: []string{"s3:GetObjectVersionTagging"}},
	OpDeleteObjectTagging: {actions: []string{"s3:DeleteObjectVersionTagging"}},
	OpPutObjectAcl:        {actions: []string{"s3:PutObjectVersionAcl"}},
	OpGetObjectAcl:        {actions: []string{"s3:GetObjectVersionAcl"}},
	// The destination is a new version whatever the source: s3:PutObject.
	OpCopyObject:     {source: actGetObjectVersion},
	OpUploadPartCopy: {source: actGetObjectVersion},
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
func (o Op) VersionActions() []string { return versioned[o].actions }

// Actions returns the IAM actions S3 requires for this request on its
// route's bucket or object, every one of them: the operation's, or those
// for a version when the request names one (rt.Version). DeleteObjects
// names its versions in its body: its keys are authorised one by one (see
// Op.VersionActions). The slice is shared: do not modify it.
func (rt Route) Actions() []string {
	if a := versioned[rt.Op].actions; rt.Version && a != nil {
		return a
	}
	return rt.Op.Actions()
}

// SourceAction returns the IAM action S3 requires on the copy source of a
// CopyObject or UploadPartCopy: s3:GetObjectVersion when x-amz-copy-source
// names a version (rt.SourceVersion), else s3:GetObject; "" for other
// operations.
func (rt Route) SourceAction() string {
	if s := versioned[rt.Op].source; rt.SourceVersion && s != "" {
		return s
	}
	return rt.Op.SourceAction()
}

// Kind returns what the operation does: read, write, list or admin.
func (o Op) Kind() Kind { return operations[o].kind }
