package metamigrate_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// t0 is the clock of the filled store: Unix milliseconds, as stores keep.
var t0 = time.Date(2026, 3, 4, 5, 6, 7, 8e6, time.UTC)

// fill writes every kind of row a store keeps through meta.Store: buckets
// with configurations, versioning, object lock and a quota; objects in
// blobs, inline and empty, with headers, metadata, checksums, tags and
// ACLs; noncurrent versions and delete markers; retention and legal
// holds; records of encryption at rest; replication statuses; a completed multipart object and
// an upload in progress with parts; IAM users, keys, groups, roles, policies, boundaries; and
// reservations.
func fill(t *testing.T, s meta.Store) {
	t.Helper()
	ctx := t.Context()
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	put := func(o meta.Object) {
		t.Helper()
		_, err := s.PutObject(ctx, o, meta.Condition{})
		must("PutObject "+o.Bucket+"/"+o.Key, err)
	}
	must("CreateBucket plain", s.CreateBucket(ctx, meta.Bucket{Name: "plain", Region: "us-east-1", CreatedAt: t0, Owner: "AKIAOWNER"}))
	must("CreateBucket vers", s.CreateBucket(ctx, meta.Bucket{Name: "vers", Region: "eu-west-1", CreatedAt: t0.Add(time.Second), Owner: "AKIAOWNER"}))
	must("CreateBucket locked", s.CreateBucket(ctx, meta.Bucket{Name: "locked", Region: "us-east-1", CreatedAt: t0.Add(2 * time.Second), Owner: "AKIAOTHER", ObjectLock: true}))
	must("CreateBucket susp", s.CreateBucket(ctx, meta.Bucket{Name: "susp", Region: "us-east-1", CreatedAt: t0, Owner: "AKIAOWNER"}))
	must("SetBucketVersioning vers", s.SetBucketVersioning(ctx, "vers", meta.VersioningEnabled))
	must("SetBucketVersioning susp", s.SetBucketVersioning(ctx, "susp", meta.VersioningEnabled))
	must("SetBucketVersioning susp", s.SetBucketVersioning(ctx, "susp", meta.VersioningSuspended))
	must("SetBucketQuota", s.SetBucketQuota(ctx, "vers", 1<<30))
	must("PutBucketConfig cors", s.PutBucketConfig(ctx, "plain", "cors", []byte("<CORSConfiguration/>")))
	must("PutBucketConfig lifecycle", s.PutBucketConfig(ctx, "vers", "lifecycle", []byte{0, 1, 2, 0xff}))
	must("PutBucketConfig policy", s.PutBucketConfig(ctx, "vers", "policy", []byte(`{"Version":"2012-10-17"}`)))

	// Objects without versioning: in a blob, inline, empty, nested keys.
	put(meta.Object{Bucket: "plain", Key: "a/b/c.txt", VersionID: meta.NullVersion, BlobID: "blob-abc", Size: 1234, ETag: "0123456789abcdef0123456789abcdef",
		LastModified: t0, StorageClass: "STANDARD_IA", Owner: "AKIAOWNER",
		Headers:  meta.ContentHeaders{ContentType: "text/plain", ContentEncoding: "gzip", ContentDisposition: "inline", ContentLanguage: "fr", CacheControl: "no-cache", Expires: "Wed, 21 Oct 2015 07:28:00 GMT"},
		UserMeta: map[string]string{"colour": "blue", "ünïcode": "välue"},
		Checksum: meta.Checksum{Algorithm: "CRC32C", Value: "yZRlqg==", Type: "FULL_OBJECT"},
		Tags:     "k1=v1&k2=v%202", ACL: `[{"g":"x"}]`})
	put(meta.Object{Bucket: "plain", Key: "a/inline", VersionID: meta.NullVersion, Inline: []byte("small bytes\x00\xff"), Size: 13, ETag: "inlineetag", LastModified: t0})
	// Encrypted at rest: a blob under a KMS key with a context, inline
	// bytes under a customer key.
	put(meta.Object{Bucket: "plain", Key: "sealed/blob", VersionID: meta.NullVersion, BlobID: "blob-sealed", Size: 100, ETag: "sealedetag", LastModified: t0,
		Encryption: meta.Encryption{Mode: "aws:kms", KeyID: "app-key", Context: `{"team":"a"}`, BucketKey: true, SealedKey: []byte{9, 0, 0xff, 8}}})
	put(meta.Object{Bucket: "plain", Key: "sealed/inline", VersionID: meta.NullVersion, Inline: []byte("ciphertext\x00\xfe"), Size: 4, ETag: "ssec", LastModified: t0,
		Encryption: meta.Encryption{Mode: "SSE-C", SealedKey: []byte("sealed by the customer"), KeyCheck: []byte{1, 2, 3}}})
	put(meta.Object{Bucket: "plain", Key: "empty", VersionID: meta.NullVersion, Size: 0, ETag: "d41d8cd98f00b204e9800998ecf8427e", LastModified: t0})
	put(meta.Object{Bucket: "plain", Key: "a/b/", VersionID: meta.NullVersion, Size: 0, ETag: "d41d8cd98f00b204e9800998ecf8427e", LastModified: t0})
	for i := range 30 {
		put(meta.Object{Bucket: "plain", Key: fmt.Sprintf("many/%02d", i), VersionID: meta.NullVersion, BlobID: fmt.Sprintf("blob-many-%d", i),
			Size: int64(i + 1), ETag: fmt.Sprintf("etag%d", i), LastModified: t0.Add(time.Duration(i) * time.Millisecond)})
	}

	// Versions: noncurrent versions, delete markers (a latest one too).
	for i, k := range []string{"v/k", "v/k", "v/k", "v/gone", "v/gone", "v/inline", "v/inline"} {
		put(meta.Object{Bucket: "vers", Key: k, VersionID: fmt.Sprintf("ver%03d", i), BlobID: fmt.Sprintf("blob-v-%d", i), Size: int64(10 * (i + 1)),
			ETag: fmt.Sprintf("ev%d", i), LastModified: t0.Add(time.Duration(i) * time.Second), UserMeta: map[string]string{"n": fmt.Sprint(i)}, Tags: fmt.Sprintf("i=%d", i),
			Checksum: meta.Checksum{Algorithm: "SHA256", Value: fmt.Sprintf("c%d=", i), Type: "FULL_OBJECT"}, Encryption: sseS3(i), Replication: replicationOf(i)})
	}
	put(meta.Object{Bucket: "vers", Key: "v/inline", VersionID: "ver100", Inline: []byte("inline version"), Size: 14, ETag: "ei", LastModified: t0.Add(time.Minute)})
	put(meta.Object{Bucket: "vers", Key: "v/inline", VersionID: "ver104", Inline: []byte("newer inline"), Size: 12, ETag: "ej", LastModified: t0.Add(5 * time.Minute)})
	put(meta.Object{Bucket: "vers", Key: "v/gone", VersionID: "ver101", DeleteMarker: true, LastModified: t0.Add(2 * time.Minute),
		Replication: meta.ReplicationPending})
	put(meta.Object{Bucket: "vers", Key: "v/k", VersionID: "ver102", DeleteMarker: true, LastModified: t0.Add(3 * time.Minute)})
	put(meta.Object{Bucket: "vers", Key: "v/k", VersionID: "ver103", BlobID: "blob-v-103", Size: 5, ETag: "e103", LastModified: t0.Add(4 * time.Minute),
		Replication: meta.ReplicationCompleted})
	_, err := s.PutObjectTags(ctx, "vers", "v/k", "ver001", "retagged=yes")
	must("PutObjectTags", err)
	_, err = s.PutObjectACL(ctx, "vers", "v/k", "ver000", `[{"acl":"public-read"}]`)
	must("PutObjectACL", err)
	if ok, err := s.SetReplication(ctx, "vers", "v/k", "ver001", meta.ReplicationPending, meta.ReplicationFailed); !ok {
		must("SetReplication", fmt.Errorf("not set (%v)", err))
	}
	// Suspended versioning: a null version beside older ones.
	put(meta.Object{Bucket: "susp", Key: "s", VersionID: "sv1", BlobID: "blob-s1", Size: 1, ETag: "s1", LastModified: t0})
	put(meta.Object{Bucket: "susp", Key: "s", VersionID: meta.NullVersion, BlobID: "blob-s2", Size: 2, ETag: "s2", LastModified: t0.Add(time.Second)})

	// Object lock: retention at write, legal holds placed and released.
	put(meta.Object{Bucket: "locked", Key: "l1", VersionID: "lv1", BlobID: "blob-l1", Size: 3, ETag: "l1", LastModified: t0,
		Lock: &meta.ObjectLock{Mode: meta.LockGovernance, RetainUntil: t0.Add(24 * time.Hour)}})
	put(meta.Object{Bucket: "locked", Key: "l1", VersionID: "lv2", BlobID: "blob-l2", Size: 4, ETag: "l2", LastModified: t0.Add(time.Second)})
	put(meta.Object{Bucket: "locked", Key: "l2", VersionID: "lv3", BlobID: "blob-l3", Size: 5, ETag: "l3", LastModified: t0})
	must("PutObjectRetention", s.PutObjectRetention(ctx, "locked", "l1", "lv2", meta.ObjectLock{Mode: meta.LockCompliance, RetainUntil: t0.Add(48 * time.Hour)}, false))
	must("PutObjectLegalHold on", s.PutObjectLegalHold(ctx, "locked", "l1", "lv1", true))
	must("PutObjectLegalHold off", s.PutObjectLegalHold(ctx, "locked", "l2", "lv3", false))

	fillUploads(t, s, must)
	fillIAM(t, s, must)
	capacity := meta.Capacity{Read: 1 << 30, Write: 1 << 30, Requests: 1 << 20}
	must("CreateReservation 1", s.CreateReservation(ctx, meta.Reservation{ID: "res-1", Bucket: "vers", ReadBPS: 1000, WriteBPS: 2000, RequestsPerSecond: 30,
		Start: t0.Truncate(time.Second), End: t0.Truncate(time.Second).Add(time.Hour), Owner: "arn:aws:iam::123456789012:user/alice", CreatedAt: t0.Truncate(time.Second)}, capacity))
	must("CreateReservation 2", s.CreateReservation(ctx, meta.Reservation{ID: "res-2", Bucket: "plain", ReadBPS: 5, Start: t0.Truncate(time.Second),
		End: t0.Truncate(time.Second).Add(2 * time.Hour), Owner: "arn:aws:iam::123456789012:root", Principal: "arn:aws:iam::123456789012:user/bob", CreatedAt: t0.Truncate(time.Second)}, capacity))
	// Console sign-outs, of sessions that end long after the test.
	revoker := s.(meta.SessionRevoker)
	must("RevokeSession 1", revoker.RevokeSession(ctx, "ASIASIGNEDOUT1", time.Date(2100, 1, 2, 3, 4, 5, 0, time.UTC)))
	must("RevokeSession 2", revoker.RevokeSession(ctx, "ASIASIGNEDOUT2", time.Date(2100, 6, 7, 8, 9, 10, 0, time.UTC)))
}

