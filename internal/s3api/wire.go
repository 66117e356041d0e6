package s3api

import (
	"net/http"
	"sort"
	"strings"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/bucketrepl"
	"github.com/jogstore/jog/internal/qos"
)

// The wire table: every request header and query parameter S3 defines for
// the operations JOG routes (and the few headers outside S3's model that
// JOG reads), and what JOG does with it. A parameter is either carried out
// by the operations in handled, or refused — before anything is read or
// stored — by the operations in refused, where S3 would act on it and JOG
// cannot. Every header in it is read as one value, and refused when sent
// twice, but those marked joined. On any other operation S3 ignores it, and
// so does JOG. TestWireTableCoversS3 checks the table against the S3 API
// model (testdata/wire/s3-params.json), TestWireTableRefuses walks it, and
// test/integration's TestWireRefusals sends every refusal to a real
// server. docs/COMPATIBILITY.md lists the refusals.

// opSet is a set of operations: a bit per Op.
type opSet [2]uint64

func opsOf(list ...Op) opSet { return opSet{}.with(list...) }

// with returns s and list.
func (s opSet) with(list ...Op) opSet {
	for _, o := range list {
		s[o/64] |= 1 << (o % 64)
	}
	return s
}

// without returns s but list.
func (s opSet) without(list ...Op) opSet {
	for _, o := range list {
		s[o/64] &^= 1 << (o % 64)
	}
	return s
}

// union returns the operations of s and of t.
func (s opSet) union(t opSet) opSet { return opSet{s[0] | t[0], s[1] | t[1]} }

// intersect returns the operations both in s and in t.
func (s opSet) intersect(t opSet) opSet { return opSet{s[0] & t[0], s[1] & t[1]} }

func (s opSet) has(o Op) bool { return s[o/64]&(1<<(o%64)) != 0 }

// Ops lists the set's operations in Op order.
func (s opSet) ops() []Op {
	var out []Op
	for o := Op(0); o < numOps; o++ {
		if s.has(o) {
			out = append(out, o)
		}
	}
	return out
}

// Groups of operations the table refers to, from the operation table's
// rows.
var (
	// objectWrites includes PostObject, whose form fields are checked as
	// the headers of a PUT.
	objectWrites = opsWith(writesObject)
	lockWrites   = objectWrites
	// digestBodies are the operations whose body Content-MD5 or a
	// checksum may cover: object data, and the XML documents of
	// configurations and DeleteObjects.
	digestBodies = opsWith(digestBody)
	// sseCOps are the operations S3 reads or writes SSE-C objects with.
	sseCOps       = opsWith(sseC)
	bodyChecksums = opsWith(checksumBody)
	// copies have a copy source, which has an IAM action of its own.
	copies = opsMatching(func(d *opDesc) bool { return d.source != "" })
	reads  = opsOf(OpGetObject, OpHeadObject)
	// extensions are JOG's own operations, not S3's (docs/QOS.md): JOG's
	// IAM actions (jog:…), outside the S3 model the wire table follows.
	extensions = opsWith(jogOwn)
	// configLists are the List…Configurations operations (config_reads.go).
	configLists = opsMatching(func(d *opDesc) bool { return d.route.list })
	// routed is every S3 operation JOG serves (a CORS preflight is the
	// browser's, answered before authentication and this table); onBucket
	// those naming a bucket.
	routed   = opsMatching(func(d *opDesc) bool { return d.serve != nil })
	onBucket = routed.without(OpListBuckets)
)

// wireRule is what JOG does with one request header or query parameter.
type wireRule struct {
	// name is the header name in lower case ("x-amz-meta-*" covers a
	// prefix) or, with query set, the query parameter.
	name    string
	query   bool
	handled opSet // operations that carry it out
	refused opSet // operations that refuse it with err
	// accept, when set, names the values a refusing operation can carry
	// out all the same (x-amz-acl: private is what every object has).
	accept func(op Op, v string) bool
	err    *APIError
	// sample is a value the refusal tests send.
	sample string
	// note says what "handled" means where it is not plain, for
	// COMPATIBILITY.md.
	note string
	// joined marks a header JOG reads as one value, its lines joined by
	// "," (RFC 9110 §5.3): a list, or a value stored as sent. JOG reads
	// one value of every other header, so a request that sends one of
	// them twice is refused (repeatedHeader).
	joined bool
}

