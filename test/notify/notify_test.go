package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/nats-io/nats.go"

	"github.com/jogstore/jog/internal/notify"
	"github.com/jogstore/jog/internal/notify/target/natstest"
	"github.com/jogstore/jog/internal/testutil"
)

const (
	hookARN = "arn:jog:sqs:" + region + ":hook:webhook"
	busARN  = "arn:jog:sqs:" + region + ":bus:nats"
	subject = "jog.events"
	token   = "hook-bearer-token"
)

// setup is a jog server with both targets, and what they receive.
type setup struct {
	bin, dataDir string
	args, env    []string
	srv          *server
	hook         *receiver
	bus          chan *nats.Msg
	nats         *natstest.Server
}

func start(t *testing.T) *setup {
	t.Helper()
	ns := natstest.StartJetStream(t)
	nc, err := nats.Connect(ns.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	bus := make(chan *nats.Msg, 1024)
	if _, err := nc.ChanSubscribe(subject, bus); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	hook := newReceiver()
	hs := httptest.NewServer(hook)
	t.Cleanup(hs.Close)
	tmp := t.TempDir()
	s := &setup{bin: testutil.BuildJog(t, tmp), dataDir: tmp + "/data", hook: hook, bus: bus, nats: ns,
		args: []string{"--notify-webhook", "hook=" + hs.URL + "/events", "--notify-nats", "bus=" + ns.URL() + "/" + subject},
		env:  []string{"JOG_NOTIFY_WEBHOOK_TOKEN=hook=" + token}}
	s.srv = startServer(t, s.bin, s.dataDir, s.env, s.args...)
	for _, arn := range []string{hookARN, busARN} {
		if !slices.Contains(s.srv.Banner, "Notification target: "+arn) {
			t.Errorf("the banner does not name %s:\n%s", arn, strings.Join(s.srv.Banner, "\n"))
		}
	}
	return s
}

// toHook sends every object created or removed to the webhook.
var toHook = []types.QueueConfiguration{{Id: aws.String("all"), QueueArn: aws.String(hookARN),
	Events: []types.Event{"s3:ObjectCreated:*", "s3:ObjectRemoved:*"}}}

// toBus sends the objects created under in/ to NATS.
var toBus = []types.QueueConfiguration{{QueueArn: aws.String(busARN), Events: []types.Event{"s3:ObjectCreated:*"},
	Filter: &types.NotificationConfigurationFilter{Key: &types.S3KeyFilter{FilterRules: []types.FilterRule{
		{Name: types.FilterRuleNamePrefix, Value: aws.String("in/")}}}}}}

// configure puts bucket's notification configuration.
func configure(t *testing.T, c *s3.Client, bucket string, qcs []types.QueueConfiguration) {
	t.Helper()
	_, err := c.PutBucketNotificationConfiguration(context.Background(), &s3.PutBucketNotificationConfigurationInput{
		Bucket:                    aws.String(bucket),
		NotificationConfiguration: &types.NotificationConfiguration{QueueConfigurations: qcs},
	})
	if err != nil {
		t.Fatalf("PutBucketNotificationConfiguration: %v", err)
	}
}

func mustCreate(t *testing.T, c *s3.Client, bucket string, versioned bool, qcs []types.QueueConfiguration) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	if versioned {
		if _, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(bucket),
			VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
			t.Fatal(err)
		}
	}
	configure(t, c, bucket, qcs)
}

func put(t *testing.T, c *s3.Client, bucket, key string, body []byte) string {
	t.Helper()
	out, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key),
		Body: bytes.NewReader(body)})
	if err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
	return strings.Trim(aws.ToString(out.ETag), `"`)
}

// want is an event expected: its name, bucket, key, and the size, ETag
// and version ID when given.
type want struct {
	name, bucket, key, etag, version string
	size                             int64
}

func check(t *testing.T, got []notify.Event, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("%d events, want %d:%s", len(got), len(wants), describe(got))
	}
	for i, w := range wants {
		e := got[i]
		o := e.S3.Object
		if e.EventName != w.name || e.S3.Bucket.Name != w.bucket || o.Key != w.key || e.EventSource != "aws:s3" ||
			e.AWSRegion != region || e.S3.Bucket.ARN != "arn:aws:s3:::"+w.bucket {
			t.Errorf("event %d: %s %s/%s (source %q region %q arn %q), want %s %s/%s", i, e.EventName, e.S3.Bucket.Name, o.Key,
				e.EventSource, e.AWSRegion, e.S3.Bucket.ARN, w.name, w.bucket, w.key)
		}
		var size int64 = -1 // absent
		if o.Size != nil {
			size = *o.Size
		}
		if size != w.size || strings.Trim(o.ETag, `"`) != w.etag {
			t.Errorf("event %d (%s %s): size %d eTag %q, want %d %q", i, w.name, w.key, size, o.ETag, w.size, w.etag)
		}
		if w.version != "" && o.VersionID != w.version {
			t.Errorf("event %d (%s %s): versionId %q, want %q", i, w.name, w.key, o.VersionID, w.version)
		}
	}
}

