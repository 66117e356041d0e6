package s3api

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestParseRoute(t *testing.T) {
	cases := []struct {
		method, target, host string
		header               map[string]string
		domain               string
		want                 Route
	}{
		{"GET", "/", "", nil, "", Route{Op: OpListBuckets}},
		{"PUT", "/", "", nil, "", Route{Op: OpUnknown}},
		{"PUT", "/examplebucket", "", nil, "", Route{Op: OpCreateBucket, Bucket: "examplebucket"}},
		{"PUT", "/examplebucket/", "", nil, "", Route{Op: OpCreateBucket, Bucket: "examplebucket"}},
		{"HEAD", "/examplebucket", "", nil, "", Route{Op: OpHeadBucket, Bucket: "examplebucket"}},
		{"DELETE", "/examplebucket", "", nil, "", Route{Op: OpDeleteBucket, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?location", "", nil, "", Route{Op: OpGetBucketLocation, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?list-type=2&prefix=photos/2006/&delimiter=/", "", nil, "", Route{Op: OpListObjectsV2, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?prefix=N&marker=Ned&max-keys=40", "", nil, "", Route{Op: OpListObjects, Bucket: "examplebucket"}},
		{"POST", "/examplebucket?delete", "", nil, "", Route{Op: OpDeleteObjects, Bucket: "examplebucket"}},
		{"POST", "/examplebucket", "", nil, "", Route{Op: OpUnknown, Bucket: "examplebucket"}},
		// A browser-based upload (RESTObjectPOST's example request): a form
		// POSTed to the bucket, path-style or virtual-hosted.
		{"POST", "/examplebucket", "", map[string]string{"Content-Type": "multipart/form-data; boundary=9431149156168"}, "", Route{Op: OpPostObject, Bucket: "examplebucket"}},
		{"POST", "/", "examplebucket.s3.example.com", map[string]string{"Content-Type": "Multipart/Form-Data; boundary=x"}, "s3.example.com", Route{Op: OpPostObject, Bucket: "examplebucket"}},
		{"POST", "/examplebucket/key", "", map[string]string{"Content-Type": "multipart/form-data; boundary=x"}, "", Route{Op: OpUnknown, Bucket: "examplebucket", Key: "key"}},
		{"POST", "/examplebucket?delete", "", map[string]string{"Content-Type": "multipart/form-data; boundary=x"}, "", Route{Op: OpDeleteObjects, Bucket: "examplebucket"}},
		{"POST", "/examplebucket", "", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, "", Route{Op: OpUnknown, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?versioning", "", nil, "", Route{Op: OpGetBucketVersioning, Bucket: "examplebucket"}},
		{"PUT", "/examplebucket?versioning", "", nil, "", Route{Op: OpPutBucketVersioning, Bucket: "examplebucket"}},
		{"DELETE", "/examplebucket?versioning", "", nil, "", Route{Op: OpUnknown, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?versions&prefix=a", "", nil, "", Route{Op: OpListObjectVersions, Bucket: "examplebucket"}},
		// Quotas and reservations (JOG extensions).
		{"PUT", "/examplebucket?quota", "", nil, "", Route{Op: OpPutBucketQuota, Bucket: "examplebucket"}},
		{"PUT", "/examplebucket?logging", "", nil, "", Route{Op: OpPutBucketLogging, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?logging", "", nil, "", Route{Op: OpGetBucketLogging, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?quota", "", nil, "", Route{Op: OpGetBucketQuota, Bucket: "examplebucket"}},
		{"DELETE", "/examplebucket?quota", "", nil, "", Route{Op: OpDeleteBucketQuota, Bucket: "examplebucket"}},
		{"POST", "/examplebucket?replication-resync", "", nil, "", Route{Op: OpStartReplicationResync, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?replication-resync", "", nil, "", Route{Op: OpGetReplicationResync, Bucket: "examplebucket"}},
		{"PUT", "/examplebucket?replication-resync", "", nil, "", Route{Op: OpUnknown, Bucket: "examplebucket"}},
		{"POST", "/examplebucket?reservations", "", nil, "", Route{Op: OpCreateReservation, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?reservations", "", nil, "", Route{Op: OpListReservations, Bucket: "examplebucket"}},
		{"PUT", "/examplebucket?reservations", "", nil, "", Route{Op: OpUnknown, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?reservation=abc", "", nil, "", Route{Op: OpGetReservation, Bucket: "examplebucket"}},
		{"DELETE", "/examplebucket?reservation=abc", "", nil, "", Route{Op: OpDeleteReservation, Bucket: "examplebucket"}},
		{"POST", "/examplebucket?reservation=abc", "", nil, "", Route{Op: OpUnknown, Bucket: "examplebucket"}},
		{"GET", "/examplebucket/key?reservation=abc", "", nil, "", Route{Op: OpGetObject, Bucket: "examplebucket", Key: "key"}},
		// Configurations JOG has none of: GET answers the empty state, the
		// rest stays unsupported (501); ?id tells a Get from a List.
		{"GET", "/examplebucket?website", "", nil, "", Route{Op: OpGetBucketWebsite, Bucket: "examplebucket"}},
		{"PUT", "/examplebucket?website", "", nil, "", Route{Op: OpUnsupported, Bucket: "examplebucket", Sub: "website"}},
		{"DELETE", "/examplebucket?website", "", nil, "", Route{Op: OpUnsupported, Bucket: "examplebucket", Sub: "website"}},
		{"GET", "/examplebucket?encryption", "", nil, "", Route{Op: OpGetBucketEncryption, Bucket: "examplebucket"}},
		{"PUT", "/examplebucket?encryption", "", nil, "", Route{Op: OpPutBucketEncryption, Bucket: "examplebucket"}},
		{"DELETE", "/examplebucket?encryption", "", nil, "", Route{Op: OpDeleteBucketEncryption, Bucket: "examplebucket"}},
		{"HEAD", "/examplebucket?encryption", "", nil, "", Route{Op: OpUnknown, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?replication", "", nil, "", Route{Op: OpGetBucketReplication, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?accelerate", "", nil, "", Route{Op: OpGetBucketAccelerateConfiguration, Bucket: "examplebucket"}},
		{"PUT", "/examplebucket?accelerate", "", nil, "", Route{Op: OpUnsupported, Bucket: "examplebucket", Sub: "accelerate"}},
		{"GET", "/examplebucket?requestPayment", "", nil, "", Route{Op: OpGetBucketRequestPayment, Bucket: "examplebucket"}},
		{"PUT", "/examplebucket?requestPayment", "", nil, "", Route{Op: OpUnsupported, Bucket: "examplebucket", Sub: "requestPayment"}},
		{"GET", "/examplebucket?notification", "", nil, "", Route{Op: OpGetBucketNotificationConfiguration, Bucket: "examplebucket"}},
		{"PUT", "/examplebucket?notification", "", nil, "", Route{Op: OpPutBucketNotificationConfiguration, Bucket: "examplebucket"}},
		{"DELETE", "/examplebucket?notification", "", nil, "", Route{Op: OpUnknown, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?analytics&id=list1", "", nil, "", Route{Op: OpGetBucketAnalyticsConfiguration, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?analytics", "", nil, "", Route{Op: OpListBucketAnalyticsConfigurations, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?analytics&continuation-token=t", "", nil, "", Route{Op: OpListBucketAnalyticsConfigurations, Bucket: "examplebucket"}},
		{"PUT", "/examplebucket?analytics&id=list1", "", nil, "", Route{Op: OpUnsupported, Bucket: "examplebucket", Sub: "analytics"}},
		{"DELETE", "/examplebucket?analytics&id=list1", "", nil, "", Route{Op: OpUnsupported, Bucket: "examplebucket", Sub: "analytics"}},
		{"GET", "/examplebucket?inventory&id=report1", "", nil, "", Route{Op: OpGetBucketInventoryConfiguration, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?inventory", "", nil, "", Route{Op: OpListBucketInventoryConfigurations, Bucket: "examplebucket"}},
		{"PUT", "/examplebucket?inventory&id=report1", "", nil, "", Route{Op: OpUnsupported, Bucket: "examplebucket", Sub: "inventory"}},
		{"GET", "/examplebucket?metrics&id=EntireBucket", "", nil, "", Route{Op: OpGetBucketMetricsConfiguration, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?metrics", "", nil, "", Route{Op: OpListBucketMetricsConfigurations, Bucket: "examplebucket"}},
		{"DELETE", "/examplebucket?metrics&id=EntireBucket", "", nil, "", Route{Op: OpUnsupported, Bucket: "examplebucket", Sub: "metrics"}},
		{"GET", "/examplebucket?intelligent-tiering&id=archive", "", nil, "", Route{Op: OpGetBucketIntelligentTieringConfiguration, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?intelligent-tiering", "", nil, "", Route{Op: OpListBucketIntelligentTieringConfigurations, Bucket: "examplebucket"}},
		{"PUT", "/examplebucket?intelligent-tiering&id=archive", "", nil, "", Route{Op: OpUnsupported, Bucket: "examplebucket", Sub: "intelligent-tiering"}},
		// Still unsupported whatever the method; object subresources alike.
		{"GET", "/examplebucket?metadataConfiguration", "", nil, "", Route{Op: OpUnsupported, Bucket: "examplebucket", Sub: "metadataConfiguration"}},
		{"GET", "/examplebucket?metadataTable", "", nil, "", Route{Op: OpUnsupported, Bucket: "examplebucket", Sub: "metadataTable"}},
		{"GET", "/examplebucket/k?encryption", "", nil, "", Route{Op: OpGetObject, Bucket: "examplebucket", Key: "k"}},
		{"POST", "/examplebucket/k?restore", "", nil, "", Route{Op: OpUnsupported, Bucket: "examplebucket", Key: "k", Sub: "restore"}},
		{"PUT", "/examplebucket?tagging", "", nil, "", Route{Op: OpPutBucketTagging, Bucket: "examplebucket"}},
		{"DELETE", "/examplebucket?tagging", "", nil, "", Route{Op: OpDeleteBucketTagging, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?acl", "", nil, "", Route{Op: OpGetBucketAcl, Bucket: "examplebucket"}},
		{"PUT", "/examplebucket?ownershipControls", "", nil, "", Route{Op: OpPutBucketOwnershipControls, Bucket: "examplebucket"}},
		{"DELETE", "/examplebucket?publicAccessBlock", "", nil, "", Route{Op: OpDeletePublicAccessBlock, Bucket: "examplebucket"}},
		{"PUT", "/examplebucket/my-image.jpg", "", nil, "", Route{Op: OpPutObject, Bucket: "examplebucket", Key: "my-image.jpg"}},
		{"PUT", "/examplebucket/dst", "", map[string]string{"X-Amz-Copy-Source": "/src/key"}, "", Route{Op: OpCopyObject, Bucket: "examplebucket", Key: "dst"}},
		{"GET", "/examplebucket/photos/2006/a.jpg", "", nil, "", Route{Op: OpGetObject, Bucket: "examplebucket", Key: "photos/2006/a.jpg"}},
		{"HEAD", "/examplebucket/k", "", nil, "", Route{Op: OpHeadObject, Bucket: "examplebucket", Key: "k"}},
		{"DELETE", "/examplebucket/k", "", nil, "", Route{Op: OpDeleteObject, Bucket: "examplebucket", Key: "k"}},
		{"POST", "/examplebucket/k?uploads", "", nil, "", Route{Op: OpCreateMultipartUpload, Bucket: "examplebucket", Key: "k"}},
		{"PUT", "/examplebucket/k?partNumber=1&uploadId=VXBsb2FkSUQ", "", nil, "", Route{Op: OpUploadPart, Bucket: "examplebucket", Key: "k"}},
		{"PUT", "/examplebucket/k?partNumber=1&uploadId=VXBsb2FkSUQ", "", map[string]string{"X-Amz-Copy-Source": "/src/key"}, "", Route{Op: OpUploadPartCopy, Bucket: "examplebucket", Key: "k"}},
		{"POST", "/examplebucket/k?uploadId=VXBsb2FkSUQ", "", nil, "", Route{Op: OpCompleteMultipartUpload, Bucket: "examplebucket", Key: "k"}},
		{"DELETE", "/examplebucket/k?uploadId=VXBsb2FkSUQ", "", nil, "", Route{Op: OpAbortMultipartUpload, Bucket: "examplebucket", Key: "k"}},
		{"GET", "/examplebucket/k?uploadId=VXBsb2FkSUQ&max-parts=2", "", nil, "", Route{Op: OpListParts, Bucket: "examplebucket", Key: "k"}},
		{"GET", "/examplebucket?uploads&max-uploads=3", "", nil, "", Route{Op: OpListMultipartUploads, Bucket: "examplebucket"}},
		{"GET", "/examplebucket/k?attributes", "", nil, "", Route{Op: OpGetObjectAttributes, Bucket: "examplebucket", Key: "k"}},
		{"GET", "/examplebucket/k?partNumber=2", "", nil, "", Route{Op: OpGetObject, Bucket: "examplebucket", Key: "k"}},
		{"GET", "/examplebucket/k?tagging", "", nil, "", Route{Op: OpGetObjectTagging, Bucket: "examplebucket", Key: "k"}},
		{"PUT", "/examplebucket/k?tagging&versionId=v", "", nil, "", Route{Op: OpPutObjectTagging, Bucket: "examplebucket", Key: "k", Version: true}},
		{"GET", "/examplebucket/k?versionId=null", "", nil, "", Route{Op: OpGetObject, Bucket: "examplebucket", Key: "k", Version: true}},
		{"DELETE", "/examplebucket/k?versionId=v", "", nil, "", Route{Op: OpDeleteObject, Bucket: "examplebucket", Key: "k", Version: true}},
		{"PUT", "/examplebucket/dst", "", map[string]string{"X-Amz-Copy-Source": "/src/key?versionId=v"}, "", Route{Op: OpCopyObject, Bucket: "examplebucket", Key: "dst", SourceVersion: true}},
		{"PUT", "/examplebucket/k?partNumber=1&uploadId=U", "", map[string]string{"X-Amz-Copy-Source": "src/a%3Fb?versionId=v"}, "", Route{Op: OpUploadPartCopy, Bucket: "examplebucket", Key: "k", SourceVersion: true}},
		// A copy source's key may hold an encoded "?": it names no version.
		{"PUT", "/examplebucket/dst", "", map[string]string{"X-Amz-Copy-Source": "/src/a%3FversionId=v"}, "", Route{Op: OpCopyObject, Bucket: "examplebucket", Key: "dst"}},
		// A bucket operation names no version.
		{"GET", "/examplebucket?versions&versionId=v", "", nil, "", Route{Op: OpListObjectVersions, Bucket: "examplebucket"}},
		{"GET", "/examplebucket/k?acl", "", nil, "", Route{Op: OpGetObjectAcl, Bucket: "examplebucket", Key: "k"}},
		{"PUT", "/examplebucket/k?acl&versionId=v", "", nil, "", Route{Op: OpPutObjectAcl, Bucket: "examplebucket", Key: "k", Version: true}},
		{"POST", "/examplebucket/k", "", nil, "", Route{Op: OpUnknown, Bucket: "examplebucket", Key: "k"}},
		{"PUT", "/examplebucket?cors", "", nil, "", Route{Op: OpPutBucketCors, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?cors", "", nil, "", Route{Op: OpGetBucketCors, Bucket: "examplebucket"}},
		{"DELETE", "/examplebucket?cors", "", nil, "", Route{Op: OpDeleteBucketCors, Bucket: "examplebucket"}},
		{"POST", "/examplebucket?cors", "", nil, "", Route{Op: OpUnknown, Bucket: "examplebucket"}},
		{"PUT", "/examplebucket?lifecycle", "", nil, "", Route{Op: OpPutBucketLifecycleConfiguration, Bucket: "examplebucket"}},
		{"GET", "/examplebucket?lifecycle", "", nil, "", Route{Op: OpGetBucketLifecycleConfiguration, Bucket: "examplebucket"}},
		{"DELETE", "/examplebucket?lifecycle", "", nil, "", Route{Op: OpDeleteBucketLifecycle, Bucket: "examplebucket"}},
		{"POST", "/examplebucket?lifecycle", "", nil, "", Route{Op: OpUnknown, Bucket: "examplebucket"}},
		{"OPTIONS", "/examplebucket", "", nil, "", Route{Op: OpPreflight, Bucket: "examplebucket"}},
		{"OPTIONS", "/examplebucket/k?uploadId=VXBsb2FkSUQ", "", nil, "", Route{Op: OpPreflight, Bucket: "examplebucket", Key: "k"}},
		{"OPTIONS", "/", "", nil, "", Route{Op: OpPreflight}},
		{"OPTIONS", "/k", "examplebucket.s3.local", nil, "s3.local", Route{Op: OpPreflight, Bucket: "examplebucket", Key: "k"}},
		// Keys are taken as sent: no path cleaning.
		{"GET", "/b/a//b", "", nil, "", Route{Op: OpGetObject, Bucket: "b", Key: "a//b"}},
		{"GET", "/b/../x", "", nil, "", Route{Op: OpGetObject, Bucket: "b", Key: "../x"}},
		{"GET", "/b//leading", "", nil, "", Route{Op: OpGetObject, Bucket: "b", Key: "/leading"}},
		{"GET", "/b/dir/", "", nil, "", Route{Op: OpGetObject, Bucket: "b", Key: "dir/"}},
		{"GET", "/b/a%20b%2Bc%3Fd", "", nil, "", Route{Op: OpGetObject, Bucket: "b", Key: "a b+c?d"}},
		// Virtual-hosted style.
		{"GET", "/photos/puppy.jpg", "examplebucket.s3.local:9000", nil, "s3.local", Route{Op: OpGetObject, Bucket: "examplebucket", Key: "photos/puppy.jpg"}},
		{"GET", "/?list-type=2", "examplebucket.s3.local", nil, "s3.local", Route{Op: OpListObjectsV2, Bucket: "examplebucket"}},
		{"GET", "/", "s3.local:9000", nil, "s3.local", Route{Op: OpListBuckets}},
		{"GET", "/bkt/key", "s3.local:9000", nil, "s3.local", Route{Op: OpGetObject, Bucket: "bkt", Key: "key"}},
		{"GET", "/bkt/key", "my.bucket.s3.local", nil, "s3.local", Route{Op: OpGetObject, Bucket: "my.bucket", Key: "bkt/key"}},
		// Without --domain the host is ignored.
		{"GET", "/bkt/key", "examplebucket.s3.local", nil, "", Route{Op: OpGetObject, Bucket: "bkt", Key: "key"}},
	}
	for _, c := range cases {
		r := httptest.NewRequest(c.method, c.target, nil)
		if c.host != "" {
			r.Host = c.host
		}
		for k, v := range c.header {
			r.Header.Set(k, v)
		}
		got := ParseRoute(r, c.domain)
		if got != c.want {
			t.Errorf("%s %s (host %q, domain %q) = %+v, want %+v", c.method, c.target, c.host, c.domain, got, c.want)
		}
	}
}

func TestParseRange(t *testing.T) {
	cases := []struct {
		h       string
		size    int64
		want    byteRange
		ok      bool
		invalid bool
	}{
		{"", 10, byteRange{}, false, false},
		{"bytes=0-0", 10, byteRange{0, 1}, true, false},
		{"bytes=2-5", 10, byteRange{2, 4}, true, false},
		{"bytes=5-", 10, byteRange{5, 5}, true, false},
		{"bytes=-3", 10, byteRange{7, 3}, true, false},
		{"bytes=-30", 10, byteRange{0, 10}, true, false},
		{"bytes=8-100", 10, byteRange{8, 2}, true, false},
		{"bytes=10-", 10, byteRange{}, false, true},
		{"bytes=10-20", 10, byteRange{}, false, true},
		{"bytes=-0", 10, byteRange{}, false, true},
		{"bytes=0-", 0, byteRange{}, false, true},
		{"bytes=5-2", 10, byteRange{}, false, false},     // malformed: ignored
		{"bytes=0-1,3-4", 10, byteRange{}, false, false}, // multiple: whole object
		{"items=0-1", 10, byteRange{}, false, false},
		{"bytes=a-b", 10, byteRange{}, false, false},
	}
	for _, c := range cases {
		got, ok, err := parseRange(c.h, c.size)
		if (err != nil) != c.invalid || ok != c.ok || got != c.want {
			t.Errorf("parseRange(%q, %d) = %+v, %v, %v; want %+v, %v, invalid=%v", c.h, c.size, got, ok, err, c.want, c.ok, c.invalid)
		}
	}
}

func TestCheckConditions(t *testing.T) {
	o := testObject()
	before := "Sat, 01 Jan 2000 00:00:00 GMT"
	after := "Fri, 01 Jan 2100 00:00:00 GMT"
	cases := []struct {
		name string
		h    map[string]string
		want error
	}{
		{"none", nil, nil},
		{"if-match ok", map[string]string{"If-Match": `"` + o.ETag + `"`}, nil},
		{"if-match star", map[string]string{"If-Match": "*"}, nil},
		{"if-match list", map[string]string{"If-Match": `"x", "` + o.ETag + `"`}, nil},
		{"if-match bad", map[string]string{"If-Match": `"x"`}, errPrecondition},
		{"if-unmodified-since past", map[string]string{"If-Unmodified-Since": before}, errPrecondition},
		{"if-unmodified-since future", map[string]string{"If-Unmodified-Since": after}, nil},
		{"if-match true beats if-unmodified-since false", map[string]string{"If-Match": o.ETag, "If-Unmodified-Since": before}, nil},
		{"if-none-match hit", map[string]string{"If-None-Match": `"` + o.ETag + `"`}, errNotModified},
		{"if-none-match miss", map[string]string{"If-None-Match": `"x"`}, nil},
		{"if-modified-since future", map[string]string{"If-Modified-Since": after}, errNotModified},
		{"if-modified-since past", map[string]string{"If-Modified-Since": before}, nil},
		{"if-none-match false + if-modified-since true → 304", map[string]string{"If-None-Match": o.ETag, "If-Modified-Since": before}, errNotModified},
		{"if-none-match true ignores if-modified-since", map[string]string{"If-None-Match": `"x"`, "If-Modified-Since": after}, nil},
		{"if-match fails before if-none-match", map[string]string{"If-Match": `"x"`, "If-None-Match": o.ETag}, errPrecondition},
		{"malformed dates ignored", map[string]string{"If-Modified-Since": "yesterday", "If-Unmodified-Since": "soon"}, nil},
	}
	for _, c := range cases {
		h := http.Header{}
		for k, v := range c.h {
			h.Set(k, v)
		}
		if got := checkConditions(h, getConditions, o, errNotModified); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}