// Refusals.
var (
	errNoLock       = apiErr(http.StatusBadRequest, "InvalidRequest", "Bucket is missing Object Lock Configuration")
	errNoRemoveSelf = notImplemented("x-amz-confirm-remove-self-bucket-access is not implemented: the root credentials keep every access whatever a bucket policy says.")
	errNoNamespace  = notImplemented("Only the global bucket namespace is implemented.")
	errNoWebsite    = notImplemented("Website redirects are not implemented.")
	errNoAppend     = notImplemented("Appending to an object (x-amz-write-offset-bytes) is not implemented.")
	// errSSEOnRead: a GET or HEAD names an encryption; S3 reads an
	// object with the encryption it was written with and refuses it.
	errSSEOnRead  = apiErr(http.StatusBadRequest, "InvalidArgument", "x-amz-server-side-encryption header is not supported for this operation.")
	errNoChecksum = notImplemented("This checksum algorithm is not implemented: JOG verifies CRC32, CRC32C, CRC64NVME, SHA1 and SHA256.")
)

func notImplemented(msg string) *APIError {
	return &APIError{Code: "NotImplemented", Message: msg, Status: http.StatusNotImplemented}
}

func anyOf(values ...string) func(Op, string) bool {
	return func(_ Op, v string) bool {
		for _, ok := range values {
			if strings.EqualFold(v, ok) {
				return true
			}
		}
		return false
	}
}

// aclWrites take x-amz-acl and x-amz-grant-*: the object writes, CreateBucket
// and Put*Acl.
var aclWrites = objectWrites.with(OpCreateBucket, OpPutBucketAcl, OpPutObjectAcl)

const sseCNote = "SSE-C: the key is never stored (a salted HMAC recognises it); over plain HTTP 400 InvalidRequest unless --allow-insecure-sse-c"

const grantNote = "id=\"…\" and uri=\"…\" (AllUsers, AuthenticatedUsers, LogDelivery) grantees; emailAddress=\"…\" is 400 UnresolvableGrantByEmailAddress (no e-mail directory); refused as x-amz-acl where ACLs are disabled"

