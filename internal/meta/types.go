package meta

import "time"

// NullVersion is the version ID of objects written while versioning is not
// enabled on their bucket (S3's "null" version).
const NullVersion = "null"

// Bucket is a named container of objects.
type Bucket struct {
	Name      string
	Region    string
	CreatedAt time.Time
	Owner     string // access key ID of the creator
	// Versioning is the bucket's versioning state: "" (never enabled),
	// VersioningEnabled or VersioningSuspended. It never goes back to "".
	Versioning string
	// ObjectLock: the bucket was created with object lock; its versioning
	// is Enabled for good.
	ObjectLock bool
	// Quota is the most, in bytes, the bucket's stored versions may sum
	// to (BucketStore.SetBucketQuota); 0 means no quota.
	Quota int64
}

// Usage is what a bucket holds (BucketStore.BucketUsage).
type Usage struct {
	// Bytes is what the bucket's stored versions sum to (noncurrent
	// versions included), as its quota counts it.
	Bytes int64
	// Objects counts the keys whose latest version is an object, not a
	// delete marker: what a listing of the whole bucket returns.
	Objects int64
}

// Bucket versioning states (meta.Bucket.Versioning).
const (
	VersioningEnabled   = "Enabled"
	VersioningSuspended = "Suspended"
)

// Object is one version of an object's metadata. Data lives in the blob named
// BlobID, or in Inline for small objects the store keeps with their
// metadata; with neither, the object has no data (zero bytes).
type Object struct {
	Bucket    string
	Key       string
	VersionID string

	BlobID string
	// Inline holds the bytes of a small object stored in the metadata
	// store itself (then BlobID is ""): they commit with the object's row.
	Inline       []byte
	Size         int64
	ETag         string // unquoted: hex MD5, or hex MD5-of-MD5s followed by "-N"
	LastModified time.Time
	StorageClass string // "" means STANDARD
	Owner        string

	Headers  ContentHeaders
	UserMeta map[string]string // x-amz-meta-* with the prefix removed, keys lowercase
	Checksum Checksum

	// UploadID is set on objects made by CompleteMultipartUpload: their data
	// is the upload's PartsCount parts, in part-number order (ObjectParts),
	// and BlobID is empty.
	UploadID   string
	PartsCount int
	// Parts, on CompleteUpload, names the parts that make up the object.
	Parts []Part

	// Tags is the version's tag set in the x-amz-tagging form
	// ("k1=v1&k2=v2", URL-encoded; "" for none). ObjectStore.PutObjectTags
	// replaces it.
	Tags string
	// ACL is the version's access control list as internal/acl stores it
	// (acl.Encode; "" for the private ACL). ObjectStore.PutObjectACL
	// replaces it.
	ACL string

	// DeleteMarker marks a version that records a delete: it has no data.
	// PutObject with DeleteMarker set writes one (ADR 0012).
	DeleteMarker bool
	// IsLatest is set by ScanObjects on the latest version of its key.
	IsLatest bool
	// Lock, on PutObject to a bucket with object lock, is the new
	// version's retention and legal hold, written in the same
	// transaction. Reads leave it nil (ObjectStore.GetObjectLock).
	Lock *ObjectLock
	// InBucket, when Known, is the state of the object's bucket as a read
	// or write of it saw it, in the same snapshot: what the version and
	// lock headers of its answer depend on. GetObject of a store that
	// reads the bucket in the same statement sets it (PostgreSQL: no
	// second round trip), and the service sets it on what it writes;
	// otherwise it is zero and the bucket is read on its own.
	InBucket BucketState
	// Encryption says how the version's bytes (blob, inline or parts) are
	// sealed; the zero value: stored as sent.
	Encryption Encryption
	// Replication is the version's bucket-replication status (ADR 0031):
	// "" (none) or one of ReplicationPending, ReplicationCompleted,
	// ReplicationFailed, ReplicationReplica. PutObject and CompleteUpload
	// store it with the version; ObjectStore.SetReplication changes it.
	Replication string
}

