package integration

// Bucket replication of versions written before a rule selected them
// (resync, POST/GET ?replication-resync), and who may write a replica on
// a JOG destination (x-jog-replica-version-id: s3:ReplicateObject,
// s3:ReplicateDelete).

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/jogstore/jog/internal/bucketrepl"
	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// resyncProgress is ?replication-resync's answer.
type resyncProgress struct {
	Started, Ended, After, Error string
	Scanned, Queued              int
}

func resyncCall(t *testing.T, srv *testutil.Server, method, bucket string) (int, resyncProgress, string) {
	t.Helper()
	req := itest.RawRequest(t, srv, method, "/"+bucket+"?replication-resync", nil)
	itest.Sign(t, req, nil, itest.SignOpts{})
	resp, body := itest.Do(t, req)
	var p resyncProgress
	if resp.StatusCode == http.StatusOK {
		if err := xml.Unmarshal(body, &p); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
	}
	return resp.StatusCode, p, string(body)
}

func TestReplicationResync(t *testing.T) {
	ctx := context.Background()
	dst, dc := itest.Start(t, testutil.WithoutFsync())
	itest.VersionedBucket(t, dc, "copy")
	src, sc := itest.Start(t, replicateTo(dst.URL), testutil.WithoutFsync())
	itest.VersionedBucket(t, sc, "orig")

	// Never resynced; no configuration yet.
	if code, _, body := resyncCall(t, src, http.MethodGet, "orig"); code != http.StatusNotFound || !strings.Contains(body, "NoSuchResync") {
		t.Fatalf("GET before any resync: %d %s", code, body)
	}
	if code, _, body := resyncCall(t, src, http.MethodPost, "orig"); code != http.StatusNotFound || !strings.Contains(body, "ReplicationConfigurationNotFoundError") {
		t.Fatalf("POST without a configuration: %d %s", code, body)
	}

	// Versions written before the rule: three keys, two versions each,
	// one key's latest a delete marker.
	for i := range 6 {
		itest.Put(t, sc, "orig", fmt.Sprintf("old/%d", i%3), itest.RandBytes(uint64(i), 300+i))
	}
	if _, err := sc.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("orig"), Key: aws.String("old/2")}); err != nil {
		t.Fatal(err)
	}
	itest.ReplicateAll(t, sc, "orig", "arn:jog:replication::dr:copy")
	itest.Put(t, sc, "orig", "new", itest.RandBytes(9, 10)) // replicated at once
	if rows := itest.ListVersions(t, dc, "copy"); len(rows) != 0 {
		// "new" may have arrived; nothing older may have.
		for _, r := range rows {
			if r.Key != "new" {
				t.Fatalf("before the resync the destination has %v", rows)
			}
		}
	}
	if s := itest.ReplicationStatus(t, sc, "orig", "old/0", ""); s != "" {
		t.Fatalf("an old version's status: %q, want none", s)
	}

	code, p, body := resyncCall(t, src, http.MethodPost, "orig")
	if code != http.StatusOK || p.Started == "" {
		t.Fatalf("POST: %d %s", code, body)
	}
	itest.WaitReplicated(t, sc, dc, "orig", "copy")
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, p, body = resyncCall(t, src, http.MethodGet, "orig")
		if p.Ended != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the resync has not ended: %s", body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if p.Queued != 7 || p.Scanned != 8 || p.Error != "" { // 6 versions and a marker queued; "new" scanned, already COMPLETED
		t.Errorf("progress %+v, want 8 scanned, 7 queued", p)
	}
	// A second resync queues nothing more.
	resyncCall(t, src, http.MethodPost, "orig")
	deadline = time.Now().Add(30 * time.Second)
	for {
		_, p, body = resyncCall(t, src, http.MethodGet, "orig")
		if p.Ended != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the second resync has not ended: %s", body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if p.Queued != 0 {
		t.Errorf("second resync queued %d, want 0", p.Queued)
	}
	// jog admin prints the same progress, labelled or by name.
	if out, code := jogAdmin(src, "replication", "status", "orig"); code != 0 || !strings.HasPrefix(out, "bucket:   orig\nresync:   ended ") {
		t.Errorf("jog admin replication status: exit %d: %q", code, out)
	}
	out, code := jogAdmin(src, "replication", "status", "orig", "--json")
	var got map[string]string
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || got["Bucket"] != "orig" || got["Ended"] != p.Ended || got["Queued"] != "0" || got["Scanned"] != "8" {
		t.Errorf("jog admin replication status --json: exit %d: %q (%v)", code, out, err)
	}
}