var wireTable = []wireRule{
	// Authentication, framing and the body: every operation.
	{name: "authorization", handled: routed},
	{name: "content-length", handled: routed},
	{name: "content-type", handled: routed},
	{name: "x-amz-content-sha256", handled: routed},
	{name: "x-amz-date", handled: routed},
	{name: "x-amz-security-token", handled: routed, note: "the session token of temporary credentials (STS), verified with the signature"},
	{name: "X-Amz-Security-Token", query: true, handled: routed, note: "a presigned URL's session token, verified with the signature"},
	{name: "x-amz-request-payer", handled: routed, note: "no bucket is requester-pays, so the requester never pays"},
	{name: "x-amz-expected-bucket-owner", handled: onBucket, note: "403 AccessDenied unless it names the bucket owner's canonical ID"},
	// Outside S3's API model, which names neither these nor JOG's own.
	{name: "date", handled: routed, note: "the request time of a SigV2 signature, or of SigV4 without x-amz-date"},
	{name: "origin", handled: onBucket, note: "CORS: the bucket's rule for it sets the response's Access-Control-* headers"},
	{name: "x-amz-decoded-content-length", handled: opsOf(OpPutObject, OpUploadPart), note: "the length of an aws-chunked (STREAMING-*) body"},
	{name: "x-amz-trailer", handled: opsOf(OpPutObject, OpUploadPart), note: "the x-amz-checksum-* trailer of an aws-chunked body"},
	{name: strings.ToLower(QuotaHeader), handled: opsOf(OpCreateBucket), note: "JOG's own (docs/QOS.md): the new bucket's quota"},
	{name: strings.ToLower(bucketrepl.ReplicaHeader), handled: replicaOps,
		note: "JOG's own (bucket replication, docs/OPERATIONS.md): a replicating source's version ID, kept by the version written; needs s3:ReplicateObject (s3:ReplicateDelete on DeleteObject) and a bucket with versioning Enabled"},
	{name: qos.Header, handled: reservationOps, note: "JOG's own (docs/QOS.md): the reservation the request draws on; elsewhere 400 InvalidArgument"},

	// Integrity.
	{name: "content-md5", handled: digestBodies},
	{name: "x-amz-sdk-checksum-algorithm", handled: digestBodies,
		note: "an algorithm JOG does not verify is refused with 400 InvalidRequest"},
	{name: "x-amz-checksum-crc32", handled: bodyChecksums},
	{name: "x-amz-checksum-crc32c", handled: bodyChecksums},
	{name: "x-amz-checksum-crc64nvme", handled: bodyChecksums},
	{name: "x-amz-checksum-sha1", handled: bodyChecksums},
	{name: "x-amz-checksum-sha256", handled: bodyChecksums},
	{name: "x-amz-checksum-sha512", refused: bodyChecksums, err: errNoChecksum, sample: "AAAA"},
	{name: "x-amz-checksum-md5", refused: bodyChecksums, err: errNoChecksum, sample: "AAAA"},
	{name: "x-amz-checksum-xxhash64", refused: bodyChecksums, err: errNoChecksum, sample: "AAAA"},
	{name: "x-amz-checksum-xxhash3", refused: bodyChecksums, err: errNoChecksum, sample: "AAAA"},
	{name: "x-amz-checksum-xxhash128", refused: bodyChecksums, err: errNoChecksum, sample: "AAAA"},
	{name: "x-amz-checksum-algorithm", handled: opsOf(OpCreateMultipartUpload, OpCopyObject),
		note: "an algorithm JOG does not verify is refused with 400 InvalidRequest"},
	{name: "x-amz-checksum-type", handled: opsOf(OpCreateMultipartUpload, OpCompleteMultipartUpload),
		note: "on Complete, 400 InvalidRequest unless it is the upload's type"},
	{name: "x-amz-checksum-mode", handled: reads},
	{name: "x-amz-mp-object-size", handled: opsOf(OpCompleteMultipartUpload),
		note: "400 InvalidRequest unless it is the completed object's size"},

	// What a new object is stored with.
	{name: "cache-control", handled: objectWrites, joined: true},
	{name: "content-disposition", handled: objectWrites, joined: true},
	{name: "content-encoding", handled: objectWrites, joined: true},
	{name: "content-language", handled: objectWrites, joined: true},
	{name: "expires", handled: objectWrites, joined: true},
	{name: "x-amz-meta-*", handled: objectWrites, joined: true},
	{name: "x-amz-storage-class", handled: objectWrites},
	{name: "x-amz-metadata-directive", handled: opsOf(OpCopyObject)},
	{name: "x-amz-tagging-directive", handled: opsOf(OpCopyObject),
		note: "COPY (the default) gives the copy the source version's tags, REPLACE those of x-amz-tagging (none without it)"},
	{name: "x-amz-tagging", handled: objectWrites,
		note: "the URL-encoded tag set of the new version (on CopyObject only with x-amz-tagging-directive REPLACE)"},
	{name: "x-amz-website-redirect-location", refused: objectWrites, err: errNoWebsite, sample: "/other"},
	{name: "x-amz-write-offset-bytes", refused: opsOf(OpPutObject), err: errNoAppend, sample: "0"},

	// Access control (internal/acl).
	{name: "x-amz-acl", handled: aclWrites,
		note: "a canned ACL; where ACLs are disabled (BucketOwnerEnforced) only the owner's own (private, bucket-owner-read, bucket-owner-full-control), else 400 AccessControlListNotSupported"},
	{name: "x-amz-grant-full-control", handled: aclWrites, note: grantNote},
	{name: "x-amz-grant-read", handled: aclWrites, note: grantNote},
	{name: "x-amz-grant-read-acp", handled: aclWrites, note: grantNote},
	{name: "x-amz-grant-write", handled: aclWrites, note: grantNote},
	{name: "x-amz-grant-write-acp", handled: aclWrites, note: grantNote},
	{name: "x-amz-confirm-remove-self-bucket-access", refused: opsOf(OpPutBucketPolicy), accept: anyOf("false"), err: errNoRemoveSelf, sample: "true"},
	{name: "x-amz-object-ownership", handled: opsOf(OpCreateBucket),
		note: "BucketOwnerEnforced (the default), BucketOwnerPreferred or ObjectWriter"},

	// Buckets.
	{name: "x-amz-bucket-object-lock-enabled", handled: opsOf(OpCreateBucket), note: "true creates the bucket with object lock and versioning Enabled for good"},
	{name: "x-amz-bucket-object-lock-token", handled: opsOf(OpPutObjectLockConfiguration, OpPutBucketReplication),
		note: "not needed: object lock is enabled only when a bucket is created, and a bucket with it may replicate without a token"},
	{name: "x-amz-bucket-namespace", refused: opsOf(OpCreateBucket), accept: anyOf("global"), err: errNoNamespace, sample: "account-regional"},

	{name: "x-amz-skip-destination-validation", handled: opsOf(OpPutBucketNotificationConfiguration),
		note: "true accepts a queue ARN that names no target of the server (S3 skips its test message); events for it are not delivered until the server has such a target"},

	{name: "x-amz-transition-default-minimum-object-size", handled: opsOf(OpPutBucketLifecycleConfiguration),
		note: "accepted and ignored: it sizes transitions, and JOG refuses every Transition"},

	// Encryption at rest (encryption.go, internal/sse).
	{name: "x-amz-server-side-encryption", handled: objectWrites, refused: reads, err: errSSEOnRead, sample: "AES256",
		note: "AES256 (SSE-S3) or aws:kms (SSE-KMS); another value is 400 InvalidArgument, and with SSE-C headers too"},
	{name: "x-amz-server-side-encryption-aws-kms-key-id", handled: objectWrites, refused: reads, err: errSSEOnRead, sample: "sse-s3",
		note: "a key of the built-in KMS, by ID or ARN arn:aws:kms:<region>:<account>:key/<ID> (no aliases); only with aws:kms, else 400 InvalidArgument"},
	{name: "x-amz-server-side-encryption-context", handled: objectWrites,
		note: "base64 JSON of string pairs, bound into the data key's authentication; only with aws:kms"},
	{name: "x-amz-server-side-encryption-bucket-key-enabled", handled: objectWrites,
		note: "recorded and echoed for SSE-KMS; every object has its own data key either way"},
	{name: "x-amz-server-side-encryption-customer-algorithm", handled: sseCOps, note: sseCNote},
	{name: "x-amz-server-side-encryption-customer-key", handled: sseCOps, note: sseCNote},
	{name: "x-amz-server-side-encryption-customer-key-md5", handled: sseCOps, note: sseCNote},
	{name: "x-amz-copy-source-server-side-encryption-customer-algorithm", handled: copies, note: sseCNote},
	{name: "x-amz-copy-source-server-side-encryption-customer-key", handled: copies, note: sseCNote},
	{name: "x-amz-copy-source-server-side-encryption-customer-key-md5", handled: copies, note: sseCNote},

	// Object Lock: carried out on buckets created with it; on the others
	// PutObject, CopyObject and CreateMultipartUpload answer S3's 400
	// InvalidRequest "Bucket is missing Object Lock Configuration".
	{name: "x-amz-object-lock-mode", handled: lockWrites, sample: "GOVERNANCE",
		note: "on a bucket without object lock, 400 InvalidRequest as S3"},
	{name: "x-amz-object-lock-retain-until-date", handled: lockWrites, sample: "2030-01-01T00:00:00Z",
		note: "on a bucket without object lock, 400 InvalidRequest as S3"},
	{name: "x-amz-object-lock-legal-hold", handled: lockWrites, sample: "ON",
		note: "on a bucket without object lock, 400 InvalidRequest as S3 (OFF is accepted anywhere)"},
	{name: "x-amz-bypass-governance-retention", handled: opsOf(OpDeleteObject, OpDeleteObjects, OpPutObjectRetention),
		note: "true lets a GOVERNANCE retention be removed, shortened or bypassed; COMPLIANCE and legal holds never"},
	{name: "x-amz-mfa", handled: opsOf(OpDeleteObject, OpDeleteObjects, OpPutBucketVersioning),
		note: "no bucket has MFA delete enabled, so it is not required (MfaDelete Enabled is refused with 501 NotImplemented)"},

	// Conditions.
	{name: "if-match", handled: reads.with(OpPutObject, OpCopyObject, OpCompleteMultipartUpload, OpDeleteObject), joined: true},
	{name: "if-none-match", handled: reads.with(OpPutObject, OpCopyObject, OpCompleteMultipartUpload), joined: true},
	{name: "if-modified-since", handled: reads},
	{name: "if-unmodified-since", handled: reads},
	{name: "x-amz-if-match-size", handled: opsOf(OpDeleteObject)},
	{name: "x-amz-if-match-last-modified-time", handled: opsOf(OpDeleteObject)},
	{name: "x-amz-if-match-initiated-time", handled: opsOf(OpAbortMultipartUpload)},
	{name: "range", handled: reads},

	// Copies.
	{name: "x-amz-copy-source", handled: copies},
	{name: "x-amz-copy-source-if-match", handled: copies, joined: true},
	{name: "x-amz-copy-source-if-none-match", handled: copies, joined: true},
	{name: "x-amz-copy-source-if-modified-since", handled: copies},
	{name: "x-amz-copy-source-if-unmodified-since", handled: copies},
	{name: "x-amz-copy-source-range", handled: opsOf(OpUploadPartCopy)},
	{name: "x-amz-source-expected-bucket-owner", handled: copies,
		note: "403 AccessDenied unless it names the source bucket owner's canonical ID"},

	// GetObjectAttributes and listings.
	{name: "x-amz-object-attributes", handled: opsOf(OpGetObjectAttributes), joined: true},
	{name: "x-amz-max-parts", handled: opsOf(OpGetObjectAttributes)},
	{name: "x-amz-part-number-marker", handled: opsOf(OpGetObjectAttributes)},
	{name: "x-amz-optional-object-attributes", handled: opsOf(OpListObjects, OpListObjectsV2, OpListObjectVersions), joined: true,
		note: "RestoreStatus: no object is archived, so there is none to report"},

	// Query parameters.
	{name: "versionId", query: true, handled: versionOps},
	{name: "partNumber", query: true, handled: reads.with(OpUploadPart, OpUploadPartCopy)},
	{name: "uploadId", query: true, handled: opsOf(OpUploadPart, OpUploadPartCopy, OpCompleteMultipartUpload, OpAbortMultipartUpload, OpListParts)},
	{name: "response-cache-control", query: true, handled: reads},
	{name: "response-content-disposition", query: true, handled: reads},
	{name: "response-content-encoding", query: true, handled: reads},
	{name: "response-content-language", query: true, handled: reads},
	{name: "response-content-type", query: true, handled: reads},
	{name: "response-expires", query: true, handled: reads},
	{name: "prefix", query: true, handled: opsOf(OpListBuckets, OpListObjects, OpListObjectsV2, OpListMultipartUploads, OpListObjectVersions)},
	{name: "delimiter", query: true, handled: opsOf(OpListObjects, OpListObjectsV2, OpListMultipartUploads, OpListObjectVersions)},
	{name: "encoding-type", query: true, handled: opsOf(OpListObjects, OpListObjectsV2, OpListMultipartUploads, OpListObjectVersions)},
	{name: "max-keys", query: true, handled: opsOf(OpListObjects, OpListObjectsV2, OpListObjectVersions)},
	{name: "marker", query: true, handled: opsOf(OpListObjects)},
	{name: "continuation-token", query: true, handled: opsOf(OpListBuckets, OpListObjectsV2).union(configLists),
		note: "on the List…Configurations operations, echoed: every list is empty (JOG configures none)"},
	{name: "fetch-owner", query: true, handled: opsOf(OpListObjectsV2)},
	{name: "start-after", query: true, handled: opsOf(OpListObjectsV2)},
	{name: "key-marker", query: true, handled: opsOf(OpListMultipartUploads, OpListObjectVersions)},
	{name: "version-id-marker", query: true, handled: opsOf(OpListObjectVersions)},
	{name: "upload-id-marker", query: true, handled: opsOf(OpListMultipartUploads)},
	{name: "max-uploads", query: true, handled: opsOf(OpListMultipartUploads)},
	{name: "max-parts", query: true, handled: opsOf(OpListParts)},
	{name: "part-number-marker", query: true, handled: opsOf(OpListParts)},
	{name: "max-buckets", query: true, handled: opsOf(OpListBuckets)},
	{name: "bucket-region", query: true, handled: opsOf(OpListBuckets)},
	{name: "id", query: true, handled: opsOf(OpGetBucketAnalyticsConfiguration, OpGetBucketInventoryConfiguration,
		OpGetBucketMetricsConfiguration, OpGetBucketIntelligentTieringConfiguration),
		note: "names the configuration; there is none, so 404 NoSuchConfiguration"},
}

