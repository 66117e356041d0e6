package s3api

import (
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/cors"
	"github.com/jogstore/jog/internal/lifecycle"
	"github.com/jogstore/jog/internal/tagging"
	"github.com/jogstore/jog/internal/testutil/golden"
)

// The golden tests pin the exact bytes of every XML response body the S3
// edge writes, built from fixed inputs (times, IDs, names). A change to a
// struct tag, a field's order or the hand-written list encoder shows up as
// a diff against testdata/golden/<name>.xml. After a deliberate change:
//
//	go test ./internal/s3api -run Golden -update

var update = flag.Bool("update", false, "rewrite testdata/golden/*.xml from the current output")

// goldenDays is the default retention of the object lock document.
var goldenDays = 30

// goldenPrefix is the TargetPrefix of the bucket logging document.
var goldenPrefix = "photos/"

// goldenTime is the fixed time of every date in the golden documents.
var goldenTime = time.Date(2026, 11, 24, 9, 30, 15, 123e6, time.UTC)

// TestGoldenXML writes each success document through writeXML, as the
// handlers do.
func TestGoldenXML(t *testing.T) {
	for _, c := range goldenDocs() {
		t.Run(c.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			if err := writeXML(rec, http.StatusOK, c.doc); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, c.name, rec.Body.Bytes())
		})
	}
}

// TestGoldenErrorXML writes error documents through the one error writer.
func TestGoldenErrorXML(t *testing.T) {
	h := &Handler{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	cases := []struct {
		name         string
		method, path string
		bucket, key  string
		err          error
		status       int
	}{
		{"error-no-such-key", http.MethodGet, "/bucket/dir/key%20one.txt", "bucket", "dir/key one.txt",
			&APIError{"NoSuchKey", "The specified key does not exist.", http.StatusNotFound}, http.StatusNotFound},
		{"error-access-denied", http.MethodGet, "/", "", "", errAccessDenied, http.StatusForbidden},
		{"error-malformed-xml", http.MethodPost, "/bucket", "bucket", "", errMalformedXML, http.StatusBadRequest},
		{"error-escaped", http.MethodPut, "/b/a%26b%3Cc%3E", "b", "a&b<c>",
			apiErr(http.StatusBadRequest, "InvalidArgument", "Value %q is <not> valid & stays escaped", "x'y"), http.StatusBadRequest},
		{"error-cors-denied", http.MethodOptions, "/bucket/key", "bucket", "key",
			&corsDenied{err: cors.ErrNotAllowed, method: "PUT", resourceType: "OBJECT"}, http.StatusForbidden},
		{"error-internal", http.MethodGet, "/bucket/key", "bucket", "key",
			errors.New("disk on fire"), http.StatusInternalServerError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			req := &request{
				Request: httptest.NewRequest(c.method, c.path, nil),
				id:      "0123456789ABCDEF",
				route:   Route{Bucket: c.bucket, Key: c.key},
			}
			h.writeError(&statusWriter{ResponseWriter: rec}, req, c.err)
			if rec.Code != c.status {
				t.Fatalf("status %d, want %d", rec.Code, c.status)
			}
			checkGolden(t, c.name, rec.Body.Bytes())
		})
	}
}

type goldenDoc struct {
	name string
	doc  any
}