// replicationOf is a replication status for the version i, none for
// every fourth.
func replicationOf(i int) string {
	return []string{"", meta.ReplicationPending, meta.ReplicationCompleted, meta.ReplicationReplica}[i%4]
}

// sseS3 is an SSE-S3 record for the even i, none for the odd.
func sseS3(i int) meta.Encryption {
	if i%2 == 1 {
		return meta.Encryption{}
	}
	return meta.Encryption{Mode: "AES256", KeyID: "sse-s3", SealedKey: []byte{byte(i), 0, 0xc3, 0x28}}
}

// fillUploads writes a completed multipart object and uploads in progress.
func fillUploads(t *testing.T, s meta.Store, must func(string, error)) {
	ctx := t.Context()
	// Two completions of one key: the first is a noncurrent version.
	for i := range 2 {
		up := meta.Upload{Bucket: "vers", Key: "mp/done", UploadID: fmt.Sprintf("up-%04d", i+1), Initiated: t0, Owner: "AKIAOWNER", StorageClass: "STANDARD",
			Headers: meta.ContentHeaders{ContentType: "application/x"}, UserMeta: map[string]string{"m": "1"}, ChecksumAlgorithm: "CRC32", ChecksumType: "COMPOSITE",
			Tags: "t=1", ACL: `[{"u":"1"}]`, Encryption: sseS3(2 * i)}
		must("CreateUpload", s.CreateUpload(ctx, up))
		var parts []meta.Part
		for n := 1; n <= 3; n++ {
			p := meta.Part{Number: n, BlobID: fmt.Sprintf("blob-part-%d-%d", i, n), Size: int64(5 << 20), ETag: fmt.Sprintf("pe%d", n), LastModified: t0,
				ChecksumAlgorithm: "CRC32", Checksum: "AAAAAA=="}
			_, err := s.PutPart(ctx, up.Bucket, up.Key, up.UploadID, p)
			must("PutPart", err)
			parts = append(parts, p)
		}
		_, err := s.CompleteUpload(ctx, meta.Object{Bucket: "vers", Key: "mp/done", VersionID: fmt.Sprintf("ver20%d", i), UploadID: up.UploadID, Size: 10 << 20,
			ETag: "mpetag-2", LastModified: t0.Add(time.Hour), Parts: []meta.Part{parts[0], parts[2]},
			Checksum: meta.Checksum{Algorithm: "CRC32", Value: "BBBBBB==-2", Type: "COMPOSITE"}, Encryption: up.Encryption}, meta.Condition{})
		must("CompleteUpload", err)
	}
	for i, key := range []string{"mp/open", "mp/open", "other"} {
		u := meta.Upload{Bucket: "locked", Key: key, UploadID: fmt.Sprintf("up-%04d", 10+i), Initiated: t0.Add(time.Duration(i) * time.Second), Owner: "AKIAOTHER",
			Headers: meta.ContentHeaders{CacheControl: "max-age=1"}, UserMeta: map[string]string{"u": key}, Tags: "open=1", ACL: `[{"o":1}]`}
		if i == 1 {
			u.Encryption = meta.Encryption{Mode: "SSE-C", SealedKey: []byte{0, 1}, KeyCheck: []byte{0xff}}
		}
		if i == 0 {
			u.Lock = &meta.ObjectLock{Mode: meta.LockGovernance, RetainUntil: t0.Add(time.Hour), LegalHold: true, HoldSet: true}
		}
		must("CreateUpload", s.CreateUpload(ctx, u))
		_, err := s.PutPart(ctx, u.Bucket, u.Key, u.UploadID, meta.Part{Number: 7, BlobID: fmt.Sprintf("blob-open-%d", i), Size: 9, ETag: "pp", LastModified: t0})
		must("PutPart", err)
		_, err = s.PutPart(ctx, u.Bucket, u.Key, u.UploadID, meta.Part{Number: 8, Size: 0, ETag: "empty", LastModified: t0})
		must("PutPart", err)
	}
}