// wireHandled returns the operations that carry out a header or query
// parameter (by its name in the table).
func wireHandled(name string) opSet {
	for _, r := range wireTable {
		if r.name == name {
			return r.handled
		}
	}
	panic("s3api: no wire rule for " + name)
}

// The refusing rules, indexed for the request path: header rules by their
// canonical name, so a request costs one map lookup per header it sends.
var headerRefusals, queryRefusals = indexRefusals()

func indexRefusals() (headers, query map[string]*wireRule) {
	headers, query = map[string]*wireRule{}, map[string]*wireRule{}
	for i := range wireTable {
		r := &wireTable[i]
		switch {
		case r.refused == (opSet{}):
		case r.query:
			query[r.name] = r
		default:
			headers[http.CanonicalHeaderKey(r.name)] = r
		}
	}
	return headers, query
}

// singleHeaders are the headers (canonical names) JOG reads one value of:
// those of the table it does not read joined, and those the authorizer
// reads condition keys from.
var singleHeaders = indexSingleHeaders()

func indexSingleHeaders() map[string]bool {
	set := map[string]bool{}
	for _, r := range wireTable {
		if !r.query && !r.joined && !strings.HasSuffix(r.name, "*") {
			set[http.CanonicalHeaderKey(r.name)] = true
		}
	}
	for _, name := range authz.Headers() {
		set[name] = true
	}
	return set
}