// TestEvents: each kind of write is one event on the webhook, in order,
// with the object's name, size and ETag; NATS gets the objects created
// under the prefix its bucket's configuration names; the metrics count
// them.
func TestEvents(t *testing.T) {
	s := start(t)
	c := s.srv.client()
	ctx := context.Background()
	mustCreate(t, c, "events", false, toHook)

	etag := put(t, c, "events", "a.txt", []byte("hello"))
	cp, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("events"), Key: aws.String("b.txt"),
		CopySource: aws.String("events/a.txt")})
	if err != nil {
		t.Fatal(err)
	}
	cpETag := strings.Trim(aws.ToString(cp.CopyObjectResult.ETag), `"`)
	mpETag := multipart(t, c, "events", "big.bin", 5<<20, 1)
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("events"), Key: aws.String("a.txt")}); err != nil {
		t.Fatal(err)
	}

	mustCreate(t, c, "versioned", true, toHook)
	vETag := put(t, c, "versioned", "v.txt", []byte("version one"))
	del, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("versioned"), Key: aws.String("v.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if !aws.ToBool(del.DeleteMarker) {
		t.Fatal("no delete marker created in a versioned bucket")
	}
	wants := []want{
		{name: "ObjectCreated:Put", bucket: "events", key: "a.txt", size: 5, etag: etag},
		{name: "ObjectCreated:Copy", bucket: "events", key: "b.txt", size: 5, etag: cpETag},
		{name: "ObjectCreated:CompleteMultipartUpload", bucket: "events", key: "big.bin", size: 5<<20 + 1, etag: mpETag},
		{name: "ObjectRemoved:Delete", bucket: "events", key: "a.txt", size: -1},
		{name: "ObjectCreated:Put", bucket: "versioned", key: "v.txt", size: 11, etag: vETag},
		{name: "ObjectRemoved:DeleteMarkerCreated", bucket: "versioned", key: "v.txt", size: -1, version: aws.ToString(del.VersionId)},
	}
	mustCreate(t, c, "bus", false, toBus)
	put(t, c, "bus", "out/x.txt", []byte("not to nats"))
	natsETag := put(t, c, "bus", "in/n.txt", []byte("to nats"))

	got := s.hook.wait(t, "the webhook's events", func(evs []notify.Event) bool { return len(evs) >= len(wants) })
	check(t, got, wants)
	s.hook.mu.Lock()
	for _, a := range s.hook.auth {
		if a != "Bearer "+token {
			t.Errorf("webhook Authorization %q", a)
		}
	}
	s.hook.mu.Unlock()

	select {
	case m := <-s.bus:
		var msg notify.Message
		if err := json.Unmarshal(m.Data, &msg); err != nil || len(msg.Records) != 1 {
			t.Fatalf("NATS message %s: %v", m.Data, err)
		}
		check(t, msg.Records, []want{{name: "ObjectCreated:Put", bucket: "bus", key: "in/n.txt", size: 7, etag: natsETag}})
	case <-time.After(time.Minute):
		t.Fatal("NATS received nothing")
	}
	select {
	case m := <-s.bus:
		t.Errorf("NATS received an event outside its prefix: %s", m.Data)
	case <-time.After(200 * time.Millisecond): // not a timing assertion: the wrong event would be a failure at any time
	}
	m := s.srv.metrics(t)
	for _, line := range []string{
		fmt.Sprintf(`jog_notify_delivered_total{target=%q} %d`, hookARN, len(wants)),
		fmt.Sprintf(`jog_notify_queued_total{target=%q} 1`, busARN),
		"jog_notify_events_lost_total 0",
	} {
		if !strings.Contains(m, line) {
			t.Errorf("/metrics has no %q", line)
		}
	}
}