// fillIAM writes users with keys, a group, a role, managed and inline
// policies, attachments and a permissions boundary.
func fillIAM(t *testing.T, s meta.Store, must func(string, error)) {
	ctx := t.Context()
	acct, err := s.IAMAccount(ctx)
	must("IAMAccount", err)
	arn := func(kind, path, name string) string {
		return "arn:aws:iam::" + acct + ":" + kind + "/" + path[1:] + name
	}
	pol := meta.ManagedPolicy{Name: "ReadOnly", Path: "/p/", ID: "ANPAREADONLY", ARN: arn("policy", "/p/", "ReadOnly"), Description: "read",
		Document: []byte(`{"Statement":[]}`), DefaultVersion: "v1", Created: t0, Updated: t0.Add(time.Hour)}
	must("CreatePolicy", s.CreatePolicy(ctx, pol))
	bound := meta.ManagedPolicy{Name: "Bound", Path: "/", ID: "ANPABOUND", ARN: arn("policy", "/", "Bound"), Document: []byte(`{}`), DefaultVersion: "v1", Created: t0, Updated: t0}
	must("CreatePolicy", s.CreatePolicy(ctx, bound))
	for _, e := range []meta.IAMEntity{
		{Kind: meta.EntityUser, Name: "alice", Path: "/", ID: "AIDAALICE", ARN: arn("user", "/", "alice"), Created: t0},
		{Kind: meta.EntityUser, Name: "Bob", Path: "/eng/", ID: "AIDABOB", ARN: arn("user", "/eng/", "Bob"), Created: t0.Add(time.Second)},
		{Kind: meta.EntityGroup, Name: "devs", Path: "/", ID: "AGPADEVS", ARN: arn("group", "/", "devs"), Created: t0},
		{Kind: meta.EntityRole, Name: "runner", Path: "/svc/", ID: "AROARUNNER", ARN: arn("role", "/svc/", "runner"), Created: t0,
			Description: "CI", TrustPolicy: []byte(`{"trust":1}`), MaxSessionDuration: 2 * time.Hour},
	} {
		must("CreateEntity "+e.Name, s.CreateEntity(ctx, e))
	}
	must("CreateAccessKey", s.CreateAccessKey(ctx, meta.AccessKey{ID: "AKIAALICE0000000001", User: "alice", Sealed: []byte{1, 2, 3, 0, 255}, Status: meta.AccessKeyActive, Created: t0}))
	must("CreateAccessKey", s.CreateAccessKey(ctx, meta.AccessKey{ID: "AKIAALICE0000000002", User: "alice", Sealed: []byte("sealed"), Status: meta.AccessKeyActive, Created: t0}))
	must("SetAccessKeyStatus", s.SetAccessKeyStatus(ctx, "alice", "AKIAALICE0000000002", meta.AccessKeyInactive))
	must("SetAccessKeyLastUsed", s.SetAccessKeyLastUsed(ctx, "AKIAALICE0000000001", t0.Add(time.Minute)))
	must("CreateAccessKey", s.CreateAccessKey(ctx, meta.AccessKey{ID: "AKIABOB000000000001", User: "Bob", Sealed: []byte("b"), Status: meta.AccessKeyActive, Created: t0}))
	must("AddGroupMember", s.AddGroupMember(ctx, "devs", "alice"))
	must("AddGroupMember", s.AddGroupMember(ctx, "devs", "Bob"))
	must("AttachPolicy", s.AttachPolicy(ctx, meta.EntityGroup, "devs", pol.ARN))
	must("AttachPolicy", s.AttachPolicy(ctx, meta.EntityRole, "runner", pol.ARN))
	must("SetBoundary", s.SetBoundary(ctx, meta.EntityUser, "Bob", bound.ARN))
	must("PutInlinePolicy", s.PutInlinePolicy(ctx, meta.EntityUser, "alice", "Inline1", []byte(`{"i":1}`)))
	must("PutInlinePolicy", s.PutInlinePolicy(ctx, meta.EntityRole, "runner", "inline0", []byte(`{"i":0}`)))
}