// Replication statuses of a version (Object.Replication), as S3's
// x-amz-replication-status says them.
const (
	// ReplicationPending: the version matches a replication rule and has
	// not reached the rule's target yet.
	ReplicationPending = "PENDING"
	// ReplicationCompleted: the target took the version.
	ReplicationCompleted = "COMPLETED"
	// ReplicationFailed: the target refused the version for good.
	ReplicationFailed = "FAILED"
	// ReplicationReplica: the version is a replica another server sent.
	ReplicationReplica = "REPLICA"
)

// Encryption is how an object version's (or a multipart upload's) bytes
// are sealed at rest (docs/adr/0027, 0028, internal/sse). Size and the
// checksums stay the plaintext's; the stored bytes are longer
// (format.CiphertextSize of each blob or part). Stores keep it as one
// opaque value (Encode/DecodeEncryption), so a new field needs no
// migration.
type Encryption struct {
	// Mode is "" (none), "AES256" (SSE-S3), "aws:kms" (SSE-KMS) or
	// "SSE-C" (customer key; responses say AES256 in the customer
	// algorithm header).
	Mode string `json:"m,omitempty"`
	// KeyID names the KMS key that sealed SealedKey (SSE-S3: the built-in
	// "sse-s3" key).
	KeyID string `json:"k,omitempty"`
	// Context is the client's SSE-KMS encryption context, as JSON of a
	// string map ("" for none); the object's ARN is added to it when the
	// data key is sealed and opened.
	Context string `json:"c,omitempty"`
	// BucketKey echoes x-amz-server-side-encryption-bucket-key-enabled.
	BucketKey bool `json:"b,omitempty"`
	// SealedKey is the data key, sealed by the KMS (SSE-S3, SSE-KMS) or
	// by the customer key (SSE-C).
	SealedKey []byte `json:"s,omitempty"`
	// KeyCheck recognises the customer key of an SSE-C object (a salted
	// HMAC, kms.KeyCheck); the key itself is never stored.
	KeyCheck []byte `json:"h,omitempty"`
}

// Encrypted reports whether e describes sealed bytes.
func (e Encryption) Encrypted() bool { return e.Mode != "" }

// BucketState is the part of a bucket a read or write of one of its
// objects answers with (Object.InBucket).
type BucketState struct {
	Known      bool
	Versioning string // Bucket.Versioning
	ObjectLock bool   // Bucket.ObjectLock
}

// Checksum is a flexible checksum as S3 reports it.
type Checksum struct {
	Algorithm string `json:"a,omitempty"` // CRC32, CRC32C, CRC64NVME, SHA1, SHA256; "" = none
	Value     string `json:"v,omitempty"` // base64; composite values end in "-N"
	Type      string `json:"t,omitempty"` // FULL_OBJECT or COMPOSITE
}

// ContentHeaders are the standard HTTP headers S3 stores with an object and
// returns on GET and HEAD.
type ContentHeaders struct {
	ContentType        string `json:"ct,omitempty"`
	ContentEncoding    string `json:"ce,omitempty"`
	ContentDisposition string `json:"cd,omitempty"`
	ContentLanguage    string `json:"cl,omitempty"`
	CacheControl       string `json:"cc,omitempty"`
	Expires            string `json:"ex,omitempty"`
}