func goldenDocs() []goldenDoc {
	when := iso8601(goldenTime)
	own := ownerOf("AKIAGOLDEN")
	three, zero := 3, 0
	marker, prefix := "photos/2026/", "ph"
	size := int64(20 << 20)
	maxAge := 3000
	return []goldenDoc{
		{"list-objects-v1", listBucketResult{
			Xmlns: s3Namespace, Name: "bucket", Prefix: "photos/", Marker: &marker, NextMarker: "photos/b&w.jpg",
			MaxKeys: 2, Delimiter: "/", IsTruncated: true,
			Contents: []listEntry{
				{Key: "photos/a.jpg", LastModified: when, ETag: `"5d41402abc4b2a76b9719d911017c592"`, Size: 5, StorageClass: "STANDARD", Owner: &own},
				{Key: "photos/b&w.jpg", LastModified: when, ETag: `"9e107d9d372bb6826bd81d3542a419d6-2"`, Size: 10 << 20, StorageClass: "STANDARD", Owner: &own},
			},
			CommonPrefixes: []commonPrefix{{Prefix: "photos/2026/"}},
		}},
		{"list-objects-v1-empty", listBucketResult{Xmlns: s3Namespace, Name: "bucket", Marker: new(string), MaxKeys: 1000}},
		{"list-objects-v2", listBucketResult{
			Xmlns: s3Namespace, Name: "bucket", Prefix: "a%20b/", ContToken: encodeToken("a b/0"),
			NextContToken: encodeToken("a b/2"), StartAfter: "a%20b/", KeyCount: &three, MaxKeys: 3,
			Delimiter: "/", EncodingType: "url", IsTruncated: true,
			Contents: []listEntry{
				{Key: "a%20b/1", LastModified: when, ETag: `"c4ca4238a0b923820dcc509a6f75849b"`, Size: 1, StorageClass: "STANDARD"},
				{Key: "a%20b/2", LastModified: when, ETag: `"c81e728d9d4c2f636f067f89cc14862c"`, Size: 1, StorageClass: "STANDARD_IA"},
			},
			CommonPrefixes: []commonPrefix{{Prefix: "a%20b/d%2F/"}},
		}},
		{"list-objects-v2-empty", listBucketResult{Xmlns: s3Namespace, Name: "bucket", KeyCount: &zero, MaxKeys: 1000}},
		{"list-buckets", listAllMyBucketsResult{
			Xmlns: s3Namespace, Owner: own, ContToken: encodeToken("beta"), Prefix: &prefix,
			Buckets: []bucketInfo{
				{Name: "alpha", CreationDate: when, BucketRegion: "us-east-1"},
				{Name: "beta", CreationDate: when, BucketRegion: "eu-west-3"},
			},
		}},
		{"list-buckets-empty", listAllMyBucketsResult{Xmlns: s3Namespace, Owner: own, Buckets: []bucketInfo{}}},
		{"location-constraint", locationConstraint{Xmlns: s3Namespace, Region: "eu-west-3"}},
		{"location-constraint-default", locationConstraint{Xmlns: s3Namespace}},
		{"initiate-multipart-upload", initiateMultipartUploadResult{
			Xmlns: s3Namespace, Bucket: "bucket", Key: "big/file.bin", UploadID: "0000018f2a3b4c5d0123456789abcdef",
		}},
		{"post-response", postResult{Location: "http://127.0.0.1:9000/bucket/uploads/a%20b.png", Bucket: "bucket",
			Key: "uploads/a b.png", ETag: `"5d41402abc4b2a76b9719d911017c592"`}},
		{"complete-multipart-upload", completeMultipartUploadResult{
			Xmlns: s3Namespace, Location: "http://127.0.0.1:9000/bucket/big/file.bin", Bucket: "bucket", Key: "big/file.bin",
			ETag: `"3858f62230ac3c915f300c664312c11f-2"`, checksumFields: checksumFields{ChecksumCRC32: "yZRlqg==-2"},
			ChecksumType: "COMPOSITE",
		}},
		{"list-parts", listPartsResult{
			Xmlns: s3Namespace, Bucket: "bucket", Key: "big/file.bin", UploadID: "0000018f2a3b4c5d0123456789abcdef",
			Initiator: own, Owner: own, StorageClass: "STANDARD", PartNumberMarker: 0, NextPartNumberMarker: 2,
			MaxParts: 2, IsTruncated: true, ChecksumAlgorithm: "CRC32", ChecksumType: "COMPOSITE",
			Parts: []partEntry{
				{PartNumber: 1, LastModified: when, ETag: `"5d41402abc4b2a76b9719d911017c592"`, Size: 5 << 20, checksumFields: checksumFields{ChecksumCRC32: "NhCmhg=="}},
				{PartNumber: 2, LastModified: when, ETag: `"7d793037a0760186574b0282f2f435e7"`, Size: 5 << 20, checksumFields: checksumFields{ChecksumCRC32: "OtobXg=="}},
			},
		}},
		{"list-multipart-uploads", listMultipartUploadsResult{
			Xmlns: s3Namespace, Bucket: "bucket", KeyMarker: "a", UploadIDMarker: "", NextKeyMarker: "big/file.bin",
			NextUploadIDMarker: "0000018f2a3b4c5d0123456789abcdef", Prefix: "", Delimiter: "/", MaxUploads: 1,
			IsTruncated: true,
			Uploads: []uploadEntry{{
				Key: "big/file.bin", UploadID: "0000018f2a3b4c5d0123456789abcdef", Initiator: own, Owner: own,
				StorageClass: "STANDARD", Initiated: when, ChecksumAlgorithm: "SHA256", ChecksumType: "COMPOSITE",
			}},
			CommonPrefixes: []commonPrefix{{Prefix: "logs/"}},
		}},
		{"copy-object", copyObjectResult{
			Xmlns: s3Namespace, LastModified: when, ETag: `"5d41402abc4b2a76b9719d911017c592"`,
			checksumFields: checksumFields{ChecksumSHA256: "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ="}, ChecksumType: "FULL_OBJECT",
		}},
		{"copy-part", copyPartResult{
			Xmlns: s3Namespace, LastModified: when, ETag: `"5d41402abc4b2a76b9719d911017c592"`,
			checksumFields: checksumFields{ChecksumCRC32C: "mnG7TA=="},
		}},
		{"get-object-attributes", attributesResult{
			Xmlns: s3Namespace, ETag: "3858f62230ac3c915f300c664312c11f-2",
			Checksum:     &attributeChecksum{checksumFields: checksumFields{ChecksumCRC64NVME: "AAAAAAAAAAA="}, ChecksumType: "FULL_OBJECT"},
			ObjectParts:  &attributeParts{TotalPartsCount: 2, NextPartNumberMarker: 1, MaxParts: 1, IsTruncated: true, Parts: []attributePart{{PartNumber: 1, Size: 10 << 20, checksumFields: checksumFields{ChecksumSHA1: "qvTGHdzF6KLavt4PO0gs2a6pQ00="}}}},
			StorageClass: "STANDARD", ObjectSize: &size,
		}},
		{"get-object-attributes-etag", attributesResult{Xmlns: s3Namespace, ETag: "5d41402abc4b2a76b9719d911017c592"}},
		{"delete-result", deleteResult{
			Xmlns:   s3Namespace,
			Deleted: []deletedEntry{{Key: "a.txt"}, {Key: "b&c.txt", VersionID: "null"}},
			Errors:  []deleteError{{Key: "c.txt", Code: "PreconditionFailed", Message: "At least one of the pre-conditions you specified did not hold."}},
		}},
		{"delete-result-quiet", deleteResult{Xmlns: s3Namespace}},
		{"delete-result-versions", deleteResult{
			Xmlns: s3Namespace,
			Deleted: []deletedEntry{{Key: "a", VersionID: "0001", DeleteMarker: true, DeleteMarkerVersionID: "0001"},
				{Key: "b", DeleteMarker: true, DeleteMarkerVersionID: "0002"}},
		}},
		{"versioning-configuration", versioningConfiguration{Xmlns: s3Namespace, Status: "Enabled"}},
		{"versioning-configuration-never", versioningConfiguration{Xmlns: s3Namespace}},
		{"object-lock-configuration", objectLockConfiguration{Xmlns: s3Namespace, ObjectLockEnabled: "Enabled",
			Rule: &objectLockRule{DefaultRetention: &defaultRetention{Mode: "GOVERNANCE", Days: &goldenDays}}}},
		{"object-lock-configuration-no-rule", objectLockConfiguration{Xmlns: s3Namespace, ObjectLockEnabled: "Enabled"}},
		{"object-retention", objectRetention{Xmlns: s3Namespace, Mode: "COMPLIANCE", RetainUntilDate: lockDate(goldenTime)}},
		{"object-legal-hold", objectLegalHold{Xmlns: s3Namespace, Status: "ON"}},
		{"bucket-logging-status", bucketLoggingStatus{Xmlns: s3Namespace,
			LoggingEnabled: &loggingEnabled{TargetBucket: "logs", TargetPrefix: &goldenPrefix}}},
		{"bucket-logging-status-off", bucketLoggingStatus{Xmlns: s3Namespace}},
		{"list-versions", listVersionsResult{
			Xmlns: s3Namespace, Name: "bucket", Prefix: "a", KeyMarker: "a", VersionIDMarker: "0001",
			NextKeyMarker: "a/b&c", NextVersionIDMarker: "0003", MaxKeys: 3, Delimiter: "/", IsTruncated: true,
			Entries: []versionEntry{
				{XMLName: xml.Name{Local: "DeleteMarker"}, Key: "a", VersionID: "0004", IsLatest: true, LastModified: when, Owner: own},
				{XMLName: xml.Name{Local: "Version"}, Key: "a", VersionID: "0000", LastModified: when,
					ETag: `"5d41402abc4b2a76b9719d911017c592"`, Size: &size, StorageClass: "STANDARD", Owner: own},
			},
			CommonPrefixes: []commonPrefix{{Prefix: "a/"}},
		}},
		{"cors-configuration", cors.Config{Xmlns: s3Namespace, Rules: []cors.Rule{
			{ID: "web", AllowedOrigins: []string{"https://example.com"}, AllowedMethods: []string{"GET", "PUT"},
				AllowedHeaders: []string{"*"}, ExposeHeaders: []string{"ETag", "x-amz-request-id"}, MaxAgeSeconds: &maxAge},
			{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"GET"}},
		}}},
		{"lifecycle-configuration", lifecycleGolden()},
		{"tagging", tagging.Tagging{Xmlns: s3Namespace, TagSet: tagging.Set{{Key: "team", Value: "a b"}, {Key: "env", Value: ""}}.Document().TagSet}},
		{"tagging-empty", tagging.Tagging{Xmlns: s3Namespace, TagSet: tagging.Set(nil).Document().TagSet}},
	}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, "internal/s3api", name, got, *update)
}

