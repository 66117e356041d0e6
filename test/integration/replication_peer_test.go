package integration

// Bucket replication to S3 servers that are not JOG: versitygw and MinIO
// (itest.StartVersityGW, itest.StartMinIO), which keep none of the
// source's version IDs and take no version deletes. The latest content of every key arrives
// byte-exact with its content type, user metadata and tags; a delete
// marker removes the key; a version delete is skipped without holding up
// the writes behind it; the source's versions end COMPLETED.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/manager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// peerObject is what a key's latest version must be on the destination.
type peerObject struct {
	body  []byte
	ctype string
	meta  map[string]string
	tags  string // x-amz-tagging, keys in order
}

func TestReplicationToVersityGW(t *testing.T) { replicationToPeer(t, itest.StartVersityGW(t)) }
func TestReplicationToMinIO(t *testing.T)     { replicationToPeer(t, itest.StartMinIO(t)) }

// replicationToPeer replicates every kind of write to peer and compares
// what arrived.
func replicationToPeer(t *testing.T, peer *itest.Peer) {
	ctx := context.Background()
	itest.CreateBucket(t, peer.Client, "copy")
	_, sc := itest.Start(t, replicateTo(peer.URL), testutil.WithoutFsync())
	itest.VersionedBucket(t, sc, "orig")
	itest.ReplicateAll(t, sc, "orig", "arn:jog:replication::dr:copy")

	want := map[string]peerObject{}
	put := func(key string, o peerObject) *s3.PutObjectOutput {
		t.Helper()
		want[key] = o
		return itest.Put(t, sc, "orig", key, o.body, func(in *s3.PutObjectInput) {
			if o.ctype != "" {
				in.ContentType = aws.String(o.ctype)
			}
			in.Metadata = o.meta
			if o.tags != "" {
				in.Tagging = aws.String(o.tags)
			}
		})
	}
	small := itest.RandBytes(11, 700)
	mib := itest.RandBytes(12, 1<<20)
	put("a/small", peerObject{body: small, ctype: "text/plain", meta: map[string]string{"colour": "blue"}, tags: "team=dr&tier=1"})
	put("b/mib", peerObject{body: itest.RandBytes(13, 1<<20+5), ctype: "application/x-first"})
	put("b/mib", peerObject{body: mib, ctype: "application/octet-stream", meta: map[string]string{"round": "two"}, tags: "v=2"}) // an overwrite

	big := itest.RandBytes(14, 11<<20+17)
	up := manager.NewUploader(sc, func(u *manager.Uploader) { u.PartSize = 5 << 20 })
	if _, err := up.Upload(ctx, &s3.PutObjectInput{Bucket: aws.String("orig"), Key: aws.String("c/multi"), Body: bytes.NewReader(big),
		ContentType: aws.String("video/mp4"), Metadata: map[string]string{"parts": "3"}, Tagging: aws.String("kind=multipart")}); err != nil {
		t.Fatal(err)
	}
	want["c/multi"] = peerObject{body: big, ctype: "video/mp4", meta: map[string]string{"parts": "3"}, tags: "kind=multipart"}

	full := itest.RandBytes(16, 6<<20+9)
	putFullObject(t, sc, "orig", "c/full", full, 5<<20)
	want["c/full"] = peerObject{body: full}

	put("d/gone", peerObject{body: small})
	if _, err := sc.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("orig"), Key: aws.String("d/gone")}); err != nil {
		t.Fatal(err) // a delete marker: the key leaves the destination
	}
	delete(want, "d/gone")

	// A version delete: the destination's IDs are its own, so it is
	// skipped; the write after it on the same key (the same lane) must
	// still arrive.
	v1 := put("e/version", peerObject{body: mib})
	put("e/version", peerObject{body: small, ctype: "text/csv"})
	if _, err := sc.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("orig"), Key: aws.String("e/version"), VersionId: v1.VersionId}); err != nil {
		t.Fatal(err)
	}
	put("e/version", peerObject{body: itest.RandBytes(15, 333), ctype: "text/markdown", meta: map[string]string{"after": "delete"}})

	waitCompleted(t, sc, "orig")
	for key, w := range want {
		got, out := itest.Get(t, peer.Client, "copy", key)
		if sha256.Sum256(got) != sha256.Sum256(w.body) {
			t.Errorf("%s on %s: %d bytes %s, want %d bytes %s", key, peer.Name, len(got), itest.Short(got), len(w.body), itest.Short(w.body))
		}
		if g, s := headChecksums(t, peer.Client, "copy", key), headChecksums(t, sc, "orig", key); g != s {
			t.Errorf("%s: ETag and checksums %s on %s, %s on the source", key, g, peer.Name, s)
		}
		if w.ctype != "" && aws.ToString(out.ContentType) != w.ctype {
			t.Errorf("%s: Content-Type %q on %s, want %q", key, aws.ToString(out.ContentType), peer.Name, w.ctype)
		}
		if !maps.Equal(out.Metadata, w.meta) {
			t.Errorf("%s: metadata %v on %s, want %v", key, out.Metadata, peer.Name, w.meta)
		}
		if got := slices.Sorted(slices.Values(objectTags(t, peer.Client, "copy", key, ""))); strings.Join(got, "&") != w.tags {
			t.Errorf("%s: tags %v on %s, want %q", key, got, peer.Name, w.tags)
		}
	}
	itest.WantNoObject(t, peer.Client, "copy", "d/gone")
	keys := listKeys(t, peer.Client, "copy")
	if wantKeys := slices.Sorted(maps.Keys(want)); !slices.Equal(keys, wantKeys) {
		t.Errorf("%s holds %v, want %v", peer.Name, keys, wantKeys)
	}
}