// repeatedHeader returns the first (by name) header JOG reads one value
// of that the request sends on more than one line, or "". Such a request
// is refused, as a repeated query parameter is: under RFC 9110 its value
// is the lines joined by ",", which no such header's grammar allows, and
// a reader that took the first line (the handlers) would act on another
// value than one that took them all (the authorizer's condition keys).
// A header on one line is read once, so this costs no lookup.
func repeatedHeader(h http.Header) string {
	name := ""
	for k, v := range h {
		if len(v) > 1 && singleHeaders[k] && (name == "" || k < name) {
			name = k
		}
	}
	return name
}

// checkWire refuses a request that carries a header or query parameter its
// operation would have to act on and JOG cannot.
func checkWire(op Op, h http.Header, q map[string][]string) error {
	for k, v := range h {
		if r := headerRefusals[k]; r != nil && r.refuses(op, v[0]) {
			return r.err
		}
	}
	for k, v := range q {
		if r := queryRefusals[k]; r != nil && r.refuses(op, v[0]) {
			return r.err
		}
	}
	return nil
}

func (r *wireRule) refuses(op Op, v string) bool {
	return r.refused.has(op) && (r.accept == nil || !r.accept(op, v))
}

// Refusal is one header or query parameter an operation refuses, for tests
// and docs outside this package.
type Refusal struct {
	Op     string // the operation, as S3 names it
	Header string // lower case; "" for a query parameter
	Query  string
	Sample string // a value that is refused
	Code   string
	Status int
}

// Refusals lists every (operation, parameter) pair the wire table refuses,
// ordered by parameter then operation.
func Refusals() []Refusal {
	var out []Refusal
	for _, r := range wireTable {
		for _, op := range r.refused.ops() {
			ref := Refusal{Op: op.String(), Sample: r.sample, Code: r.err.Code, Status: r.err.Status}
			if r.query {
				ref.Query = r.name
			} else {
				ref.Header = r.name
			}
			out = append(out, ref)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].Header+out[i].Query < out[j].Header+out[j].Query
	})
	return out
}
