package service

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/notify"
)

// Bucket event notifications (internal/notify): a bucket's
// NotificationConfiguration is stored as the document "notification" and
// compiled into a cache (notifyRules, like CORS); every object created or
// removed, once committed, is matched against it and the events found are
// handed to the queue (Options.Notify) before the request is answered.

// notificationDoc is the name a bucket's notification configuration is
// stored under, as JSON of notify.Config.
const notificationDoc = "notification"

// notifier is what the service keeps of Options.Notify.
type notifier struct {
	queue notify.Queue // nil: the feature is off
	// failed counts events that could not be enqueued (EnqueueFailures).
	failed atomic.Uint64
}

// NotifyTarget reports whether arn names a notification target this
// server is configured with (false when notifications are off).
func (s *Service) NotifyTarget(arn string) bool {
	return s.notify.queue != nil && s.notify.queue.Target(arn)
}

// Notifying reports whether event notifications are on (Options.Notify).
func (s *Service) Notifying() bool { return s.notify.queue != nil }

// EnqueueFailures is the number of events the queue refused so far (each
// logged with its request ID): their requests were answered all the same.
func (s *Service) EnqueueFailures() uint64 { return s.notify.failed.Load() }

// PutBucketNotification stores bucket's notification configuration
// (validated by the caller with notify.Parse); an empty one removes it.
func (s *Service) PutBucketNotification(ctx context.Context, bucket string, c notify.Config) error {
	if len(c.Queues) == 0 {
		if _, err := s.meta.GetBucket(ctx, bucket); err != nil {
			return err
		}
		return s.deleteConfigDoc(ctx, bucket, notificationDoc, s.notifyRules.drop)
	}
	return s.putConfigDoc(ctx, bucket, notificationDoc, c, s.notifyRules.drop)
}

// errNoNotification: the bucket has no notification configuration.
var errNoNotification = errors.New("no notification configuration")

// GetBucketNotification returns bucket's notification configuration as
// stored now: an empty one when it has none.
func (s *Service) GetBucketNotification(ctx context.Context, bucket string) (notify.Config, error) {
	c, err := getConfigDoc[notify.Config](ctx, s, bucket, notificationDoc, errNoNotification)
	if errors.Is(err, errNoNotification) {
		_, err = s.meta.GetBucket(ctx, bucket)
		return notify.Config{}, err
	}
	return c, err
}

// bucketNotify returns bucket's compiled configuration, nil when it has
// none, from a cache (ConfigCacheTTL).
func (s *Service) bucketNotify(ctx context.Context, bucket string) (*notify.Rules, error) {
	return s.notifyRules.load(bucket, func() (*notify.Rules, error) {
		c, err := s.GetBucketNotification(ctx, bucket)
		if err != nil {
			return nil, err
		}
		return notify.Compile(c), nil
	}, func(err error) bool { return errors.Is(err, meta.ErrBucketNotFound) })
}

// createdBy is the creation event of a write: ObjectCreated:Post for a
// browser-based upload, else :Put.
func createdBy(ctx context.Context) notify.EventName {
	if notify.RequestFrom(ctx).Post {
		return notify.ObjectCreatedPost
	}
	return notify.ObjectCreatedPut
}

// emit sends the creation event name of object o, just committed.
func (s *Service) emit(ctx context.Context, name notify.EventName, o meta.Object) {
	if s.notify.queue == nil {
		return
	}
	s.send(ctx, name, o.Bucket, o.Key, func(b meta.Bucket) notify.Source {
		return notify.Source{Size: o.Size, ETag: o.ETag, VersionID: VersionHeaderOf(b, o.VersionID)}
	})
}

// emitRemoval sends the event of DeleteObject's change res to key:
// DeleteMarkerCreated when it made a delete marker, else Delete (a
// version, a marker or an unversioned object removed — or none: S3
// answers and notifies a delete of a missing key alike);
// LifecycleExpiration:* for the lifecycle worker's (notify.Request).
func (s *Service) emitRemoval(ctx context.Context, bucket, key, versionID string, res DeleteResult) {
	if s.notify.queue == nil {
		return
	}
	marker := versionID == "" && res.DeleteMarker
	name := notify.ObjectRemovedDelete
	switch lc := notify.RequestFrom(ctx).Lifecycle; {
	case lc && marker:
		name = notify.LifecycleExpirationDeleteMarker
	case lc:
		name = notify.LifecycleExpirationDelete
	case marker:
		name = notify.ObjectRemovedDeleteMarkerCreated
	}
	s.send(ctx, name, bucket, key, func(b meta.Bucket) notify.Source {
		v := res.VersionID
		if v == "" {
			v = versionID
		}
		return notify.Source{VersionID: VersionHeaderOf(b, v)}
	})
}

// send enqueues event name on key for every configuration of bucket it
// matches; src fills in the object's part once a configuration matched.
// A bucket without a configuration costs one cached lookup. Errors are
// logged and counted, never returned: the change is committed.
func (s *Service) send(ctx context.Context, name notify.EventName, bucket, key string, src func(meta.Bucket) notify.Source) {
	rules, err := s.bucketNotify(ctx, bucket)
	req := notify.RequestFrom(ctx)
	if err != nil {
		s.enqueueFailed(req, name, bucket, key, 1, err)
		return
	}
	var ds []notify.Delivery
	var b meta.Bucket
	var source notify.Source
	rules.Match(name, key, func(id, target string) {
		if !s.notify.queue.Target(target) { // accepted unchecked, or no longer configured
			return
		}
		if ds == nil {
			if b, err = s.meta.GetBucket(ctx, bucket); err != nil {
				return
			}
			source = src(b)
			source.Region, source.Bucket, source.BucketOwner, source.Key = b.Region, bucket, b.Owner, key
			source.At = time.Now()
		}
		ds = append(ds, notify.Delivery{Target: target, Event: notify.NewEvent(name, req, source, id)})
	})
	if err == nil && len(ds) > 0 {
		err = s.notify.queue.Enqueue(context.WithoutCancel(ctx), ds)
	}
	if err != nil {
		s.enqueueFailed(req, name, bucket, key, max(len(ds), 1), err)
	}
}

func (s *Service) enqueueFailed(req notify.Request, name notify.EventName, bucket, key string, n int, err error) {
	s.notify.failed.Add(uint64(n))
	s.log.Error("event notification lost", "id", req.ID, "event", string(name), "bucket", bucket, "key", key, "err", err)
}
