package meta

import "time"

// Upload is a multipart upload in progress.
type Upload struct {
	Bucket, Key, UploadID string
	Initiated             time.Time
	Owner                 string
	StorageClass          string
	Headers               ContentHeaders
	UserMeta              map[string]string
	// ChecksumAlgorithm and ChecksumType are what CreateMultipartUpload
	// asked for; every part carries a checksum of that algorithm.
	ChecksumAlgorithm string
	ChecksumType      string
}

// Part is one uploaded part. Parts of a completed upload stay in the store
// as the data of the object made from them.
type Part struct {
	Number       int
	BlobID       string // "" for an empty part
	Size         int64
	ETag         string // unquoted hex MD5
	LastModified time.Time
	// Checksum is the part's checksum in the upload's algorithm (base64),
	// ChecksumAlgorithm that algorithm.
	ChecksumAlgorithm string
	Checksum          string
}

// ListUploadsOptions selects a page of a bucket's uploads in progress, in
// key order and, per key, in the order they were created.
type ListUploadsOptions struct {
	Prefix, Delimiter         string
	KeyMarker, UploadIDMarker string
	Limit                     int
}

// UploadsPage is one page of ListUploads.
type UploadsPage struct {
	Uploads            []Upload
	CommonPrefixes     []string
	Truncated          bool
	NextKeyMarker      string
	NextUploadIDMarker string
}