// waitCompleted waits until every version of bucket on c (delete markers
// aside: HEAD cannot ask them) is COMPLETED; a FAILED one fails the test
// at once.
func waitCompleted(t testing.TB, c *s3.Client, bucket string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		var pending []itest.VersionRow
		for _, r := range itest.ListVersions(t, c, bucket) {
			if r.Marker {
				continue
			}
			switch s := itest.ReplicationStatus(t, c, bucket, r.Key, r.VersionID); s {
			case "COMPLETED":
			case "FAILED":
				t.Fatalf("%v: replication FAILED", r)
			default:
				pending = append(pending, r)
			}
		}
		if len(pending) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not COMPLETED after 90 s: %v", pending)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// headChecksums is HEAD's ETag and stored checksums of key.
func headChecksums(t testing.TB, c *s3.Client, bucket, key string) string {
	t.Helper()
	out, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled})
	if err != nil {
		t.Fatalf("HeadObject %s/%s: %v", bucket, key, err)
	}
	return fmt.Sprintf("etag=%s crc32=%s crc32c=%s crc64nvme=%s sha1=%s sha256=%s type=%s", aws.ToString(out.ETag),
		aws.ToString(out.ChecksumCRC32), aws.ToString(out.ChecksumCRC32C), aws.ToString(out.ChecksumCRC64NVME),
		aws.ToString(out.ChecksumSHA1), aws.ToString(out.ChecksumSHA256), out.ChecksumType)
}

// putFullObject uploads body as key in parts of partSize with a
// FULL_OBJECT CRC64NVME checksum (the multipart form `jog cp` uses).
func putFullObject(t testing.TB, c *s3.Client, bucket, key string, body []byte, partSize int) {
	t.Helper()
	ctx := context.Background()
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key),
		ChecksumAlgorithm: types.ChecksumAlgorithmCrc64nvme, ChecksumType: types.ChecksumTypeFullObject})
	if err != nil {
		t.Fatal(err)
	}
	var parts []types.CompletedPart
	for n, off := int32(1), 0; off < len(body); n, off = n+1, off+partSize {
		b := body[off:min(off+partSize, len(body))]
		out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId,
			PartNumber: aws.Int32(n), Body: bytes.NewReader(b), ChecksumAlgorithm: types.ChecksumAlgorithmCrc64nvme})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(n), ETag: out.ETag, ChecksumCRC64NVME: out.ChecksumCRC64NVME})
	}
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key),
		UploadId: up.UploadId, ChecksumType: types.ChecksumTypeFullObject, MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}}); err != nil {
		t.Fatal(err)
	}
}

// listKeys lists bucket's keys (ListObjectsV2), in order.
func listKeys(t testing.TB, c *s3.Client, bucket string) []string {
	t.Helper()
	var keys []string
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range out.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	return keys
}

// TestReplicationToVersityGWRefused: a version the destination refuses
// (object lock headers on a bucket without object lock: 400) and one JOG
// cannot send (SSE-C: the server keeps no key) end FAILED after their
// attempts, and the writes behind them still arrive.
func TestReplicationToVersityGWRefused(t *testing.T) { refusedByPeer(t, itest.StartVersityGW(t)) }
func TestReplicationToMinIORefused(t *testing.T)     { refusedByPeer(t, itest.StartMinIO(t)) }

func refusedByPeer(t *testing.T, peer *itest.Peer) {
	ctx := context.Background()
	itest.CreateBucket(t, peer.Client, "copy")
	_, sc := itest.Start(t, replicateTo(peer.URL), testutil.WithoutFsync(), testutil.WithInsecureSSEC())
	if _, err := sc.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("orig"), ObjectLockEnabledForBucket: aws.Bool(true)}); err != nil {
		t.Fatal(err) // versioning Enabled with it
	}
	itest.ReplicateAll(t, sc, "orig", "arn:jog:replication::dr:copy")

	body := itest.RandBytes(21, 900)
	itest.Put(t, sc, "orig", "locked", body, func(in *s3.PutObjectInput) {
		in.ObjectLockMode = types.ObjectLockModeGovernance
		in.ObjectLockRetainUntilDate = aws.Time(time.Now().Add(time.Hour))
	})
	key := newSSECKey(7)
	if _, err := sc.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("orig"), Key: aws.String("secret"), Body: bytes.NewReader(body),
		SSECustomerAlgorithm: aws.String("AES256"), SSECustomerKey: aws.String(key.b64), SSECustomerKeyMD5: aws.String(key.md5)}); err != nil {
		t.Fatal(err)
	}
	itest.Put(t, sc, "orig", "plain", body)

	waitStatus(t, sc, "orig", "plain", "COMPLETED")
	waitStatus(t, sc, "orig", "locked", "FAILED")
	waitStatus(t, sc, "orig", "secret", "FAILED", key.head)
	itest.WantObject(t, peer.Client, "copy", "plain", body)
	// versitygw v1.8.0 stores a PUT's bytes before it refuses the lock
	// (backend/posix PutObject), so "locked" may be there, unlocked: the
	// caveat docs/COMPATIBILITY.md gives. "secret" was never sent.
	itest.WantNoObject(t, peer.Client, "copy", "secret")
}

// waitStatus waits until HEAD of key's latest version says status.
func waitStatus(t testing.TB, c *s3.Client, bucket, key, status string, opts ...func(*s3.HeadObjectInput)) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		in := &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}
		for _, o := range opts {
			o(in)
		}
		out, err := c.HeadObject(context.Background(), in)
		if err != nil {
			t.Fatalf("HeadObject %s/%s: %v", bucket, key, err)
		}
		if string(out.ReplicationStatus) == status {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s/%s: replication status %q after 90 s, want %s", bucket, key, out.ReplicationStatus, status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
