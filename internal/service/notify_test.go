package service

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/notify"
	"github.com/jogstore/jog/internal/sse"
)

const hookTarget = "arn:jog:sqs:r:hook:webhook"

// fakeQueue is an in-memory notify.Queue: it records what it is given.
type fakeQueue struct {
	mu  sync.Mutex
	ds  []notify.Delivery
	err error // returned by Enqueue when set
}

func (q *fakeQueue) Enqueue(_ context.Context, ds []notify.Delivery) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return q.err
	}
	q.ds = append(q.ds, ds...)
	return nil
}

func (q *fakeQueue) Target(arn string) bool { return arn == hookTarget }

// take returns the events received since the last call, as
// "EventName key [versionId]" strings.
func (q *fakeQueue) take() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []string
	for _, d := range q.ds {
		o := d.Event.S3.Object
		s := d.Event.EventName + " " + o.Key
		if o.VersionID != "" {
			s += " v"
		}
		out = append(out, s)
	}
	q.ds = nil
	return out
}

func (q *fakeQueue) last() notify.Event {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.ds[len(q.ds)-1].Event
}

// newNotifyService is a service with a fake queue and bucket "bkt" (owned
// by "owner", versioning as given) whose configuration sends every event
// to hookTarget.
func newNotifyService(t *testing.T, versioning string, configure bool) (*Service, *fakeQueue) {
	t.Helper()
	q := &fakeQueue{}
	s, _ := newTestServiceWith(t, Options{Notify: q})
	if err := s.CreateBucket(t.Context(), "bkt", "r", "owner"); err != nil {
		t.Fatal(err)
	}
	if versioning != "" {
		if err := s.PutBucketVersioning(t.Context(), "bkt", versioning); err != nil {
			t.Fatal(err)
		}
	}
	if configure {
		c, err := notify.Parse([]byte(`<NotificationConfiguration><QueueConfiguration><Id>all</Id><Queue>`+hookTarget+
			`</Queue><Event>s3:ObjectCreated:*</Event><Event>s3:ObjectRemoved:*</Event><Event>s3:LifecycleExpiration:*</Event>`+
			`</QueueConfiguration></NotificationConfiguration>`), q.Target, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.PutBucketNotification(t.Context(), "bkt", c); err != nil {
			t.Fatal(err)
		}
	}
	return s, q
}

func put(t *testing.T, ctx context.Context, s *Service, key, body string, cond meta.Condition) error {
	t.Helper()
	_, err := s.PutObject(ctx, PutInput{Bucket: "bkt", Key: key, Body: strings.NewReader(body), Size: int64(len(body)), Cond: cond, Owner: "owner"})
	return err
}

func same(got []string, want ...string) bool {
	return strings.Join(got, "|") == strings.Join(want, "|")
}

func TestNotifyWrites(t *testing.T) {
	for _, versioning := range []string{"", meta.VersioningEnabled, meta.VersioningSuspended} {
		t.Run("versioning="+versioning, func(t *testing.T) {
			s, q := newNotifyService(t, versioning, true)
			ctx := notify.WithRequest(t.Context(), notify.Request{ID: "REQ1", PrincipalID: "alice", SourceIP: "192.0.2.1"})
			v := ""
			if versioning != "" {
				v = " v"
			}
			if err := put(t, ctx, s, "a b", "hello", meta.Condition{}); err != nil {
				t.Fatal(err)
			}
			if got := q.take(); !same(got, "ObjectCreated:Put a+b"+v) {
				t.Fatalf("put: %v", got)
			}
			// A refused conditional PUT emits nothing.
			if err := put(t, ctx, s, "a b", "x", meta.Condition{IfNoneMatchAny: true}); !errors.Is(err, meta.ErrPreconditionFailed) {
				t.Fatalf("conditional put: %v", err)
			}
			if got := q.take(); len(got) != 0 {
				t.Fatalf("a failed PUT emitted %v", got)
			}
			post := notify.WithRequest(t.Context(), notify.Request{Post: true})
			if err := put(t, post, s, "p", "x", meta.Condition{}); err != nil {
				t.Fatal(err)
			}
			if _, _, err := s.CopyObject(ctx, CopyInput{SrcBucket: "bkt", SrcKey: "a b", Dst: PutInput{Bucket: "bkt", Key: "c", Owner: "owner"}}); err != nil {
				t.Fatal(err)
			}
			if got := q.take(); !same(got, "ObjectCreated:Post p"+v, "ObjectCreated:Copy c"+v) {
				t.Fatalf("post, copy: %v", got)
			}
			u, err := s.CreateUpload(ctx, meta.Upload{Bucket: "bkt", Key: "m", Owner: "owner"}, sse.Request{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := s.UploadPart(ctx, PartInput{Bucket: "bkt", Key: "m", UploadID: u.UploadID, Number: 1, Body: strings.NewReader("part"), Size: 4})
			if err != nil {
				t.Fatal(err)
			}
			in := CompleteInput{Bucket: "bkt", Key: "m", UploadID: u.UploadID, Parts: []CompletedPart{{Number: 1, ETag: p.ETag}}, ObjectSize: -1}
			if _, err := s.CompleteUpload(ctx, in); err != nil {
				t.Fatal(err)
			}
			e := q.last()
			if got := q.take(); !same(got, "ObjectCreated:CompleteMultipartUpload m"+v) {
				t.Fatalf("complete: %v", got)
			}
			if (e.S3.Object.Size == nil || *e.S3.Object.Size != 4) || !strings.HasSuffix(e.S3.Object.ETag, "-1") || e.ResponseElements.RequestID != "REQ1" ||
				e.UserIdentity.PrincipalID != "alice" || e.S3.Bucket.OwnerIdentity.PrincipalID != "owner" || e.AWSRegion != "r" ||
				e.RequestParameters.SourceIPAddress != "192.0.2.1" || e.S3.ConfigurationID != "all" {
				t.Errorf("complete's event: %+v", e)
			}
			// A retried completion answers from the object: no second event.
			if _, err := s.CompleteUpload(ctx, in); err != nil {
				t.Fatal(err)
			}
			if got := q.take(); len(got) != 0 {
				t.Fatalf("a retried completion emitted %v", got)
			}
			res, err := s.DeleteObject(ctx, "bkt", "a b", "", "owner", meta.Condition{})
			if err != nil {
				t.Fatal(err)
			}
			want := "ObjectRemoved:Delete a+b"
			if versioning != "" {
				want = "ObjectRemoved:DeleteMarkerCreated a+b v"
			}
			if got := q.take(); !same(got, want) {
				t.Fatalf("delete: %v, want %s", got, want)
			}
			if versioning != "" { // removing the marker for good
				if _, err := s.DeleteObject(ctx, "bkt", "a b", res.VersionID, "owner", meta.Condition{}); err != nil {
					t.Fatal(err)
				}
				if got := q.take(); !same(got, "ObjectRemoved:Delete a+b v") {
					t.Fatalf("delete of the marker: %v", got)
				}
			}
			// The lifecycle worker's removals.
			lc := notify.WithRequest(t.Context(), notify.Request{Lifecycle: true})
			if _, err := s.DeleteObject(lc, "bkt", "p", "", "owner", meta.Condition{}); err != nil {
				t.Fatal(err)
			}
			want = "LifecycleExpiration:Delete p"
			if versioning != "" {
				want = "LifecycleExpiration:DeleteMarkerCreated p v"
			}
			if got := q.take(); !same(got, want) {
				t.Fatalf("expiration: %v, want %s", got, want)
			}
		})
	}
}

// TestNotifyFiltered: only the configurations an event matches get it,
// and only targets the server has.
func TestNotifyFiltered(t *testing.T) {
	s, q := newNotifyService(t, "", false)
	c, err := notify.Parse([]byte(`<NotificationConfiguration>`+
		`<QueueConfiguration><Queue>`+hookTarget+`</Queue><Event>s3:ObjectCreated:Put</Event>`+
		`<Filter><S3Key><FilterRule><Name>suffix</Name><Value>.jpg</Value></FilterRule></S3Key></Filter></QueueConfiguration>`+
		`<QueueConfiguration><Queue>arn:jog:sqs:r:gone:webhook</Queue><Event>s3:ObjectRemoved:*</Event></QueueConfiguration>`+
		`</NotificationConfiguration>`), q.Target, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutBucketNotification(t.Context(), "bkt", c); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a.jpg", "a.png"} {
		if err := put(t, t.Context(), s, k, "x", meta.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.DeleteObject(t.Context(), "bkt", "a.jpg", "", "", meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	if got := q.take(); !same(got, "ObjectCreated:Put a.jpg") {
		t.Fatalf("got %v", got)
	}
}

// TestNotifyNone: without a configuration, or once it is removed, no
// event; a failing queue fails no request and is counted.
func TestNotifyNone(t *testing.T) {
	s, q := newNotifyService(t, "", false)
	if err := put(t, t.Context(), s, "k", "x", meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	if got := q.take(); len(got) != 0 {
		t.Fatalf("a bucket without configuration emitted %v", got)
	}
	s, q = newNotifyService(t, "", true)
	if err := s.PutBucketNotification(t.Context(), "bkt", notify.Config{}); err != nil {
		t.Fatal(err)
	}
	if c, err := s.GetBucketNotification(t.Context(), "bkt"); err != nil || len(c.Queues) != 0 {
		t.Fatalf("after removal: %+v, %v", c, err)
	}
	if err := put(t, t.Context(), s, "k", "x", meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	if got := q.take(); len(got) != 0 {
		t.Fatalf("a removed configuration emitted %v", got)
	}
	s, q = newNotifyService(t, "", true)
	q.err = errors.New("disk full")
	if err := put(t, t.Context(), s, "k", "x", meta.Condition{}); err != nil {
		t.Fatalf("a queue failure failed the PUT: %v", err)
	}
	if n := s.EnqueueFailures(); n != 1 {
		t.Fatalf("EnqueueFailures = %d, want 1", n)
	}
}

// TestNotifyConfigWithBucket: the configuration reads back, is refused
// for a missing bucket and goes with its bucket.
func TestNotifyConfigWithBucket(t *testing.T) {
	s, _ := newNotifyService(t, "", true)
	c, err := s.GetBucketNotification(t.Context(), "bkt")
	if err != nil || len(c.Queues) != 1 || c.Queues[0].ID != "all" || len(c.Queues[0].Events) != 3 {
		t.Fatalf("%+v, %v", c, err)
	}
	if _, err := s.GetBucketNotification(t.Context(), "nope"); !errors.Is(err, meta.ErrBucketNotFound) {
		t.Fatalf("missing bucket: %v", err)
	}
	if err := s.PutBucketNotification(t.Context(), "nope", notify.Config{}); !errors.Is(err, meta.ErrBucketNotFound) {
		t.Fatalf("missing bucket: %v", err)
	}
	if err := s.DeleteBucket(t.Context(), "bkt"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateBucket(t.Context(), "bkt", "r", "owner"); err != nil {
		t.Fatal(err)
	}
	if c, err := s.GetBucketNotification(t.Context(), "bkt"); err != nil || len(c.Queues) != 0 {
		t.Fatalf("a new bucket of the same name: %+v, %v", c, err)
	}
}