// Condition guards a write or delete; it is checked against the current
// version of the key inside the same transaction that commits the change, so
// racing conditional writers cannot both succeed.
type Condition struct {
	// IfNoneMatchAny fails the write when the key exists (If-None-Match: *).
	IfNoneMatchAny bool
	// IfMatchAny fails the write when the key does not exist (If-Match: *,
	// RFC 9110: "*" matches any current representation) with
	// ErrPreconditionFailed.
	IfMatchAny bool
	// IfMatch, when set, fails the write unless the current ETag equals it
	// (unquoted). A missing key fails too, with ErrObjectNotFound.
	IfMatch string
	// IfMatchSize, when set, fails the write unless the current version is
	// that many bytes; IfMatchLastModified, when not zero, unless it was
	// last modified in that second. A missing key passes both, as S3's
	// DeleteObject x-amz-if-match-size and x-amz-if-match-last-modified-time.
	IfMatchSize         *int64
	IfMatchLastModified time.Time
	// BypassGovernance lets a delete remove a version under GOVERNANCE
	// retention (x-amz-bypass-governance-retention); it is no condition.
	BypassGovernance bool
	// IfLatestVersion, when set, fails the write with ErrPreconditionFailed
	// unless the key's latest version (its live object or its latest
	// delete marker) has this version ID: the lifecycle worker's hold on
	// the key as it listed it.
	IfLatestVersion string
	// Versioning, when not nil, fails the write with ErrVersioningChanged
	// unless the bucket's versioning state (Bucket.Versioning) is still
	// *Versioning when it commits: the state the writer chose the version
	// ID, or a delete marker over a removal, under. It is no condition
	// of the request (IsZero ignores it).
	Versioning *string
	// ObjectLock, when not nil, fails the write with ErrVersioningChanged
	// unless the bucket's object lock (Bucket.ObjectLock) is still
	// *ObjectLock when it commits: the state the writer chose the
	// version's default retention under. No condition of the request
	// either.
	ObjectLock *bool
}

// IsZero reports whether c imposes no condition.
func (c Condition) IsZero() bool {
	return !c.IfNoneMatchAny && !c.IfMatchAny && c.IfMatch == "" && c.IfMatchSize == nil && c.IfMatchLastModified.IsZero() &&
		c.IfLatestVersion == ""
}

// ListOptions selects a page of the latest versions of a bucket's objects in
// byte-wise key order.
type ListOptions struct {
	Prefix    string // only keys that start with Prefix (exact bytes, no wildcards)
	Delimiter string // group keys sharing Prefix+...+Delimiter into common prefixes
	After     string // only keys strictly greater than After; see below
	Limit     int    // maximum number of entries + common prefixes, >= 1
	// A common prefix equal to After (a NextAfter of an earlier page) is
	// skipped whole. As in S3, an After inside a group ("a/2" with keys "a/1",
	// "a/3" and Delimiter "/") still yields the group ("a/") when any of its
	// keys sort after After.
}

// ListPage is one page of a listing. Entries and CommonPrefixes are each in
// byte-wise order; together they hold at most Limit items.
type ListPage struct {
	Objects        []ObjectSummary
	CommonPrefixes []string
	// Truncated is true when more keys or prefixes follow; NextAfter is then
	// the last key or common prefix returned, to pass as After.
	Truncated bool
	NextAfter string
}

// ObjectSummary is what listings return per object: no content headers, no
// user metadata (cheap columns only).
type ObjectSummary struct {
	Key          string
	Size         int64
	ETag         string
	LastModified time.Time
	StorageClass string
	Owner        string
}

// ListVersionsOptions selects a page of a bucket's object versions: keys in
// byte-wise order, and each key's versions newest first. KeyMarker alone
// starts after every version of that key; with VersionIDMarker, after that
// version of KeyMarker (ErrVersionMarker when KeyMarker has no such
// version). A KeyMarker equal to a common prefix returned earlier skips
// the whole group.
type ListVersionsOptions struct {
	Prefix, Delimiter          string
	KeyMarker, VersionIDMarker string
	Limit                      int // versions + common prefixes, >= 1
}

// VersionSummary is one version in a version listing.
type VersionSummary struct {
	ObjectSummary
	VersionID    string
	IsLatest     bool
	DeleteMarker bool   // then Size, ETag and StorageClass are empty
	Replication  string // Object.Replication of the version
}

// VersionsPage is one page of ListObjectVersions. When Truncated, the next
// page starts at NextKeyMarker and NextVersionIDMarker ("" after a common
// prefix).
type VersionsPage struct {
	Versions            []VersionSummary
	CommonPrefixes      []string
	Truncated           bool
	NextKeyMarker       string
	NextVersionIDMarker string
}