// TestReplicaNeedsPermission: on a JOG destination, x-jog-replica-version-id
// keeps the sender's version ID only for a caller allowed
// s3:ReplicateObject (writes) or s3:ReplicateDelete (deletes); others get
// 403 and nothing is written. A malformed ID is 400.
func TestReplicaNeedsPermission(t *testing.T) {
	ctx := context.Background()
	srv, root := itest.Start(t, testutil.WithoutFsync())
	itest.VersionedBucket(t, root, "dst")
	ic := iamClient(t, srv, testutil.AccessKey, testutil.SecretKey)
	writer := s3UserClient(t, srv, ic, "writer", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:PutObject","s3:DeleteObject","s3:DeleteObjectVersion"],"Resource":"arn:aws:s3:::dst/*"}]}`)
	replicator := s3UserClient(t, srv, ic, "replicator", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:PutObject","s3:ReplicateObject","s3:DeleteObject","s3:ReplicateDelete"],"Resource":"arn:aws:s3:::dst/*"}]}`)
	const id = "0000000000000001aaaaaaaaaaaaaaaa"
	replica := func(v string) func(*s3.Options) {
		return func(o *s3.Options) {
			o.APIOptions = append(o.APIOptions, smithyhttp.SetHeaderValue(bucketrepl.ReplicaHeader, v))
		}
	}
	put := func(c *s3.Client, key, v string) (*s3.PutObjectOutput, error) {
		return c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("dst"), Key: aws.String(key), Body: strings.NewReader("x")}, replica(v))
	}

	_, err := put(writer, "k", id)
	itest.WantErr(t, err, http.StatusForbidden, "AccessDenied")
	itest.WantNoObject(t, root, "dst", "k")
	_, err = writer.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("dst"), Key: aws.String("k")}, replica(id))
	itest.WantErr(t, err, http.StatusForbidden, "AccessDenied")

	_, err = put(replicator, "k", "null")
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
	_, err = put(replicator, "k", "../../etc")
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
	out, err := put(replicator, "k", id)
	if err != nil || aws.ToString(out.VersionId) != id {
		t.Fatalf("replica PUT: %v, version %q, want %s", err, aws.ToString(out.VersionId), id)
	}
	if s := itest.ReplicationStatus(t, root, "dst", "k", id); s != "REPLICA" {
		t.Errorf("status %q, want REPLICA", s)
	}
	// Without the header the same caller writes a version of its own.
	plain, err := replicator.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("dst"), Key: aws.String("k"), Body: strings.NewReader("y")})
	if err != nil || aws.ToString(plain.VersionId) == id {
		t.Fatalf("plain PUT: %v %q", err, aws.ToString(plain.VersionId))
	}
	// Sent again (a source that crashed between its send and its record
	// of it): nothing changes, neither the bytes nor the latest version.
	again, err := replicator.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("dst"), Key: aws.String("k"), Body: strings.NewReader("z")}, replica(id))
	if err != nil || aws.ToString(again.VersionId) != id {
		t.Fatalf("replica PUT again: %v %q", err, aws.ToString(again.VersionId))
	}
	itest.WantObject(t, root, "dst", "k", []byte("y"))
	if got, _ := itest.Get(t, root, "dst", "k", func(in *s3.GetObjectInput) { in.VersionId = aws.String(id) }); string(got) != "x" {
		t.Errorf("the replica's bytes after a repeat: %q, want x", got)
	}
	const marker = "0000000000000002bbbbbbbbbbbbbbbb"
	del, err := replicator.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("dst"), Key: aws.String("k")}, replica(marker))
	if err != nil || aws.ToString(del.VersionId) != marker || !aws.ToBool(del.DeleteMarker) {
		t.Fatalf("replica delete marker: %v %+v", err, del)
	}
	if _, err := replicator.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("dst"), Key: aws.String("k"), Body: strings.NewReader("w")}); err != nil {
		t.Fatal(err)
	}
	del, err = replicator.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("dst"), Key: aws.String("k")}, replica(marker))
	if err != nil || aws.ToString(del.VersionId) != marker {
		t.Fatalf("replica delete marker again: %v %+v", err, del)
	}
	itest.WantObject(t, root, "dst", "k", []byte("w")) // the marker sent again did not become the latest

	// An unversioned bucket cannot keep a version ID.
	itest.CreateBucket(t, root, "flat")
	_, err = root.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("flat"), Key: aws.String("k"), Body: strings.NewReader("x")}, replica(id))
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidRequest")
	itest.WantNoObject(t, root, "flat", "k")
}

// TestReplicationQueueFull: with the queue full, writes still succeed and
// stay PENDING (the start-up sweep finds them), but a version delete, which
// leaves no row to find again, is refused with 503 and removes nothing.
func TestReplicationQueueFull(t *testing.T) {
	ctx := context.Background()
	_, sc := itest.Start(t, replicateTo("http://127.0.0.1:9"), testutil.WithoutFsync(), func(c *config.Config) { c.Replication.QueueMax = 1 })
	itest.VersionedBucket(t, sc, "orig")
	itest.ReplicateAll(t, sc, "orig", "arn:jog:replication::dr:copy")
	v := itest.Put(t, sc, "orig", "k", []byte("kept"))
	if s := itest.ReplicationStatus(t, sc, "orig", "k", ""); s != "PENDING" {
		t.Fatalf("status %q, want PENDING", s)
	}
	_, err := sc.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("orig"), Key: aws.String("k"), VersionId: v.VersionId})
	itest.WantErr(t, err, http.StatusServiceUnavailable, "SlowDown")
	itest.WantObject(t, sc, "orig", "k", []byte("kept"))
}