// multipart uploads key in parts of the sizes given and returns the
// ETag.
func multipart(t *testing.T, c *s3.Client, bucket, key string, sizes ...int) string {
	t.Helper()
	ctx := context.Background()
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	var parts []types.CompletedPart
	for i, n := range sizes {
		num := aws.Int32(int32(i + 1))
		out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId,
			PartNumber: num, Body: bytes.NewReader(bytes.Repeat([]byte{'x'}, n))})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, types.CompletedPart{ETag: out.ETag, PartNumber: num})
	}
	done, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key),
		UploadId: up.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Trim(aws.ToString(done.ETag), `"`)
}

// keysOf lists the keys of events.
func keysOf(evs []notify.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.S3.Object.Key)
	}
	return out
}

func numbered(prefix string, n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("%s%03d", prefix, i))
	}
	return out
}

// putWhileDown starts the server, makes bucket with its events to the
// webhook, takes the webhook down and PUTs n objects: their keys.
func putWhileDown(t *testing.T, bucket string, n int) (*setup, []string) {
	s := start(t)
	c := s.srv.client()
	mustCreate(t, c, bucket, false, toHook)
	s.hook.setDown(true)
	return s, putAll(t, c, bucket, numbered(bucket+"-", n))
}

// putAll PUTs each key, its name as its body, and returns the keys.
func putAll(t *testing.T, c *s3.Client, bucket string, keys []string) []string {
	t.Helper()
	for _, k := range keys {
		put(t, c, bucket, k, []byte(k))
	}
	return keys
}

// TestWebhookDownThenUp: while the webhook answers 500 the events wait
// (and the failures are counted); once it answers again every one arrives,
// in order.
func TestWebhookDownThenUp(t *testing.T) {
	s, keys := putWhileDown(t, "down", 20)
	waitMetric(t, s.srv, fmt.Sprintf(`jog_notify_failures_total{target=%q} `, hookARN))
	s.hook.setDown(false)
	got := s.hook.wait(t, "the events after the webhook came back", func(evs []notify.Event) bool { return len(evs) >= len(keys) })
	if !slices.Equal(keysOf(got), keys) {
		t.Errorf("after the webhook came back: %v, want %v in order", keysOf(got), keys)
	}
}

// waitMetric waits until /metrics has a sample starting with prefix whose
// value is not 0.
func waitMetric(t *testing.T, srv *server, prefix string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		for _, l := range strings.Split(srv.metrics(t), "\n") {
			if v, ok := strings.CutPrefix(l, prefix); ok && v != "0" {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics: no %s above 0", prefix)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestKillAfterAcknowledgedPuts: the server killed (SIGKILL) right after
// acknowledging PUTs whose events its target had not taken; the next
// start delivers every one of them (duplicates allowed, none missing).
func TestKillAfterAcknowledgedPuts(t *testing.T) {
	s, keys := putWhileDown(t, "crash", 50)
	s.srv.Kill()
	s.hook.setDown(false)
	s.srv = startServer(t, s.bin, s.dataDir, s.env, s.args...)
	got := s.hook.wait(t, "every acknowledged PUT's event after the restart", func(evs []notify.Event) bool {
		seen := map[string]bool{}
		for _, k := range keysOf(evs) {
			seen[k] = true
		}
		for _, k := range keys {
			if !seen[k] {
				return false
			}
		}
		return true
	})
	// In order per target: the first time each key arrives follows the PUTs.
	var first []string
	seen := map[string]bool{}
	for _, k := range keysOf(got) {
		if !seen[k] {
			seen[k] = true
			first = append(first, k)
		}
	}
	if !slices.Equal(first, keys) {
		t.Errorf("events after the restart, first arrivals %v, want %v", first, keys)
	}
	entries, _ := os.ReadDir(s.dataDir + "/notify")
	if len(entries) != 1 {
		t.Errorf("notify/ holds %d gateway queues after the restart, want 1 (the killed one's adopted)", len(entries))
	}
}

// TestNATSDownThenUp: while nats-server is down the events wait; once it
// is back (the same port) the server reconnects and publishes every one,
// in order. A JetStream stream on the subject keeps what is published
// whoever subscribes when.
func TestNATSDownThenUp(t *testing.T) {
	s := start(t)
	stream(t, s.nats.URL())
	c := s.srv.client()
	mustCreate(t, c, "bus", false, toBus)
	s.nats.Stop()
	keys := putAll(t, c, "bus", numbered("in/k", 10))
	waitMetric(t, s.srv, fmt.Sprintf(`jog_notify_failures_total{target=%q} `, busARN))
	s.nats.Restart()
	if got := streamKeys(t, s.nats.URL(), len(keys)); !slices.Equal(got, keys) {
		t.Errorf("after nats-server came back: %v, want %v in order", got, keys)
	}
}