// lifecycleGolden is a lifecycle configuration using every element JOG
// stores: the legacy Prefix, each filter form, each action.
func lifecycleGolden() lifecycle.Config {
	prefix, empty := "logs/", ""
	days, newer, gt, lt := 30, 2, int64(10), int64(1000)
	date := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	marker := true
	return lifecycle.Config{Xmlns: s3Namespace, Rules: []lifecycle.Rule{
		{ID: "legacy", Prefix: &prefix, Status: lifecycle.Enabled, Expiration: &lifecycle.Expiration{Days: &days}},
		{ID: "and", Status: lifecycle.Disabled, Filter: &lifecycle.Filter{And: &lifecycle.And{Prefix: &prefix,
			Tags: []lifecycle.Tag{{Key: "k", Value: "v"}}, ObjectSizeGreaterThan: &gt, ObjectSizeLessThan: &lt}},
			Expiration:                  &lifecycle.Expiration{Date: &date},
			NoncurrentVersionExpiration: &lifecycle.NoncurrentVersionExpiration{NoncurrentDays: 7, NewerNoncurrentVersions: &newer}},
		{ID: "all", Status: lifecycle.Enabled, Filter: &lifecycle.Filter{Prefix: &empty},
			Expiration:                     &lifecycle.Expiration{ExpiredObjectDeleteMarker: &marker},
			AbortIncompleteMultipartUpload: &lifecycle.AbortIncompleteMultipartUpload{DaysAfterInitiation: 3}},
		{ID: "empty", Status: lifecycle.Enabled, Filter: &lifecycle.Filter{},
			Expiration: &lifecycle.Expiration{Days: &days}},
	}}
}
